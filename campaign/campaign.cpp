#include "campaign/campaign.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ordo::campaign {
namespace {

using properties::CaseOutcome;
using properties::PropertySpec;
using properties::RunOptions;

using Clock = std::chrono::steady_clock;
using nlohmann::json;

bool is_scenario(const PropertySpec& s) { return s.kind == PropertyKind::scenario; }

std::string key_of(const PropertySpec& s) { return s.name + "|" + s.kernel; }

// Failures kept (minimised, written to the corpus, listed in the report) per property: every case still
// runs and counts, but minimising costs hundreds of checks, so a broken subject would never finish. Each
// lane keeps its first kKeptFailures by index and the merge keeps the first kKeptFailures of the union:
// any failure among the first k of the union has fewer than k before it in its own lane, so the merged
// list is the same for any split of the cases.
constexpr std::size_t kKeptFailures = 20;

// /2: the fingerprint covers the subject's identity and digest, the level and the ordo build; rows count
// subject faults.
constexpr const char* kCheckpointSchema = "ordo.campaign-checkpoint/2";

}  // namespace

std::string campaign_fingerprint(const std::vector<PropertySpec>& specs, const CampaignOptions& o) {
  std::ostringstream os;
  if (!o.identity.empty()) os << o.identity << ";";
  os << "seed=" << o.seed << ";cases=" << o.cases << ";shards=" << o.shards << ";shard=" << o.shard
     << ";workers=" << o.workers << ";";
  for (const PropertySpec& s : specs) os << key_of(s) << ";";
  return os.str();
}

std::string fingerprint_difference(const std::string& saved, const std::string& now) {
  if (saved == now) return "";
  auto fields = [](const std::string& f) {
    std::vector<std::string> out;
    std::size_t at = 0;
    for (std::size_t semi; (semi = f.find(';', at)) != std::string::npos; at = semi + 1) out.push_back(f.substr(at, semi - at));
    if (at < f.size()) out.push_back(f.substr(at));
    return out;
  };
  const std::vector<std::string> a = fields(saved), b = fields(now);
  // The options come first as name=value (compared by name: two runs may name different subjects); the
  // properties after them as name|kernel.
  auto is_option = [](const std::string& x) { return x.find('=') != std::string::npos && x.find('|') == std::string::npos; };
  auto options = [&](const std::vector<std::string>& f) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& x : f)
      if (is_option(x)) out.emplace_back(x.substr(0, x.find('=')), x.substr(x.find('=') + 1));
    return out;
  };
  const auto oa = options(a), ob = options(b);
  auto value_in = [](const std::vector<std::pair<std::string, std::string>>& o, const std::string& name) -> const std::string* {
    for (const auto& [n, v] : o)
      if (n == name) return &v;
    return nullptr;
  };
  for (const auto& [name, value] : oa) {
    const std::string* other = value_in(ob, name);
    if (!other) return name + ": " + value + " in the checkpoint, not in this run";
    if (*other != value) return name + ": " + value + " in the checkpoint, " + *other + " now";
  }
  for (const auto& [name, value] : ob)
    if (!value_in(oa, name)) return name + ": " + value + " in this run, not in the checkpoint";
  for (const std::string& x : a)
    if (!is_option(x) && std::find(b.begin(), b.end(), x) == b.end()) return "property " + x + ": in the checkpoint only";
  for (const std::string& x : b)
    if (!is_option(x) && std::find(a.begin(), a.end(), x) == a.end()) return "property " + x + ": in this run only";
  return "the properties are the same but in another order";
}

CampaignState fresh_state(const std::vector<PropertySpec>& specs, const CampaignOptions& o) {
  CampaignState s;
  s.fingerprint = campaign_fingerprint(specs, o);
  s.lane_begin = o.shard * o.workers;
  s.lanes_total = o.shards * o.workers;
  for (const PropertySpec& spec : specs) {
    s.properties.push_back(key_of(spec));
    std::vector<LaneState> lanes(static_cast<std::size_t>(o.workers));
    for (int w = 0; w < o.workers; ++w) {
      LaneState& l = lanes[static_cast<std::size_t>(w)];
      l.next = s.lane_begin + w;
      l.run = start_run(spec);
      // A scenario property is one list of calls: lane 0 of the whole campaign runs it.
      if (is_scenario(spec) && s.lane_begin + w != 0) l.done = true;
    }
    s.lanes.push_back(std::move(lanes));
  }
  return s;
}

