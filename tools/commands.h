#pragma once
#include <CLI/CLI.hpp>

#include <string>

namespace ordo::tools {

// Each subcommand registers its options on `app` and returns the function that runs it.
// command_line is the whole invocation, recorded in reports.
void register_verify(CLI::App& app, int& exit_code, const std::string& command_line);
void register_list(CLI::App& app, int& exit_code);
void register_record(CLI::App& app, int& exit_code);
void register_probe(CLI::App& app, int& exit_code, const std::string& command_line);
void register_file_commands(CLI::App& app, int& exit_code, const std::string& command_line);
void register_report(CLI::App& app, int& exit_code);
void register_replay(CLI::App& app, int& exit_code, const std::string& command_line);
void register_fuzz(CLI::App& app, int& exit_code, const std::string& command_line);
void register_selftest(CLI::App& app, int& exit_code, const std::string& command_line);

}  // namespace ordo::tools
