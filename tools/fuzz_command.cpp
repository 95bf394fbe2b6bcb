// `ordo fuzz`: a campaign on one subject (an ordo variant or a plugin's operations): every property that
// applies to it, under a case or time budget, on one worker per GPU, resumable, on MPI ranks.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/bounded_file.h"
#include "core/build_info.h"
#include "core/contract_file.h"
#include "oracle/fpu_environment.h"
#include "campaign/campaign.h"
#include "properties/corpus_failures.h"
#include "protocol/corpus_entry.h"
#include "protocol/sha256.h"
#include "properties/suite.h"
#include "reports/report.h"
#include "subjects/device_select.h"
#include "subjects/environment_probe.h"
#include "subjects/plugin_subject.h"
#include "subjects/registered_subjects.h"
#include "tools/cli_values.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/folder_lock.h"
#include "tools/interrupt.h"
#include "tools/launch_option_flags.h"
#include "tools/mpi_world.h"
#include "tools/plugin_isolation_options.h"
#include "tools/report_command_common.h"
#include "tools/result_printing.h"
#include "tools/summary_output.h"

namespace ordo::tools {
namespace {


struct FuzzOptions {
  std::vector<std::string> kernels, plugins;
  PluginIsolationFlags isolation;  // where the plugins run (isolated by default)
  kernels::LaunchOptions launch;        // how ordo's variants run (--trace-launch, --wgmma-*, --fp32-*)
  std::string cases_text, time_text, seed_text = "1", devices, shard, corpus, out = "ordo-fuzz";
  int level = 1;
  int workers_per_device = 1;
  bool quiet = false;
  std::string json;  // --json PATH|-
  std::string command_line;
};

// A fingerprint field's value: no ';' (the field separator) or '=' in it.
std::string field_value(std::string v) {
  for (char& c : v)
    if (c == ';' || c == '=') c = '_';
  return v;
}

// What decides this campaign's cases and verdicts beyond the seed and budget: the ordo build (its
// generators, emulators, contracts), the level, and each subject's identity: a plugin's file digest (a
// rebuilt or swapped library is another subject, whatever its name), an ordo variant's id (the build
// covers its code), each contract's definition.
std::string campaign_identity(const std::vector<std::string>& plugins, const std::vector<std::string>& kernels, int level,
                              const std::vector<properties::PropertySpec>& specs) {
  std::string id = "ordo=" + field_value(std::string(build_version()) + "+" + build_git_commit() + (build_git_dirty() ? "+dirty" : ""));
  id += ";level=" + std::to_string(level);
  for (std::size_t i = 0; i < plugins.size(); ++i)
    id += ";plugin" + std::to_string(i) + "=" + field_value(std::filesystem::path(plugins[i]).filename().string()) + "@sha256:" +
          protocol::file_sha256(plugins[i], std::size_t{16} << 30);
  for (std::size_t i = 0; i < kernels.size(); ++i) id += ";kernel" + std::to_string(i) + "=" + field_value(kernels[i]);
  std::set<std::string> contracts;
  for (const properties::PropertySpec& s : specs) contracts.insert(s.contract);
  for (const std::string& c : contracts) {
    std::string definition;
    try {
      definition = contract_to_json(resolve_contract(c)).dump();
    } catch (const ContractFileError&) {
      definition = c;  // a plugin's own contract: its library's digest covers it
    }
    id += ";contract:" + field_value(c) + "=sha256:" + protocol::sha256_hex(definition);
  }
  return id;
}

// "90", "90s", "10m", "1h", "1h30m": seconds, exactly; anything else is a usage error.
double parse_duration(const std::string& text) {
  static const std::regex re("^(?:([0-9]{1,6})h)?(?:([0-9]{1,6})m)?(?:([0-9]{1,9})s?)?$");
  std::smatch m;
  if (text.empty() || !std::regex_match(text, m, re) || (m[1].length() + m[2].length() + m[3].length()) == 0)
    throw CLI::ValidationError("--time", "expected a duration like 90s, 10m, 1h30m; got \"" + text + "\"");
  const double s = (m[1].length() ? std::stod(m[1]) * 3600 : 0) + (m[2].length() ? std::stod(m[2]) * 60 : 0) +
                   (m[3].length() ? std::stod(m[3]) : 0);
  if (s < 1) throw CLI::ValidationError("--time", "at least one second");
  return s;
}

std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> out;
  if (text.empty()) return out;
  std::stringstream ss(text);
  std::string item;
  std::set<int> seen;
  while (std::getline(ss, item, ',')) {
    const int d = static_cast<int>(parse_integer(item, "--devices", 0, 1023));
    if (!seen.insert(d).second) throw CLI::ValidationError("--devices", "device " + item + " listed twice");
    out.push_back(d);
  }
  return out;
}

std::pair<int, int> parse_shard(const std::string& text) {
  static const std::regex re("^([0-9]{1,6})/([0-9]{1,6})$");
  std::smatch m;
  if (!std::regex_match(text, m, re)) throw CLI::ValidationError("--shard", "expected i/n, e.g. 0/4; got \"" + text + "\"");
  const int i = std::stoi(m[1]), n = std::stoi(m[2]);
  if (n < 1 || i >= n) throw CLI::ValidationError("--shard", "need 0 <= i < n, got " + text);
  return {i, n};
}

std::string format_progress(const campaign::CampaignProgress& p) {
  char buf[256];
  const double rate = p.seconds > 0 ? static_cast<double>(p.cases_done) / p.seconds : 0;
  std::string left = p.cases_total >= 0 ? std::to_string(std::max<std::int64_t>(0, p.cases_total - p.cases_done)) + " left" : "";
  std::string time_left = p.seconds_left >= 0 ? ", " + std::to_string(static_cast<long long>(p.seconds_left)) + " s left" : "";
  std::snprintf(buf, sizeof buf, "fuzz: %lld cases%s%s, %.1f cases/s, %lld failures, %.0f s elapsed%s",
                static_cast<long long>(p.cases_done), left.empty() ? "" : ", ", left.c_str(), rate,
                static_cast<long long>(p.failures), p.seconds, time_left.c_str());
  return buf;
}

int run_fuzz(FuzzOptions o) {
  if (o.kernels.empty() == o.plugins.empty()) throw CLI::ValidationError("fuzz", "give --kernel ID or --plugin LIB (one kind)");
  if (o.cases_text.empty() == o.time_text.empty()) throw CLI::ValidationError("fuzz", "give a budget: --cases N or --time DURATION");
  if (const std::string problem = oracle::host_fpu_environment_problem(); !problem.empty()) {
    std::fprintf(stderr, "ordo fuzz: the host floating-point environment is not IEEE default: %s\n", problem.c_str());
    return kExitUsage;
  }
  campaign::CampaignOptions co;
  co.seed = parse_seed(o.seed_text, "--seed");
  if (!o.cases_text.empty()) co.cases = parse_integer(o.cases_text, "--cases", 1, kMaxCases * 10);
  if (!o.time_text.empty()) co.seconds = parse_duration(o.time_text);
  std::vector<int> devices = parse_devices(o.devices);

  MpiWorld world(nullptr, nullptr);
  if (world.active() && !o.shard.empty()) throw CLI::ValidationError("--shard", "under mpirun the ranks are the shards");
  if (!o.shard.empty()) std::tie(co.shard, co.shards) = parse_shard(o.shard);
  if (world.active()) {
    co.shard = world.rank();
    co.shards = world.size();
  }
  const std::string rank_suffix = world.active() ? "-rank" + std::to_string(world.rank()) : "";
  std::unique_ptr<FolderLock> out_lock;
  std::unique_ptr<SummaryOutput> summary;
  try {
    summary = std::make_unique<SummaryOutput>(o.json);
    require_writable_folder(o.out);
    if (!o.corpus.empty()) require_writable_folder(o.corpus + "/failures");
    // One campaign per folder (per rank under MPI: each rank keeps its own checkpoint there).
    out_lock = std::make_unique<FolderLock>(o.out, ".lock" + rank_suffix);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo fuzz: %s\n", e.what());
    return kExitUnwritable;
  } catch (const FolderBusy& e) {
    std::fprintf(stderr, "ordo fuzz: %s\n", e.what());
    return kExitUsage;
  }

  // The subjects and their properties (the host contracts' own properties are `ordo verify`'s job).
  const Environment env = probe_environment(true);
  properties::SuiteOptions so;
  so.level = o.level;
  so.gpu_present = env.gpu.has_value();
  so.device_sm = env.gpu ? env.gpu->sm : 0;
  so.gpu_absent_reason = env.gpu_absent_reason;
  properties::Suite suite;
  std::vector<PluginSubjects> plugins;
  for (const std::string& path : o.plugins) {
    PluginSubjects loaded = load_plugin_as_flagged(path, o.isolation);
    for (auto& f : loaded.forward) properties::add_forward_subject(suite, std::move(f), so);
    for (auto& b : loaded.backward) properties::add_backward_subject(suite, std::move(b), so);
  }
  if (!o.kernels.empty()) {
    std::set<std::string> wanted(o.kernels.begin(), o.kernels.end()), found;
    std::vector<std::string> known;
    for (auto& f : registered_forward_subjects(o.launch)) {
      known.push_back(f->kernel_id());
      if (wanted.count(f->kernel_id()) && found.insert(f->kernel_id()).second) properties::add_forward_subject(suite, std::move(f), so);
    }
    for (auto& b : registered_backward_subjects(o.launch)) {
      known.push_back(b->kernel_id());
      if (wanted.count(b->kernel_id()) && found.insert(b->kernel_id()).second) properties::add_backward_subject(suite, std::move(b), so);
    }
    for (const std::string& k : o.kernels)
      if (!found.count(k)) {
        std::string hint;
        for (const std::string& n : nearest_names(k, known)) hint += (hint.empty() ? "" : ", ") + n;
        throw CLI::ValidationError(
            "--kernel",
            std::string("no variant \"").append(k).append("\"; nearest: ").append(hint).append(" (`ordo list --variants`)"));
      }
  }
  std::vector<properties::PropertySpec> specs, not_runnable;
  for (properties::PropertySpec& s : suite.properties) (s.not_runnable.empty() ? specs : not_runnable).push_back(s);
  bool device_subjects = false;
  for (const auto& f : suite.forward_subjects) device_subjects = device_subjects || f->traits().device_buffers;
  for (const auto& b : suite.backward_subjects) device_subjects = device_subjects || b->traits().device_buffers;
  if (devices.empty()) devices = {device_subjects && world.active() ? world.local_rank() % std::max(1, cuda_device_count()) : 0};
  // Several workers on one GPU: a case spends most of its time on the host (generating the inputs,
  // the emulator, comparing), so concurrent cases keep a many-core host busy while the GPU stays far
  // from full. Worker w runs on devices[w / workers_per_device].
  co.workers = static_cast<int>(devices.size()) * o.workers_per_device;
  co.identity = campaign_identity(o.plugins, o.kernels, o.level, specs);
  co.run.seed = co.seed;
  co.run.reproduce_prefix = "ordo verify --level " + std::to_string(o.level);
  for (const std::string& p : o.plugins) co.run.reproduce_prefix += " --plugin " + p;
  if (!o.plugins.empty()) co.run.reproduce_prefix += reproduce_isolation_flags(o.isolation);
  co.run.reproduce_prefix += kernels::launch_options_text(o.launch);
  const InterruptGuard interrupt;
  co.stop = interrupt.flag();
  if (device_subjects && !specs.empty())
    co.bind_worker = [devices, per = o.workers_per_device,
                      isolated = !o.plugins.empty() && !o.isolation.in_process](int w) {
      // Isolated plugins select the device in their own processes: ordo needs no CUDA context for them.
      if (isolated) return set_calling_thread_device(devices[static_cast<std::size_t>(w / per)]);
      if (Status s = use_cuda_device(devices[static_cast<std::size_t>(w / per)]); !s.ok())
        std::fprintf(stderr, "ordo fuzz: worker %d: %s\n", w, s.to_string().c_str());
    };

  // Failures go to the corpus as soon as they are minimised.
  std::mutex corpus_mu;
  std::int64_t written = 0, already = 0;
  if (!o.corpus.empty())
    co.on_failure = [&](const properties::PropertySpec& spec, const properties::CaseOutcome& out) {
      properties::FailureRecordInput in;
      in.contract = resolve_contract(spec.contract);
      in.subject = spec.kernel;
      in.property = spec.name;
      in.detail = out.failure->detail;
      in.reproduce = out.failure->reproduce;
      in.minimised_case = out.minimal ? *out.minimal : out.c;
      in.seed = co.seed;
      in.case_index = out.index;
      const properties::AddOutcome added = properties::add_failure_entry(o.corpus, in);
      std::lock_guard<std::mutex> lock(corpus_mu);
      switch (added) {
        case properties::AddOutcome::written:
          ++written;
          break;
        case properties::AddOutcome::already_present:
          ++already;
          break;
      }
    };

  // Resume from the checkpoint of the same campaign, if there is one.
  const std::string checkpoint_path = o.out + "/checkpoint" + rank_suffix + ".json";
  campaign::CampaignState state = campaign::fresh_state(specs, co);
  if (std::filesystem::exists(checkpoint_path)) {
    campaign::CampaignState saved;
    try {
      const nlohmann::json j = nlohmann::json::parse(read_bounded_file(checkpoint_path, std::size_t{1} << 30, "checkpoints"));
      saved = campaign::state_from_json(j, checkpoint_path);
    } catch (const std::exception& e) {  // FileReadError, a JSON error, or state_from_json's refusal
      std::fprintf(stderr, "ordo fuzz: %s: not a usable checkpoint (%s); remove it or use another --out\n",
                   checkpoint_path.c_str(), e.what());
      return kExitUsage;
    }
    if (saved.fingerprint != state.fingerprint) {
      std::fprintf(stderr, "ordo fuzz: %s is the checkpoint of another campaign (%s); use another --out or remove it\n",
                   checkpoint_path.c_str(), campaign::fingerprint_difference(saved.fingerprint, state.fingerprint).c_str());
      return kExitUsage;
    }
    state = std::move(saved);
    std::printf("ordo fuzz: resuming from %s (%.0f s done)\n", checkpoint_path.c_str(), state.seconds_before);
  }
  co.checkpoint = [&](const campaign::CampaignState& s) {
    try {
      write_file_atomically(checkpoint_path, campaign::state_to_json(s).dump() + "\n");
    } catch (const FileWriteError& e) {
      std::fprintf(stderr, "ordo fuzz: checkpoint not written: %s\n", e.what());
    }
  };
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto last_line = std::chrono::steady_clock::now();
  if (!o.quiet && world.rank() == 0)
    co.progress = [&](const campaign::CampaignProgress& p) {
      if (tty) {
        std::fprintf(stderr, "\r%-110s", format_progress(p).c_str());
      } else if (std::chrono::steady_clock::now() - last_line >= std::chrono::seconds(10)) {
        std::fprintf(stderr, "%s\n", format_progress(p).c_str());
        last_line = std::chrono::steady_clock::now();
      }
    };
  if (world.rank() == 0)
    std::printf("ordo fuzz: %zu properties on %zu subject(s), seed %llu, %s, %d worker(s), shard %d/%d%s\n", specs.size(),
                suite.forward_subjects.size() / 2 + suite.backward_subjects.size() / 2,
                static_cast<unsigned long long>(co.seed),
                co.cases >= 0 ? (std::to_string(co.cases) + " cases per property").c_str() : (o.time_text + " budget").c_str(),
                co.workers, co.shard, co.shards, world.active() ? " (MPI)" : "");
  std::fflush(stdout);
  const std::string started = reports::utc_now_iso8601();
  campaign::run_campaign(specs, co, state);
  if (tty && !o.quiet && world.rank() == 0) std::fprintf(stderr, "\n");
  co.checkpoint(state);

  // Rank 0 merges every rank's state into one report.
  std::vector<campaign::CampaignState> states;
  if (world.active()) {
    const std::vector<std::string> texts = world.gather(campaign::state_to_json(state).dump());
    if (world.rank() != 0) return interrupt.stopped() ? 128 + interrupt.signal() : kExitPass;
    for (std::size_t r = 0; r < texts.size(); ++r)
      states.push_back(campaign::state_from_json(nlohmann::json::parse(texts[r]), "rank " + std::to_string(r)));
  } else {
    states.push_back(state);
  }
  reports::Report report;
  report.command = o.command_line;
  report.seed = co.seed;
  report.level = o.level;
  report.started_at = started;
  report.environment = env;
  double seconds = 0;
  for (const auto& s : states) seconds = std::max(seconds, s.seconds_before);
  report.seconds = seconds;
  report.interrupted = interrupt.stopped();
  for (PropertyRun& r : campaign::merged_runs(specs, states)) report.results.push_back({std::move(r)});
  for (const properties::PropertySpec& s : not_runnable)
    report.results.push_back({properties::not_run(s, co.cases >= 0 ? co.cases : 0, "not run: " + s.not_runnable)});
  std::int64_t cases = 0;
  for (const auto& row : report.results) cases += row.run.cases;
  for (const campaign::TimelinePoint& t : states[0].timeline) report.timeline.push_back({t.seconds, t.cases, t.failures});
  report.bench = nlohmann::json::array();
  for (const auto& row : report.results) print_row(row);
  if (!write_report_files(report, o.out + "/report.json", o.out + "/report.md", summary.get(), "fuzz"))
    return kExitUnwritable;
  std::printf("\n%s: %lld cases in %.1f s (%.1f cases/s)%s\nreport: %s/report.json, %s/report.md\n",
              report.interrupted     ? "INTERRUPTED"
              : report.nothing_ran() ? "INCONCLUSIVE (nothing ran here; each row says why)"
              : report.all_passed()  ? "PASS"
                                     : "FAIL",
              static_cast<long long>(cases),
              seconds, seconds > 0 ? static_cast<double>(cases) / seconds : 0.0,
              o.corpus.empty() ? "" : (", corpus: " + std::to_string(written) + " failures written, " + std::to_string(already) +
                                       " already there").c_str(),
              o.out.c_str(), o.out.c_str());
  return exit_code_of(report, interrupt.signal());
}

}  // namespace