void run_campaign(const std::vector<PropertySpec>& specs, const CampaignOptions& o, CampaignState& state) {
  if (state.properties.size() != specs.size()) throw std::invalid_argument("run_campaign: the state is of another campaign");
  for (std::size_t p = 0; p < specs.size(); ++p)
    for (LaneState& l : state.lanes[p]) {  // a checkpoint keeps the counts, the specs say what they are of
      const PropertyRun identity = start_run(specs[p]);
      l.run.name = identity.name;
      l.run.description = identity.description;
      l.run.backend = identity.backend;
      l.run.kernel = identity.kernel;
      l.run.contract = identity.contract;
      l.run.kind = identity.kind;
      l.run.expect_failure = identity.expect_failure;
    }
  std::mutex mu;
  const auto start = Clock::now();
  const double before = state.seconds_before;
  const auto elapsed = [&] { return before + std::chrono::duration<double>(Clock::now() - start).count(); };
  const auto out_of_time = [&] { return o.seconds > 0 && elapsed() >= o.seconds; };
  const auto stopped = [&] { return (o.stop && o.stop->load()) || out_of_time(); };
  const std::int64_t L = state.lanes_total;

  // A round of a lane gives o.chunk cases to each subject that is not ahead: a subject whose cases in
  // this lane exceed the fewest of any unfinished subject's by more than a round waits. So every subject
  // advances in cases at the same rate, whatever its number of properties (a dW tile with five
  // properties used to take 62% of a campaign's time and reach three times the cases of a forward
  // tile), and a subject behind (a checkpoint written under the older schedule) catches up first. A
  // subject's round is shared among its properties in proportion to the suite's own budgets for them
  // (kernel == emulator 1,000 cases at level 1, a large grid 40), with fractional credit kept between
  // rounds, so a costly property takes its share of its subject's cases, not of the time. Interleaving
  // only: with a case budget every property still runs all its cases.
  std::map<std::string, double> subject_budget;
  for (const PropertySpec& spec : specs)
    if (!is_scenario(spec)) subject_budget[spec.kernel] += static_cast<double>(std::max<std::int64_t>(1, spec.cases));
  std::vector<double> share;  // cases per round
  for (const PropertySpec& spec : specs)
    share.push_back(is_scenario(spec) ? 0.0
                                      : static_cast<double>(o.chunk) * static_cast<double>(std::max<std::int64_t>(1, spec.cases)) /
                                            subject_budget[spec.kernel]);

  auto worker = [&](int w) {
    if (o.bind_worker) o.bind_worker(w);
    // The stream of each property, positioned at this lane's next index.
    std::vector<rc::Random> cursors;
    std::vector<std::int64_t> at;  // the index the cursor's next split gives
    for (const PropertySpec& spec : specs) {
      cursors.push_back(case_stream(spec, o.seed));
      at.push_back(0);
    }
    std::vector<double> credit(specs.size(), 0.0);
    bool any_left = true;
    while (any_left && !stopped()) {
      any_left = false;
      std::map<std::string, std::int64_t> subject_cases;  // this lane's, over the subjects still running
      {
        std::lock_guard<std::mutex> lock(mu);
        for (std::size_t p = 0; p < specs.size(); ++p) {
          const LaneState& l = state.lanes[p][static_cast<std::size_t>(w)];
          if (!is_scenario(specs[p]) && !l.done) subject_cases[specs[p].kernel] = 0;
        }
        for (std::size_t p = 0; p < specs.size(); ++p)
          if (auto it = subject_cases.find(specs[p].kernel); it != subject_cases.end() && !is_scenario(specs[p]))
            it->second += state.lanes[p][static_cast<std::size_t>(w)].run.cases;
      }
      std::int64_t fewest = std::numeric_limits<std::int64_t>::max();
      for (const auto& [subject, cases] : subject_cases) fewest = std::min(fewest, cases);
      for (std::size_t p = 0; p < specs.size() && !stopped(); ++p) {
        LaneState* lane;
        {
          std::lock_guard<std::mutex> lock(mu);
          lane = &state.lanes[p][static_cast<std::size_t>(w)];
          if (lane->done) continue;
        }
        const PropertySpec& spec = specs[p];
        if (!is_scenario(spec) && subject_cases[spec.kernel] > fewest + o.chunk) {
          any_left = true;  // ahead: waits for the others
          continue;
        }
        if (is_scenario(spec)) {
          PropertyRun r = run_property(spec, o.run);
          std::lock_guard<std::mutex> lock(mu);
          lane->run = std::move(r);
          lane->done = true;
          continue;
        }
        credit[p] += share[p];
        const auto turn = static_cast<std::int64_t>(credit[p]);
        credit[p] -= static_cast<double>(turn);
        for (std::int64_t n = 0; n < turn && !stopped(); ++n) {
          const std::int64_t i = lane->next;  // only this worker changes its lane
          if (o.cases >= 0 && i >= o.cases) {
            std::lock_guard<std::mutex> lock(mu);
            lane->done = true;
            break;
          }
          while (at[p] < i) {
            cursors[p].split();
            ++at[p];
          }
          const rc::Random random = cursors[p].split();
          ++at[p];
          RunOptions run_options = o.run;
          if (lane->run.failures.size() >= kKeptFailures) run_options.shrink_budget = 0;  // counted, not kept
          // The time of each case (generation, subject, judgement, shrinking) goes to its property's
          // row: what a campaign's cases/s is spent on, property by property.
          const auto case_start = Clock::now();
          CaseOutcome outcome = run_case(spec, run_options, i, random);
          const double case_seconds = std::chrono::duration<double>(Clock::now() - case_start).count();
          const bool kept = outcome.failure && lane->run.failures.size() < kKeptFailures;
          // A failure goes to the corpus before the campaign goes on (and before it is counted, so that a
          // crash in between loses nothing: the case runs again on resume and finds its entry there).
          if (kept && o.on_failure) o.on_failure(spec, outcome);
          std::lock_guard<std::mutex> lock(mu);
          record_case(lane->run, outcome, kKeptFailures);
          lane->run.seconds += case_seconds;
          lane->next = i + L;
        }
        std::lock_guard<std::mutex> lock(mu);
        if (!lane->done) any_left = true;
      }
    }
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < o.workers; ++w) threads.emplace_back(worker, w);
  auto totals = [&] {
    CampaignProgress p;
    for (const auto& lanes : state.lanes)
      for (const LaneState& l : lanes) {
        p.cases_done += l.run.cases;
        p.failures += l.run.failed + l.run.tool_errors;
      }
    p.seconds = elapsed();
    if (o.cases >= 0) {
      // This process's share: the indices below `cases` that its lanes own (scenarios: what they ran).
      p.cases_total = 0;
      for (std::size_t i = 0; i < specs.size(); ++i)
        for (int w = 0; w < o.workers; ++w) {
          const std::int64_t lane = state.lane_begin + w;
          p.cases_total += is_scenario(specs[i]) ? state.lanes[i][static_cast<std::size_t>(w)].run.cases
                                                 : (o.cases > lane ? (o.cases - lane + L - 1) / L : 0);
        }
    }
    if (o.seconds > 0) p.seconds_left = std::max(0.0, o.seconds - p.seconds);
    return p;
  };
  auto last_checkpoint = Clock::now(), last_progress = Clock::now(), last_timeline = Clock::now();
  bool running = true;
  while (running) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bool all_done = true;
    {
      std::lock_guard<std::mutex> lock(mu);
      for (const auto& lanes : state.lanes)
        for (const LaneState& l : lanes) all_done = all_done && l.done;
    }
    running = !all_done && !stopped();
    const auto now = Clock::now();
    std::lock_guard<std::mutex> lock(mu);
    if (now - last_timeline >= std::chrono::seconds(5) || !running) {
      const CampaignProgress p = totals();
      state.timeline.push_back({p.seconds, p.cases_done, p.failures});
      last_timeline = now;
    }
    if (o.progress && (now - last_progress >= std::chrono::seconds(1) || !running)) {
      o.progress(totals());
      last_progress = now;
    }
    if (o.checkpoint && running && std::chrono::duration<double>(now - last_checkpoint).count() >= o.checkpoint_seconds) {
      state.seconds_before = elapsed();
      o.checkpoint(state);
      state.seconds_before = before;
      last_checkpoint = now;
    }
  }
  for (std::thread& t : threads) t.join();
  state.seconds_before = elapsed();
}

