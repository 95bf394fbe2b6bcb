#pragma once
// Subjects from a plugin library (include/ordo/subject.h) that run in processes of their own, so that
// no verdict is ever given without evidence: a library that exits, aborts, crashes or hangs in a call
// takes down its process, not ordo, and that call becomes a subject_fault (exit, signal) or a
// subject_timeout (no answer within the time limit; the process group is killed) with its case, while
// the next call starts a fresh process. docs/subject-isolation.md has the design.
//
// ordo never opens the library itself: a worker process (`ordo __subject-worker`, subjects/subject_worker.h)
// loads it with the in-process loader and describes it, and the subjects made here carry those traits
// and send each call to a worker (subjects/worker_pool.h). Calls from several threads at once (ordo fuzz
// --workers-per-device N) go to as many workers.
#include <string>

#include "subjects/plugin_subject.h"

namespace ordo {

struct IsolationOptions {
  // The ordo binary whose hidden worker mode runs the library: ordo itself by default; tests that link
  // the subjects library give the built `ordo`.
  std::string executable = "/proc/self/exe";
  // The longest one call may take (each fail-closed scenario, and the library's loading, count alone).
  double call_timeout_seconds = 600;
};

// Starts the first worker, which loads the library; throws PluginError when the library cannot be loaded
// (the loader's own error), or its process dies or hangs while loading it. The result's `library` is the
// description only (no handle, no entry points).
PluginSubjects load_isolated_plugin_subjects(const std::string& path, const IsolationOptions& options);

}  // namespace ordo
