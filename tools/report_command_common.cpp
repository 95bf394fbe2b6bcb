#include "tools/report_command_common.h"

#include <cstdio>

#include "core/atomic_file.h"
#include "subjects/environment_probe.h"

namespace ordo::tools {

std::unique_ptr<SummaryOutput> open_report_outputs(const std::string& out, const std::string& json,
                                                   const char* command) {
  try {
    require_writable_folder(out);
    return std::make_unique<SummaryOutput>(json);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo %s: %s\n", command, e.what());
    return nullptr;
  }
}

reports::Report begin_report(const std::string& command_line, std::uint64_t seed, int level, bool look_for_gpu) {
  reports::Report report;
  report.command = command_line;
  report.seed = seed;
  report.level = level;
  report.started_at = reports::utc_now_iso8601();
  report.environment = probe_environment(look_for_gpu);
  return report;
}

bool write_report_files(const reports::Report& report, const std::string& json_path, const std::string& md_path,
                        const SummaryOutput* summary, const char* command) {
  try {
    write_file_atomically(json_path, reports::to_json(report).dump(2) + "\n");
    write_file_atomically(md_path, reports::to_markdown(report));
    if (summary != nullptr) summary->write(report);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo %s: the report was not written: %s\n", command, e.what());
    return false;
  }
  return true;
}

void add_quiet_and_summary_flags(CLI::App* cmd, bool& quiet, std::string& json, const char* quiet_help) {
  cmd->add_flag("--quiet", quiet, quiet_help);
  cmd->add_option("--json", json,
                  "also write the machine-readable summary (ordo.summary/1) to this file, or to stdout with - (the "
                  "other output then goes to stderr)");
}

}  // namespace ordo::tools