void merge_into(PropertyRun& into, const PropertyRun& from) {
  into.cases += from.cases;
  into.failed += from.failed;
  into.subject_faults += from.subject_faults;
  into.tool_errors += from.tool_errors;
  into.elements += from.elements;
  into.overflowed += from.overflowed;
  into.nonfinite_inputs += from.nonfinite_inputs;
  into.skipped += from.skipped;
  into.requested += from.requested;
  into.max_error_over_bound = std::max(into.max_error_over_bound, from.max_error_over_bound);
  into.max_relative_error = std::max(into.max_relative_error, from.max_relative_error);
  into.max_normwise_relative_error = std::max(into.max_normwise_relative_error, from.max_normwise_relative_error);
  for (const auto& [f, v] : from.max_error_over_bound_by_family) {
    double& m = into.max_error_over_bound_by_family[f];
    m = std::max(m, v);
  }
  for (const auto& [f, n] : from.families) into.families[f] += n;
  for (const auto& [f, n] : from.shape_classes) into.shape_classes[f] += n;
  into.failures.insert(into.failures.end(), from.failures.begin(), from.failures.end());
  if (into.skip_reason.empty()) into.skip_reason = from.skip_reason;
  into.seconds += from.seconds;
}

std::vector<PropertyRun> merged_runs(const std::vector<PropertySpec>& specs, const std::vector<CampaignState>& states) {
  std::vector<PropertyRun> out;
  for (std::size_t p = 0; p < specs.size(); ++p) {
    PropertyRun total = start_run(specs[p]);
    for (const CampaignState& s : states)
      for (const LaneState& l : s.lanes.at(p)) merge_into(total, l.run);
    std::stable_sort(total.failures.begin(), total.failures.end(),
                     [](const FailureRecord& a, const FailureRecord& b) { return a.case_index < b.case_index; });
    if (total.failures.size() > kKeptFailures) total.failures.resize(kKeptFailures);
    if (specs[p].kind != PropertyKind::scenario) total.requested = total.cases;
    out.push_back(std::move(total));
  }
  return out;
}

