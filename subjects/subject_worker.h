#pragma once
// The other side of an isolated subject (subjects/isolated_plugin.h): the hidden mode
//   ordo __subject-worker FD LIBRARY
// that tools/ordo_main.cpp dispatches before parsing its command line. It opens the library with the
// in-process loader (load_plugin_subjects: the same guarded, poisoned buffers and checks), says hello
// with the library's description, then serves one request at a time on descriptor FD until ordo hangs
// up. Whatever the library does to this process (exit, abort, crash, hang) ordo sees from outside.
namespace ordo {

inline constexpr const char* kSubjectWorkerCommand = "__subject-worker";
inline constexpr int kWorkerConnectionFd = 3;

// argv: ordo __subject-worker FD LIBRARY. Returns the process's exit status: 0 when ordo hung up,
// 2 on bad arguments, 3 when the connection broke or carried a malformed request.
int run_subject_worker(int argc, char** argv);

}  // namespace ordo
