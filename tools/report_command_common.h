#pragma once
// What the commands that judge and write a report (verify, check, fuzz, selftest, probe) do alike: begin the
// report, write its files, and take --quiet, --json and the command line the same way.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "reports/report.h"
#include "tools/summary_output.h"

namespace ordo::tools {

// The output folder checked writable and the --json summary opened (SummaryOutput), before any work; null,
// after "ordo COMMAND: WHY" on stderr, when either cannot be.
std::unique_ptr<SummaryOutput> open_report_outputs(const std::string& out, const std::string& json,
                                                   const char* command);

// A report begun now: the command line, the seed and level, the start time and the environment (the GPU is
// looked for only when `look_for_gpu`).
reports::Report begin_report(const std::string& command_line, std::uint64_t seed, int level, bool look_for_gpu);

// Writes the report's JSON and Markdown atomically, then the --json summary when `summary` is given. false,
// after "ordo COMMAND: the report was not written: WHY" on stderr, when one of them could not be written.
bool write_report_files(const reports::Report& report, const std::string& json_path, const std::string& md_path,
                        const SummaryOutput* summary, const char* command);

// --quiet (`quiet_help` says what it silences) and --json PATH (tools/summary_output.h).
void add_quiet_and_summary_flags(CLI::App* cmd, bool& quiet, std::string& json, const char* quiet_help);

// When the subcommand is chosen: records the whole command line in the options, then runs them. The options
// are a static of the register function, so they outlive the parse.
template <class Options, class Run>
void run_with_command_line(CLI::App* cmd, Options& o, int& exit_code, const std::string& command_line, Run run) {
  cmd->callback([&o, &exit_code, &command_line, run] {
    o.command_line = command_line;
    exit_code = run(o);
  });
}

}  // namespace ordo::tools