namespace {

json run_to_json(const PropertyRun& r) {
  json failures = json::array();
  for (const FailureRecord& f : r.failures)
    failures.push_back({{"reproduce", f.reproduce}, {"detail", f.detail}, {"original", f.original},
                        {"minimised", f.minimised}, {"shrink_steps", f.shrink_steps}, {"case_index", f.case_index},
                        {"family", f.family}});
  return {{"cases", r.cases}, {"failed", r.failed}, {"subject_faults", r.subject_faults}, {"tool_errors", r.tool_errors}, {"elements", r.elements},
          {"overflowed", r.overflowed}, {"nonfinite_inputs", r.nonfinite_inputs}, {"skipped", r.skipped},
          {"requested", r.requested}, {"skip_reason", r.skip_reason}, {"max_error_over_bound", r.max_error_over_bound},
          {"max_relative_error", r.max_relative_error}, {"max_normwise_relative_error", r.max_normwise_relative_error},
          {"by_family", r.max_error_over_bound_by_family}, {"families", r.families}, {"shape_classes", r.shape_classes},
          {"failures", failures}, {"seconds", r.seconds}};
}

void run_from_json(const json& j, PropertyRun& r) {
  r.cases = j.at("cases").get<std::int64_t>();
  r.failed = j.at("failed").get<std::int64_t>();
  r.subject_faults = j.at("subject_faults").get<std::int64_t>();
  r.tool_errors = j.at("tool_errors").get<std::int64_t>();
  r.elements = j.at("elements").get<std::int64_t>();
  r.overflowed = j.at("overflowed").get<std::int64_t>();
  r.nonfinite_inputs = j.at("nonfinite_inputs").get<std::int64_t>();
  r.skipped = j.at("skipped").get<std::int64_t>();
  r.requested = j.at("requested").get<std::int64_t>();
  r.skip_reason = j.at("skip_reason").get<std::string>();
  r.max_error_over_bound = j.at("max_error_over_bound").get<double>();
  r.max_relative_error = j.at("max_relative_error").get<double>();
  r.max_normwise_relative_error = j.at("max_normwise_relative_error").get<double>();
  r.max_error_over_bound_by_family = j.at("by_family").get<std::map<std::string, double>>();
  r.families = j.at("families").get<std::map<std::string, std::int64_t>>();
  r.shape_classes = j.at("shape_classes").get<std::map<std::string, std::int64_t>>();
  r.failures.clear();
  for (const json& f : j.at("failures"))
    r.failures.push_back({f.at("reproduce").get<std::string>(), f.at("detail").get<std::string>(),
                          f.at("original").get<std::string>(), f.at("minimised").get<std::string>(),
                          f.at("shrink_steps").get<int>(), f.at("case_index").get<std::int64_t>(),
                          f.value("family", std::string())});
  r.seconds = j.at("seconds").get<double>();
}

}  // namespace