void register_fuzz(CLI::App& app, int& exit_code, const std::string& command_line) {
  static FuzzOptions o;
  CLI::App* cmd = app.add_subcommand(
      "fuzz",
      "A campaign on one subject (an ordo variant or a plugin): every property that applies, under a case or time "
      "budget, one worker per GPU, deterministic from the seed, checkpointed (the same command resumes), failures "
      "minimised into the corpus. Under mpirun each rank runs one shard and rank 0 writes the merged report. One "
      "campaign per --out folder; the checkpoint resumes only the same campaign (subject and its digest, level, seed, "
      "budget, ordo build). Exit 0 pass, 1 a failure, 2 bad usage (or --out in use), 3 nothing could run here, 4 "
      "unwritable output, 130 / 143 interrupted by SIGINT / SIGTERM (resumable).");
  cmd->add_option("--kernel", o.kernels, "a registered variant id (repeatable; `ordo list --variants`)");
  cmd->add_option("--plugin", o.plugins, "a subject library (include/ordo/subject.h; repeatable)");
  add_plugin_isolation_options(cmd, o.isolation);
  add_launch_option_flags(cmd, o.launch);
  cmd->add_option("--cases", o.cases_text, "cases per property")->check(integer_in(1, kMaxCases * 10));
  cmd->add_option("--time", o.time_text, "time budget: 90s, 10m, 1h30m (resumed campaigns count the time already spent)");
  cmd->add_option("--seed", o.seed_text, "seed of every case")->check(seed_value());
  cmd->add_option("--devices", o.devices, "GPUs, one worker each: 0,1 (default: 0, or the rank's local GPU under MPI)");
  cmd->add_option("--workers-per-device", o.workers_per_device,
                  "workers on each GPU (or on the host), each its own lane of cases: a campaign is mostly host "
                  "time, so 4 keeps a 16-core host busy; subjects are then called from several threads at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--shard", o.shard, "this process's share i/n of the case indices");
  cmd->add_option("--corpus", o.corpus, "corpus folder: minimised failures are written to CORPUS/failures/");
  cmd->add_option("--out", o.out, "report and checkpoint folder")->capture_default_str();
  cmd->add_option("--level", o.level, "shape limits of the cases: 1 or 2")->check(CLI::Range(1, 2));
  add_quiet_and_summary_flags(cmd, o.quiet, o.json, "no progress line");
  run_with_command_line(cmd, o, exit_code, command_line, run_fuzz);
}

}  // namespace ordo::tools
