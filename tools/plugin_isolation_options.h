#pragma once
// The options `ordo verify --plugin` and `ordo fuzz --plugin` share about where a plugin runs: in worker
// processes of its own by default (subjects/isolated_plugin.h), each call within --subject-timeout, or in
// ordo's own process with --in-process (to debug the library under gdb; a library that exits, crashes or
// hangs then takes ordo with it, and no verdict is written).
#include <CLI/CLI.hpp>
#include <string>

#include "subjects/plugin_subject.h"

namespace ordo::tools {

struct PluginIsolationFlags {
  std::string timeout_text;  // --subject-timeout SECONDS (empty: the default)
  bool in_process = false;
};

void add_plugin_isolation_options(CLI::App* command, PluginIsolationFlags& flags);

// The library's subjects, isolated or in process as the flags say. Throws PluginError, or
// CLI::ValidationError for a malformed --subject-timeout.
PluginSubjects load_plugin_as_flagged(const std::string& path, const PluginIsolationFlags& flags);

// What a reproduce command needs of the flags: " --subject-timeout N" when one was given.
std::string reproduce_isolation_flags(const PluginIsolationFlags& flags);

}  // namespace ordo::tools
