// `ordo replay [PATH...] [--contract-dir DIR] [--out DIR]`: replays corpus entries (ordo.corpus/1,
// corpus/README.md) through the host emulators, every entry whatever the others gave, one line per file
// and a summary. Exit 0 every entry replays, 1 a mismatch, 2 a malformed entry or bad usage (malformed
// wins: a corpus that cannot be read whole has not been judged whole). Writes nothing unless --out.
#include <chrono>
#include <cstdio>
#include <map>

#include "core/atomic_file.h"
#include "core/contract_file.h"
#include "properties/corpus_replay.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/report_command_common.h"

namespace ordo::tools {
namespace {


struct ReplayCommand {
  std::vector<std::string> paths;
  std::vector<std::string> contract_dirs;
  std::string out;
  bool quiet = false;
  std::string command_line;
};

const char* row_description(const std::optional<protocol::EntryKind>& kind) {
  if (!kind) return "corpus entries whose kind could not be read: each is malformed";
  switch (*kind) {
    case protocol::EntryKind::golden:
      return "golden entries: the contract's host emulator reproduces every output bit a GPU recorded";
    case protocol::EntryKind::regression:
      return "regression entries: the contract's host emulator reproduces every expected bit";
    case protocol::EntryKind::failure:
      return "failure entries: digests right, the emulator still gives the expected output, the observed output still "
             "differs from it (whether the subject is fixed is for ordo verify)";
  }
  return "";
}

// One report row per entry kind present: an entry is a case, a mismatch a failed case, a malformed entry
// a tool error; every entry that did not replay is listed with its problems.
reports::Report build_report(const std::vector<properties::EntryReplay>& replays, const ReplayCommand& o, double seconds) {
  reports::Report report;
  report.command = o.command_line;
  report.level = 0;
  report.started_at = reports::utc_now_iso8601();
  report.seconds = seconds;
  report.environment = probe_environment(false);
  std::map<int, PropertyRun> rows;  // by kind; entries of unreadable kind (99) last
  for (const properties::EntryReplay& r : replays) {
    const int key = r.kind ? static_cast<int>(*r.kind) : 99;
    PropertyRun& run = rows[key];
    if (run.name.empty()) {
      run.name = "corpus.replay." + (r.kind ? std::string(protocol::entry_kind_name(*r.kind)) : std::string("unreadable"));
      run.description = row_description(r.kind);
      run.backend = "emulator";
      run.kernel = "host.emulator";
      run.contract = "each entry's";
    }
    ++run.requested;
    ++run.cases;
    run.elements += r.elements;
    if (r.outcome == properties::ReplayOutcome::pass) continue;
    (r.outcome == properties::ReplayOutcome::mismatch ? run.failed : run.tool_errors) += 1;
    FailureRecord f;
    f.reproduce = "ordo replay " + r.path;
    // An entry is its own minimal reproducer: the report names it and what was wrong with it.
    f.original = r.path;
    f.minimised = r.path + " (" + std::string(properties::replay_outcome_name(r.outcome)) + ")";
    for (const std::string& p : r.problems) f.detail += (f.detail.empty() ? "" : "\n") + p;
    run.failures.push_back(std::move(f));
  }
  for (auto& [key, run] : rows) report.results.push_back({std::move(run)});
  return report;
}

int run_replay(const ReplayCommand& o) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> paths = o.paths.empty() ? std::vector<std::string>{"corpus"} : o.paths;
  protocol::CorpusReadOptions read;
  std::vector<std::string> files;
  try {
    for (const std::string& dir : o.contract_dirs)
      for (Contract& c : properties::load_contract_dir(dir)) read.contracts.push_back(std::move(c));
    files = properties::corpus_entry_files(paths);
    if (!o.out.empty()) require_writable_folder(o.out);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo replay: %s\n", e.what());
    return kExitUnwritable;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ordo replay: %s\n", e.what());
    return kExitUsage;
  }
  if (files.empty()) {
    // Replaying nothing would pass while checking nothing.
    std::string where;
    for (const std::string& p : paths) where += (where.empty() ? "" : ", ") + p;
    std::fprintf(stderr, "ordo replay: no corpus entries (*.json) under %s\n", where.c_str());
    return kExitUsage;
  }
  properties::ReplayTally tally;
  std::vector<properties::EntryReplay> replays;
  for (const std::string& f : files) {
    replays.push_back(properties::replay_corpus_file(f, read));
    const properties::EntryReplay& r = replays.back();
    tally.add(r);
    if (!o.quiet || r.outcome != properties::ReplayOutcome::pass) std::printf("%s\n", properties::replay_line(r).c_str());
    // The console shows every problem of a bad entry (the line shows the first).
    for (std::size_t i = 1; i < r.problems.size() && i < 10; ++i) std::printf("          %s\n", r.problems[i].c_str());
    std::fflush(stdout);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n%s (%.1f s)\n", properties::replay_summary(tally).c_str(), seconds);
  if (!o.out.empty()) {
    const reports::Report report = build_report(replays, o, seconds);
    if (!write_report_files(report, o.out + "/report.json", o.out + "/report.md", nullptr, "replay"))
      return kExitUnwritable;
    std::printf("report: %s/report.json, %s/report.md\n", o.out.c_str(), o.out.c_str());
  }
  return tally.exit_code();
}

}  // namespace

void register_replay(CLI::App& app, int& exit_code, const std::string& command_line) {
  static ReplayCommand o;
  o.command_line = command_line;
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "Replay corpus entries (ordo.corpus/1: golden vectors, regressions, minimised failures; corpus/README.md) through "
      "the host emulator of each entry's contract: files, or folders searched recursively for *.json (default: corpus "
      "in the current folder). Every entry is replayed, one line each, then a summary. Exit 0 every entry replays, "
      "1 a mismatch, 2 a malformed entry or bad usage.");
  cmd->add_option("paths", o.paths, "entry files or folders (default: corpus)");
  cmd->add_option("--contract-dir", o.contract_dirs,
                  "a folder of ordo.contract/1 files, for entries that name a contract by an id that is not built in "
                  "(repeatable)");
  cmd->add_option("--out", o.out, "write report.json and report.md into this folder (nothing is written without it)");
  cmd->add_flag("--quiet", o.quiet, "print only the entries that do not replay, and the summary");
  cmd->callback([&exit_code] { exit_code = run_replay(o); });
}

}  // namespace ordo::tools
