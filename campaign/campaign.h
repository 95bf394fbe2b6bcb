#pragma once
// A fuzz campaign: every property of a subject under a case or time budget, on several workers (one per
// GPU), shards (MPI ranks), resumable from a checkpoint. Case i of a property is always the i-th draw of
// that property's stream (properties/property_runner.h), and the indices are dealt to "lanes": with L
// lanes in all (shards x workers), lane l runs indices l, l + L, l + 2L, ... So the union of the lanes is
// the same set of cases however the work is split, and the merged counts equal a single process's.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "properties/property_runner.h"

namespace ordo::campaign {

// One lane's progress on one property: the next index it runs and what it has seen so far.
struct LaneState {
  std::int64_t next = 0;  // the next case index of this lane (an index = lane + k * lanes)
  bool done = false;
  PropertyRun run;
};

struct TimelinePoint {
  double seconds = 0;
  std::int64_t cases = 0, failures = 0;
};

// Everything a checkpoint holds: enough to resume with no case and no failure lost or counted twice.
struct CampaignState {
  std::string fingerprint;  // the options that decide the cases; a checkpoint of another campaign is refused
  int lane_begin = 0;       // the lanes of this process: [lane_begin, lane_begin + lanes.size() / properties)
  int lanes_total = 1;
  std::vector<std::string> properties;       // "name|kernel" of each property, in order
  std::vector<std::vector<LaneState>> lanes;  // [property][local lane]
  double seconds_before = 0;                  // spent in earlier, interrupted runs
  std::vector<TimelinePoint> timeline;
};

struct CampaignProgress {
  std::int64_t cases_done = 0, cases_total = -1;  // total -1: a time budget
  std::int64_t failures = 0;
  double seconds = 0, seconds_left = -1;
};

struct CampaignOptions {
  // Everything else that decides the cases and the verdicts, as "name=value" fields joined by ';' (the
  // ordo build, the level, each subject's identity and digest, each contract's definition): part of the
  // fingerprint, so that a checkpoint of another library, level or build is refused.
  std::string identity;
  std::uint64_t seed = 1;
  std::int64_t cases = -1;  // per property; -1: until the time budget is spent
  double seconds = 0;       // time budget (0: none; needs cases)
  int shard = 0, shards = 1;
  int workers = 1;
  std::int64_t chunk = 16;  // cases per subject per round of a lane, shared among its properties in proportion to their budgets
  properties::RunOptions run;          // seed, shrink budget, reproduce prefix (its stop and progress are not used)
  const std::atomic<bool>* stop = nullptr;
  std::function<void(int worker)> bind_worker;  // in each worker thread before its first case (e.g. cudaSetDevice)
  // A minimised failure, as soon as it is found (the campaign writes it to the corpus before going on).
  std::function<void(const properties::PropertySpec&, const properties::CaseOutcome&)> on_failure;
  std::function<void(const CampaignProgress&)> progress;  // about once a second
  std::function<void(const CampaignState&)> checkpoint;   // about every `checkpoint_seconds`
  double checkpoint_seconds = 2;
};

// The fingerprint of (the identity, seed, cases, shards, workers, the properties): resuming needs the same.
std::string campaign_fingerprint(const std::vector<properties::PropertySpec>& specs, const CampaignOptions& o);
CampaignState fresh_state(const std::vector<properties::PropertySpec>& specs, const CampaignOptions& o);
// Why two fingerprints differ, for the refusal's message: the first field that differs, both ways
// ("seed: 7 in the checkpoint, 8 now"; "property a|k: in the checkpoint only"). Empty when equal.
std::string fingerprint_difference(const std::string& saved, const std::string& now);

// Runs (or resumes) the campaign in `state`. Returns when every lane finished its cases, the time budget
// is spent, or *stop is set; `state` then holds everything done.
void run_campaign(const std::vector<properties::PropertySpec>& specs, const CampaignOptions& o, CampaignState& state);

// One run per property: the lanes merged (counts summed, maxima taken, the first 20 failures by index:
// the same for any split). Every case runs and counts; a lane minimises, keeps and reports (on_failure)
// its first 20 failures of a property.
std::vector<PropertyRun> merged_runs(const std::vector<properties::PropertySpec>& specs, const std::vector<CampaignState>& states);
void merge_into(PropertyRun& into, const PropertyRun& from);

nlohmann::json state_to_json(const CampaignState& s);
CampaignState state_from_json(const nlohmann::json& j, const std::string& where);  // std::runtime_error on a bad file

}  // namespace ordo::campaign
