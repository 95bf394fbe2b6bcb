// ordo: verification harness for fixed-order GEMM kernels.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "core/build_info.h"
#include "core/contract_file.h"
#include "tools/commands.h"
#include "core/large_allocations.h"
#include "subjects/subject_worker.h"

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  // The hidden worker mode that runs a plugin library in a process of its own (subjects/subject_worker.h):
  // started by ordo itself, before any command-line parsing, and never listed in --help.
  if (argc >= 2 && std::string(argv[1]) == ordo::kSubjectWorkerCommand) return ordo::run_subject_worker(argc, argv);
  CLI::App app{"ordo: checks fixed-order GEMM kernels bit for bit against a host emulator of their contract,\n"
               "and against an exact (MPFR) oracle with a rigorous per-element error bound."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("ordo ") + ordo::build_version() + " (" + ordo::build_git_commit() + ")");
  int exit_code = 0;
  std::string command_line = "ordo";
  for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
  ordo::tools::register_verify(app, exit_code, command_line);
  ordo::tools::register_list(app, exit_code);
  ordo::tools::register_probe(app, exit_code, command_line);
  ordo::tools::register_record(app, exit_code);
  ordo::tools::register_file_commands(app, exit_code, command_line);
  ordo::tools::register_report(app, exit_code);
  ordo::tools::register_replay(app, exit_code, command_line);
  ordo::tools::register_fuzz(app, exit_code, command_line);
  ordo::tools::register_selftest(app, exit_code, command_line);
  // An unknown command gets its name back and the nearest commands, not only "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      std::string hint;
      for (const std::string& n : ordo::nearest_names(argv[1], names)) hint += (hint.empty() ? "" : ", ") + n;
      std::string all;
      for (const std::string& n : names) all += (all.empty() ? "" : ", ") + n;
      std::cerr << "ordo: unknown command \"" << argv[1] << "\"; nearest: " << hint << "\ncommands: " << all
                << " (ordo --help, ordo COMMAND --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, as ordo's other bad-input errors do.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "ordo: error: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
