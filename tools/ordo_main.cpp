// ordo: verification harness for fixed-order GEMM kernels.
#include <CLI/CLI.hpp>

#include <iostream>

#include "core/build_info.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "ordo: error: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
