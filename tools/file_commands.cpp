// The file protocol: `ordo cases` writes generated inputs, any program writes each y.npy, `ordo check`
// judges them (against a contract, and on the manifest's invariance relations), `ordo identify` finds which
// contract, if any, reproduces them. Exit codes: 0 every element matches, 1 a mismatch, a bound violation
// or a failed invariance, 2 bad input or usage.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/contract_file.h"
#include "properties/case_coverage.h"
#include "protocol/case_folder.h"
#include "properties/case_generation.h"
#include "properties/folder_check.h"
#include "properties/identify.h"
#include "protocol/npy.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "tools/cli_values.h"
#include "tools/cases_out_folder.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/interrupt.h"
#include "tools/report_command_common.h"
#include "tools/result_printing.h"
#include "tools/summary_output.h"

namespace ordo::tools {
namespace {

properties::ShapeRequest parse_shape(const std::string& s) {
  static const std::regex re("^([0-9]{1,9})x([0-9]{1,9})x([0-9]{1,9})$");
  std::smatch mt;
  if (!std::regex_match(s, mt, re)) throw std::invalid_argument("--shape \"" + s + "\": expected MxNxK, e.g. 256x5376x5376");
  return {std::stoll(mt[1]), std::stoll(mt[2]), std::stoll(mt[3])};
}

std::string generated_by() { return "ordo " + std::string(build_version()) + " (" + build_git_commit() + ")"; }

struct CasesCommand {
  std::string contract;
  std::string operands = "f32";
  int level = 1;
  std::string seed = "1";
  std::vector<std::string> shapes;
  std::string y_dtype = "auto";
  std::int64_t max_batch = 16384;
  bool no_bias = false;
  bool replace = false;
  std::string out;
};

// The largest operand or output `ordo cases` writes for one case (values): 1 GiB as FP32. A shape beyond
// it is refused before anything is allocated.
constexpr std::int64_t kMaxCaseValues = std::int64_t{1} << 28;

void check_shape_size(const properties::ShapeRequest& s, const std::string& text) {
  const auto values = [](std::int64_t a, std::int64_t b) { return static_cast<long double>(a) * static_cast<long double>(b); };
  for (const auto& [name, n] : {std::pair{"X [M, K]", values(s.M, s.K)}, std::pair{"W [N, K]", values(s.N, s.K)},
                                std::pair{"Y [M, N]", values(s.M, s.N)}})
    if (n > static_cast<long double>(kMaxCaseValues))
      throw std::invalid_argument("--shape " + text + ": " + name + " would hold " + std::to_string(static_cast<long long>(n)) +
                                  " values; ordo cases writes at most 2^28 (1 GiB as FP32) per tensor");
}

int run_cases(const CasesCommand& o) {
  properties::CasesOptions co;
  if (o.contract != "none") co.contract = resolve_contract(o.contract);
  if (o.operands != "f32" && o.operands != "bf16") throw std::invalid_argument("--operands must be f32 or bf16");
  co.operands = o.operands == "bf16" ? DType::bf16 : DType::f32;
  co.level = o.level;
  co.seed = parse_seed(o.seed, "--seed");
  for (const std::string& s : o.shapes) {
    co.shapes.push_back(parse_shape(s));
    check_shape_size(co.shapes.back(), s);
  }
  co.y_dtype = o.y_dtype;
  co.max_batch = o.max_batch;
  co.bias = !o.no_bias;
  co.generated_by = generated_by();
  try {
    prepare_cases_out_folder(o.out, o.replace);
  } catch (const OutFolderRefused& e) {
    std::fprintf(stderr, "ordo cases: %s\n", e.what());
    return kExitUsage;
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo cases: %s\n", e.what());
    return kExitUnwritable;
  }
  const auto start = std::chrono::steady_clock::now();
  const protocol::CasesManifest m = properties::generate_cases(co, o.out);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const properties::CasesCoverage coverage = properties::cases_coverage(m, o.out);
  std::printf(
      "ordo cases: %zu cases (%lld output elements), %zu invariance relations, contract %s, %s operands, seed %llu, "
      "level %d\n%s"
      "  inputs and %s/manifest.json written; write each case's y.npy (see the manifest), then: ordo check %s\n",
      m.cases.size(), static_cast<long long>(coverage.output_elements), m.relations.size(), m.contract.c_str(),
      m.operands.c_str(), static_cast<unsigned long long>(m.seed), m.level,
      properties::describe_coverage(coverage, seconds).c_str(), o.out.c_str(), o.out.c_str());
  return 0;
}

// One recorded problem given as files (--x --w [--b] --y [--dtype]) instead of a cases folder.
struct ProblemFiles {
  std::string x, w, b, y, dtype = "f32";
  bool given() const { return !x.empty() || !w.empty() || !y.empty() || !b.empty(); }
  void require_complete() const {
    if (x.empty() || w.empty() || y.empty()) throw std::invalid_argument("one problem needs --x, --w and --y (--b optional)");
    if (dtype != "f32" && dtype != "bf16") throw std::invalid_argument("--dtype must be f32 or bf16, got \"" + dtype + "\"");
  }
};

void add_problem_options(CLI::App* cmd, ProblemFiles& p) {
  cmd->add_option("--x", p.x, "one problem: X [M, K] .npy");
  cmd->add_option("--w", p.w, "one problem: W [N, K] .npy");
  cmd->add_option("--b", p.b, "one problem: bias [N] .npy (<f4)");
  cmd->add_option("--y", p.y, "one problem: the kernel's Y [M, N] .npy (<f4: FP32 output; 2-byte: BF16 output)");
  cmd->add_option("--dtype", p.dtype, "one problem: operand dtype, f32 or bf16 (raw <u2/<i2 bits or the ml_dtypes descr)")
      ->capture_default_str();
}

struct CheckCommand {
  std::string folder;
  std::string contract;  // "" = the manifest's; "none"
  ProblemFiles problem;
  std::vector<std::string> cases;
  std::string out;
  std::int64_t bound_elements = 2000;
  bool quiet = false;
  std::string json;  // --json PATH|-
  std::string command_line;
};

// A one-case folder in memory for --x/--w/--y.
protocol::CaseFolder single_problem_folder(const ProblemFiles& o, const std::string& contract) {
  protocol::CasesManifest m;
  m.contract = contract;
  m.operands = o.dtype;
  const auto shape = [](const std::string& path) {
    try {
      return protocol::read_npy(path).shape;
    } catch (const protocol::NpyError& e) {
      throw protocol::InputError(e.what());
    }
  };
  const auto xs = shape(o.x), ws = shape(o.w);
  if (xs.size() != 2) throw protocol::InputError(o.x + ": X must be 2-D [M, K]");
  if (ws.size() != 2) throw protocol::InputError(o.w + ": W must be 2-D [N, K]");
  if (xs[1] != ws[1]) throw protocol::InputError(o.w + ": W has K = " + std::to_string(ws[1]) + ", X has K = " + std::to_string(xs[1]));
  protocol::CaseEntry c;
  c.id = "problem";
  c.M = xs[0];
  c.N = ws[0];
  c.K = xs[1];
  if (c.M < 1 || c.N < 1 || c.K < 1) throw protocol::InputError(o.x + ": M, N and K must be at least 1");
  c.bias = !o.b.empty();
  c.family = "user";
  c.purpose = "user";
  auto absolute = [](const std::string& p) { return std::filesystem::absolute(p).string(); };
  c.x = absolute(o.x);
  c.w = absolute(o.w);
  c.b = c.bias ? absolute(o.b) : "";
  c.y = absolute(o.y);
  m.cases.push_back(c);
  return protocol::CaseFolder("", m);
}

// The folder to judge: a cases folder, or one problem given as files (exactly one of them).
protocol::CaseFolder open_cases(const std::string& folder, const ProblemFiles& problem, const std::string& contract) {
  if (problem.given() && !folder.empty()) throw std::invalid_argument("give a cases folder or --x/--w/--y, not both");
  if (problem.given()) {
    problem.require_complete();
    return single_problem_folder(problem, contract);
  }
  if (folder.empty()) throw std::invalid_argument("give a cases folder (ordo cases --out DIR) or one problem (--x --w --y)");
  return protocol::CaseFolder(folder, protocol::read_manifest(folder));
}

// Runs `body`: bad input (a malformed input file or manifest) is exit 2, "ordo COMMAND: bad input, nothing
// DONE: WHY", with nothing judged or compared.
template <class Body>
int refusing_bad_input(const char* command, const char* done, const Body& body) {
  try {
    return body();
  } catch (const protocol::InputError& e) {
    std::fprintf(stderr, "ordo %s: bad input, nothing %s: %s\n", command, done, e.what());
  } catch (const protocol::ManifestError& e) {
    std::fprintf(stderr, "ordo %s: bad input, nothing %s: %s\n", command, done, e.what());
  }
  return kExitUsage;
}

int run_check(const CheckCommand& o) {
  const bool single = o.problem.given();
  if (single && (o.contract.empty() || o.contract == "none"))
    throw std::invalid_argument("one problem has no invariance relations: give --contract ID|FILE");
  const auto start = std::chrono::steady_clock::now();
  // An unusable report folder is found before the work, not after it.
  const std::string out = !o.out.empty() ? o.out : single ? "ordo-check" : o.folder + "/check-report";
  const std::unique_ptr<SummaryOutput> summary = open_report_outputs(out, o.json, "check");
  if (!summary) return kExitUnwritable;
  return refusing_bad_input("check", "judged", [&]() -> int {
    protocol::CaseFolder folder = open_cases(o.folder, o.problem, o.contract);
    properties::FolderCheckOptions fo;
    const protocol::CasesManifest& manifest = folder.manifest();
    const std::string contract = o.contract.empty() ? manifest.contract : o.contract;
    // The manifest's own definition when it names the contract (a contract from a file, checked against its
    // id when the manifest was read); otherwise a built-in id or a file.
    if (contract != "none")
      fo.contract = o.contract.empty() && manifest.defined_contract ? *manifest.defined_contract : resolve_contract(contract);
    if (fo.contract && fo.contract->kind != ContractKind::forward)
      throw std::invalid_argument("ordo check judges forward outputs; " + fo.contract->id + " is not a forward contract");
    if (fo.contract && (fo.contract->plan.operand_dtype == DType::bf16) != (folder.manifest().operands == "bf16"))
      throw protocol::InputError("the cases hold " + folder.manifest().operands + " operands, contract " + fo.contract->id + " takes " +
                                   std::string(dtype_name(fo.contract->plan.operand_dtype)));
    fo.only_cases = o.cases;
    fo.bound_elements_per_case = o.bound_elements;
    const InterruptGuard interrupt;
    fo.stop = interrupt.flag();
    if (!o.quiet)
      fo.progress = [](const std::string& what, std::int64_t done, std::int64_t total) {
        if (done == total || done % 10 == 0) std::fprintf(stderr, "  ... %s %lld/%lld\n", what.c_str(), static_cast<long long>(done), static_cast<long long>(total));
      };
    std::printf("ordo check: %s, %zu cases, %zu relations, contract %s\n", single ? o.problem.y.c_str() : o.folder.c_str(),
                folder.manifest().cases.size(), folder.manifest().relations.size(), contract.c_str());
    std::fflush(stdout);
    reports::Report report = begin_report(o.command_line, folder.manifest().seed, folder.manifest().level, false);
    for (PropertyRun& r : properties::check_folder(folder, fo)) report.results.push_back({std::move(r)});
    if (report.results.empty()) {
      std::fprintf(stderr, "ordo check: nothing to judge: no contract (--contract none) and no relations among the selected cases\n");
      return kExitUsage;
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.interrupted = interrupt.stopped();
    for (const reports::ResultRow& row : report.results) print_row(row);
    if (!write_report_files(report, out + "/report.json", out + "/report.md", summary.get(), "check"))
      return kExitUnwritable;
    std::printf("\n%s (%.1f s)\nreport: %s/report.json, %s/report.md\n",
                report.interrupted ? "INTERRUPTED" : report.all_passed() ? "PASS" : "FAIL", report.seconds, out.c_str(),
                out.c_str());
    return exit_code_of(report, interrupt.signal());
  });
}

struct IdentifyCommand {
  std::string folder;
  ProblemFiles problem;
  std::string json;
  std::int64_t max_rows = 64, max_cols = 512;
  bool quiet = false;
};

int run_identify(const IdentifyCommand& o) {
  if (!o.json.empty()) {
    // The output's folder is checked before the work, not after it.
    try {
      const std::string parent = std::filesystem::path(o.json).parent_path().string();
      require_writable_folder(parent.empty() ? "." : parent);
    } catch (const FileWriteError& e) {
      std::fprintf(stderr, "ordo identify: %s\n", e.what());
      return kExitUnwritable;
    }
  }
  return refusing_bad_input("identify", "compared", [&]() -> int {
    protocol::CaseFolder folder = open_cases(o.folder, o.problem, "none");
    const std::string source = o.problem.given() ? o.problem.y : o.folder;
    properties::IdentifyOptions io;
    io.max_rows = o.max_rows;
    io.max_cols = o.max_cols;
    if (!o.quiet)
      io.progress = [](std::int64_t done, std::int64_t total) {
        if (done == total || done % 20 == 0) std::fprintf(stderr, "  ... candidates %lld/%lld\n", static_cast<long long>(done), static_cast<long long>(total));
      };
    const properties::IdentifyResult r = properties::identify(folder, io);
    std::printf("ordo identify: %s: %lld candidate contracts ranked on up to %lld x %lld outputs of each case; each that "
                "reproduces the sample is then compared on all %lld outputs of the %lld cases\n",
                source.c_str(), static_cast<long long>(r.candidates), static_cast<long long>(r.sample_rows),
                static_cast<long long>(r.sample_cols), static_cast<long long>(r.elements), static_cast<long long>(r.cases));
    if (r.matches.empty()) std::printf("  no candidate reproduces every output bit for bit\n");
    for (const auto& m : r.matches)
      std::printf("  MATCH   %s: all %lld outputs of the %lld cases equal, bit for bit\n", m.contract.id.c_str(),
                  static_cast<long long>(m.elements), static_cast<long long>(m.cases));
    for (const auto& c : r.closest)
      std::printf("  closest %s: %lld of %lld outputs differ (%s), %lld of %lld cases match; first: %s\n", c.contract.id.c_str(),
                  static_cast<long long>(c.mismatches), static_cast<long long>(c.elements),
                  c.confirmed ? "every output compared" : "on the sample", static_cast<long long>(c.cases_matching),
                  static_cast<long long>(c.cases), c.first_difference.c_str());
    if (!o.json.empty()) {
      nlohmann::ordered_json j;
      j["schema"] = "ordo.identify/1";
      j["folder"] = o.folder;
      if (o.problem.given()) j["problem"] = {{"x", o.problem.x}, {"w", o.problem.w}, {"b", o.problem.b}, {"y", o.problem.y}};
      j["candidates"] = r.candidates;
      // What was compared: a sample ranks the candidates; a match is every element of every case.
      j["compared"] = {{"ranking_sample", {{"rows_per_case", r.sample_rows}, {"cols_per_case", r.sample_cols}}},
                       {"confirmation", {{"cases", r.cases}, {"elements", r.elements}, {"what", "every output element of every case"}}}};
      j["matches"] = nlohmann::ordered_json::array();
      j["closest"] = nlohmann::ordered_json::array();
      j["contracts"] = nlohmann::ordered_json::object();
      j["match_details"] = nlohmann::ordered_json::array();
      for (const auto& m : r.matches) {
        j["matches"].push_back(m.contract.id);
        j["match_details"].push_back({{"contract", m.contract.id}, {"elements", m.elements}, {"cases", m.cases}, {"confirmed", m.confirmed}});
        j["contracts"][m.contract.id] = contract_to_json(m.contract);
      }
      for (const auto& c : r.closest) {
        j["closest"].push_back({{"contract", c.contract.id}, {"mismatches", c.mismatches}, {"elements", c.elements},
                                {"cases", c.cases}, {"cases_matching", c.cases_matching}, {"every_element_compared", c.confirmed},
                                {"first_difference", c.first_difference}});
        j["contracts"][c.contract.id] = contract_to_json(c.contract);
      }
      try {
        write_file_atomically(o.json, j.dump(2) + "\n");
      } catch (const FileWriteError& e) {
        std::fprintf(stderr, "ordo identify: %s\n", e.what());
        return kExitUnwritable;
      }
      std::printf("  written: %s\n", o.json.c_str());
    }
    return r.matches.empty() ? kExitFail : kExitPass;
  });
}

}  // namespace

void register_file_commands(CLI::App& app, int& exit_code, const std::string& command_line) {
  static CasesCommand cases;
  CLI::App* c = app.add_subcommand("cases", "Write generated forward cases (.npy inputs and a manifest with invariance "
                                            "relations) for a kernel outside ordo to run; then `ordo check DIR`");
  c->add_option("--contract", cases.contract, "a contract id or ordo.contract/1 file the cases are for, or none")->required();
  c->add_option("--operands", cases.operands, "with --contract none: f32 or bf16")->capture_default_str();
  c->add_option("--level", cases.level, "1: a few cases per value family; 2: more, larger")->check(CLI::Range(1, 2));
  c->add_option("--seed", cases.seed, "seed of every generated value")->check(seed_value());
  c->add_option("--shape", cases.shapes, "an invariance group at MxNxK (batches up to M rows; repeatable); replaces the random cases");
  c->add_option("--y-dtype", cases.y_dtype, "auto (f32, half bf16 where the contract allows), f32 or bf16")->capture_default_str();
  c->add_option("--max-batch", cases.max_batch,
                "largest batch of an invariance group (anchors past rows 2048, 4096, 8192 need more)")
      ->capture_default_str()
      ->check(CLI::Range(2, 1 << 20));
  c->add_flag("--no-bias", cases.no_bias, "no case has a bias (for kernels whose bias is not FP32)");
  c->add_option("--out", cases.out, "the folder to write: new or empty (or an earlier cases folder with --replace)")->required();
  c->add_flag("--replace", cases.replace,
              "the --out folder holds earlier cases: remove every file its manifest names (inputs, outputs, check "
              "report) first");
  c->callback([&exit_code] { exit_code = run_cases(cases); });

  static CheckCommand check;
  CLI::App* k = app.add_subcommand("check", "Judge the y.npy files of an `ordo cases` folder (or one problem given with "
                                            "--x --w --y) against a contract and on the folder's invariance relations");
  k->add_option("folder", check.folder, "the cases folder");
  k->add_option("--contract", check.contract, "a contract id or file, or none (invariances only); default: the manifest's");
  add_problem_options(k, check.problem);
  k->add_option("--case", check.cases, "judge only this case id (repeatable)");
  k->add_option("--bound-elements", check.bound_elements, "elements per case judged against the exact result")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  k->add_option("--out", check.out, "report folder (default: FOLDER/check-report)");
  add_quiet_and_summary_flags(k, check.quiet, check.json, "no progress lines");
  run_with_command_line(k, check, exit_code, command_line, run_check);

  static IdentifyCommand identify;
  CLI::App* i = app.add_subcommand("identify", "Find which contract, if any, reproduces the y.npy files of an `ordo cases` "
                                               "folder bit for bit: built-in contracts and a family around them");
  i->add_option("folder", identify.folder, "the cases folder");
  add_problem_options(i, identify.problem);
  i->add_option("--json", identify.json, "write {matches, closest, contracts} to this file");
  i->add_option("--rows", identify.max_rows, "rows compared per case (a spread sample of big cases)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 20));
  i->add_option("--cols", identify.max_cols, "columns compared per case")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 20));
  i->add_flag("--quiet", identify.quiet, "no progress lines");
  i->callback([&exit_code] { exit_code = run_identify(identify); });
}

}  // namespace ordo::tools