json state_to_json(const CampaignState& s) {
  json lanes = json::array();
  for (const auto& per_property : s.lanes) {
    json ls = json::array();
    for (const LaneState& l : per_property) ls.push_back({{"next", l.next}, {"done", l.done}, {"run", run_to_json(l.run)}});
    lanes.push_back(ls);
  }
  json timeline = json::array();
  for (const TimelinePoint& t : s.timeline) timeline.push_back({t.seconds, t.cases, t.failures});
  return {{"schema", kCheckpointSchema}, {"fingerprint", s.fingerprint}, {"lane_begin", s.lane_begin},
          {"lanes_total", s.lanes_total},           {"properties", s.properties},   {"lanes", lanes},
          {"seconds_before", s.seconds_before},     {"timeline", timeline}};
}

CampaignState state_from_json(const json& j, const std::string& where) {
  try {
    const std::string schema = j.at("schema").get<std::string>();
    if (schema == "ordo.campaign-checkpoint/1")
      throw std::runtime_error("a checkpoint of an older ordo (ordo.campaign-checkpoint/1, whose fingerprint did not cover the "
                               "subject, level and build); remove it to start again");
    if (schema != kCheckpointSchema) throw std::runtime_error("not an " + std::string(kCheckpointSchema));
    CampaignState s;
    s.fingerprint = j.at("fingerprint").get<std::string>();
    s.lane_begin = j.at("lane_begin").get<int>();
    s.lanes_total = j.at("lanes_total").get<int>();
    s.properties = j.at("properties").get<std::vector<std::string>>();
    for (const json& per_property : j.at("lanes")) {
      std::vector<LaneState> lanes;
      for (const json& l : per_property) {
        LaneState ls;
        ls.next = l.at("next").get<std::int64_t>();
        ls.done = l.at("done").get<bool>();
        run_from_json(l.at("run"), ls.run);
        lanes.push_back(std::move(ls));
      }
      s.lanes.push_back(std::move(lanes));
    }
    if (s.lanes.size() != s.properties.size()) throw std::runtime_error("lanes and properties disagree");
    s.seconds_before = j.at("seconds_before").get<double>();
    for (const json& t : j.at("timeline")) s.timeline.push_back({t.at(0).get<double>(), t.at(1).get<std::int64_t>(), t.at(2).get<std::int64_t>()});
    return s;
  } catch (const std::exception& e) {
    throw std::runtime_error(where + ": not a usable checkpoint: " + e.what());
  }
}

}  // namespace ordo::campaign
