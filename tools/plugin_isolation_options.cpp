#include "tools/plugin_isolation_options.h"

#include "subjects/isolated_plugin.h"
#include "tools/cli_values.h"

namespace ordo::tools {
namespace {

constexpr std::int64_t kMaxTimeoutSeconds = 7 * 24 * 3600;

}  // namespace

void add_plugin_isolation_options(CLI::App* command, PluginIsolationFlags& flags) {
  const IsolationOptions defaults;
  command
      ->add_option("--subject-timeout", flags.timeout_text,
                   "seconds a plugin's call may take before its process is killed and the case is a subject_timeout "
                   "(default " +
                       std::to_string(static_cast<long long>(defaults.call_timeout_seconds)) + ")")
      ->check(integer_in(1, kMaxTimeoutSeconds));
  command->add_flag("--in-process", flags.in_process,
                    "run the plugin inside ordo's own process instead of worker processes (for gdb): a library "
                    "that exits, crashes or hangs then ends or stalls ordo, with no verdict");
}

PluginSubjects load_plugin_as_flagged(const std::string& path, const PluginIsolationFlags& flags) {
  if (flags.in_process) return load_plugin_subjects(path);
  IsolationOptions options;
  if (!flags.timeout_text.empty())
    options.call_timeout_seconds =
        static_cast<double>(parse_integer(flags.timeout_text, "--subject-timeout", 1, kMaxTimeoutSeconds));
  return load_isolated_plugin_subjects(path, options);
}

std::string reproduce_isolation_flags(const PluginIsolationFlags& flags) {
  return flags.timeout_text.empty() ? "" : " --subject-timeout " + flags.timeout_text;
}

}  // namespace ordo::tools
