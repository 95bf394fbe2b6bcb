#include "properties/corpus_replay.h"

#include "properties/corpus_failures.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "core/bounded_file.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "properties/forward_checks.h"
#include "protocol/strict_json.h"
#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"

namespace ordo::properties {
namespace {


using protocol::CorpusCase;
using protocol::CorpusError;
using protocol::CorpusEntry;
using protocol::CorpusReadOptions;
using protocol::EntryKind;
using protocol::FailureDetails;

// The differences between what the emulator computes and what the entry records, as one message naming
// the first few elements (by index, and row and column of the [rows, cols] tensor) and the count.
std::string differences(const std::vector<float>& got, const std::vector<float>& want, std::int64_t cols,
                        const std::string& name, bool any_nan) {
  if (got.size() != want.size())
    return name + ": the emulator gives " + std::to_string(got.size()) + " values, the entry records " +
           std::to_string(want.size());
  std::size_t count = 0;
  std::string shown;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (same_output(got[i], want[i], any_nan)) continue;
    if (++count <= 3) {
      const auto c = static_cast<std::size_t>(std::max<std::int64_t>(cols, 1));
      shown += std::string(shown.empty() ? "" : "; ") + name + "[" + std::to_string(i) + "] (row " +
               std::to_string(i / c) + ", column " + std::to_string(i % c) + "): the emulator gives " +
               describe_float(got[i]) + ", the entry records " + describe_float(want[i]);
    }
  }
  if (count == 0) return "";
  return shown + (count > 3 ? "; ..." : "") + " (" + std::to_string(count) + " of " + std::to_string(got.size()) +
         " elements differ)";
}

void add_problem(EntryReplay& r, ReplayOutcome severity, const std::string& message) {
  r.problems.push_back(message);
  r.outcome = std::max(r.outcome, severity);
}

struct Emulators {
  std::unique_ptr<ForwardSubject> forward;
  std::unique_ptr<BackwardSubject> backward;
};

// The emulator's outputs of one case: the main tensor and db (dW cases with a bias gradient).
struct CaseOutput {
  Status status;
  std::vector<float> values;
  std::optional<std::vector<float>> db;
  std::int64_t cols = 1;
};

CaseOutput run_case(const CorpusCase& c, Emulators& em) {
  if (c.forward) {
    BackendResult r = em.forward->forward(*c.forward);
    return {r.status, std::move(r.y), std::nullopt, c.forward->N};
  }
  if (c.data) {
    BackendResult r = em.backward->data(*c.data);
    return {r.status, std::move(r.y), std::nullopt, c.data->K};
  }
  BackwardWeightRun r = em.backward->weight({*c.weight});
  return {r.status, std::move(r.result.dw), std::move(r.result.db), c.weight->K};
}

void replay_case(const CorpusCase& c, std::size_t i, bool any_nan, Emulators& em, EntryReplay& r) {
  const std::string where = r.path + ": case " + std::to_string(i) + " (" + c.label + "): ";
  ++r.cases;
  const CaseOutput out = run_case(c, em);
  if (!out.status.ok()) return add_problem(r, ReplayOutcome::mismatch, where + "the emulator refused it: " + out.status.to_string());
  const char* name = c.forward ? "y" : c.data ? "dx" : "dw";
  std::string diff = differences(out.values, c.expected, out.cols, name, any_nan);
  if (c.expected_db) {
    const std::string db = out.db ? differences(*out.db, *c.expected_db, c.weight->N, "db", any_nan) : "db: the emulator gives none";
    diff += (diff.empty() || db.empty() ? "" : "; ") + db;
  }
  r.elements += static_cast<std::int64_t>(c.expected.size() + (c.expected_db ? c.expected_db->size() : 0));
  const std::string recorded_values = protocol::expected_sha256(c.expected, c.expected_db);
  if (diff.empty()) {
    // The emulator reproduces the values, so a digest that does not fit them is what was edited.
    if (recorded_values != c.expected_sha256)
      add_problem(r, ReplayOutcome::malformed,
                  where + "expected.sha256: is not the digest of the expected values (" + recorded_values +
                      "), which the emulator reproduces: the digest was edited or corrupted");
    return;
  }
  std::string why;
  if (recorded_values != c.expected_sha256) {
    const std::string emulated = protocol::expected_sha256(out.values, out.db);
    why = emulated == c.expected_sha256
              ? " [the emulator's output has the recorded expected.sha256: the recorded values were edited after recording]"
              : " [the expected values no longer have the recorded expected.sha256]";
  }
  add_problem(r, ReplayOutcome::mismatch, where + diff + why);
}

void compare_inputs(const std::vector<float>& got, const std::vector<float>& want, std::int64_t cols, const char* name,
                    std::string& diff) {
  if (!diff.empty()) return;
  diff = differences(got, want, cols, name, false);
}

// A failure entry beyond its case: generated values still materialise as recorded, and the observed
// output still differs from the expected one.
void replay_failure(const CorpusEntry& e, bool any_nan, EntryReplay& r) {
  const FailureDetails& d = *e.failure;
  const std::string where = r.path + ": failure";
  r.property = e.property;
  if (e.cases.empty()) {
    r.note = e.contract.kind == ContractKind::forward
                 ? "no forward case recorded (the contract's checks refused it): parsed only"
                 : "a backward property: parsed, digests checked; its problem derives from failure.case in ordo verify";
    return;
  }
  const CorpusCase& c = e.cases[0];
  if (!d.minimised_case.explicit_values) {
    ForwardProblem p;
    try {
      p = forward_case_of(d.minimised_case).materialize();
    } catch (const std::invalid_argument& ex) {
      add_problem(r, ReplayOutcome::malformed, std::string("failure.case: ") + ex.what());
      return;
    }
    std::string diff;
    compare_inputs(p.x, c.forward->x, p.K, "x", diff);
    compare_inputs(p.w, c.forward->w, p.K, "w", diff);
    if (p.bias.has_value() != c.forward->bias.has_value()) diff = diff.empty() ? "bias: present in one only" : diff;
    else if (p.bias) compare_inputs(*p.bias, *c.forward->bias, p.N, "bias", diff);
    if (!diff.empty())
      add_problem(r, ReplayOutcome::mismatch,
                  where + ".case: its seed no longer materialises the inputs of case 0 (the generator changed; the "
                          "recorded inputs still stand, the reproduce command may not): " + diff);
  }
  if (!d.observed && d.observed_sha256.empty()) {
    r.note = "no observed output recorded: the emulator's output checked only";
    return;
  }
  std::size_t differing = 0;
  if (d.observed)
    for (std::size_t i = 0; i < c.expected.size(); ++i) differing += same_output((*d.observed)[i], c.expected[i], any_nan) ? 0 : 1;
  const bool same = d.observed ? differing == 0 : d.observed_sha256 == protocol::values_sha256(c.expected);
  if (same)
    return add_problem(r, ReplayOutcome::mismatch,
                       where + ".observed: equals the expected output: the entry no longer documents a failure");
  r.note = d.observed ? "observed output differs from the expected in " + std::to_string(differing) + " of " +
                            std::to_string(c.expected.size()) + " elements"
                      : "observed output (digest) differs from the expected";
}

// The kind of an entry the strict reader refused, when its JSON says one: for grouping in the summary.
// Through the strict parser, so that a huge or deeply nested file is refused here too.
std::optional<protocol::EntryKind> peek_kind(const std::string& path) {
  try {
    const nlohmann::json j = protocol::parse_strict_json(protocol::read_corpus_file(path), path);
    if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return std::nullopt;
    const std::string k = j["kind"].get<std::string>();
    if (k == "golden") return EntryKind::golden;
    if (k == "regression") return EntryKind::regression;
    if (k == "failure") return EntryKind::failure;
  } catch (const CorpusError&) {
  }
  return std::nullopt;
}

}  // namespace

std::string_view replay_outcome_name(ReplayOutcome o) {
  switch (o) {
    case ReplayOutcome::pass: return "ok";
    case ReplayOutcome::mismatch: return "MISMATCH";
    case ReplayOutcome::malformed: return "MALFORMED";
  }
  return "?";
}

EntryReplay replay_entry(const CorpusEntry& e, const std::string& path) {
  EntryReplay r;
  r.path = path;
  r.kind = e.kind;
  r.subject = e.subject;
  r.contract = e.contract.id;
  r.gpu = e.gpu;
  try {
    Emulators em;
    if (e.contract.kind == ContractKind::forward) em.forward = make_emulator_subject(e.contract);
    else em.backward = make_backward_emulator_subject(e.contract);
    // Bit for bit, NaN bits included, unless the contract leaves them open (as the bitwise property does).
    const bool any_nan = !e.contract.plan.nan_bits.has_value();
    for (std::size_t i = 0; i < e.cases.size(); ++i) replay_case(e.cases[i], i, any_nan, em, r);
    if (e.failure) replay_failure(e, any_nan, r);
  } catch (const std::exception& ex) {
    add_problem(r, ReplayOutcome::malformed, path + ": the replay could not run: " + ex.what());
  }
  return r;
}

EntryReplay replay_corpus_file(const std::string& path, const CorpusReadOptions& options) {
  try {
    return replay_entry(protocol::read_corpus_entry(path, options), path);
  } catch (const std::exception& e) {
    // CorpusError messages start with the path; anything else is given one.
    EntryReplay r;
    r.path = path;
    r.kind = peek_kind(path);
    const std::string what = e.what();
    add_problem(r, ReplayOutcome::malformed, what.rfind(path, 0) == 0 ? what : path + ": " + what);
    return r;
  }
}

std::vector<std::string> corpus_entry_files(const std::vector<std::string>& paths) {
  std::set<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    const auto status = std::filesystem::status(p, ec);
    if (ec || !std::filesystem::exists(status)) throw std::invalid_argument(p + ": no such file or folder");
    if (std::filesystem::is_directory(status)) {
      for (auto it = std::filesystem::recursive_directory_iterator(p, ec); !ec && it != std::filesystem::recursive_directory_iterator();
           it.increment(ec))
        if (it->path().extension() == ".json" && !it->is_directory()) {
          // An entry found by walking a folder is data of that folder: a link out of it is refused.
          try {
            (void)path_inside(p, std::filesystem::relative(it->path(), p).string());
          } catch (const FileReadError& e) {
            throw std::invalid_argument(e.what());
          }
          files.insert(it->path().lexically_normal().string());
        }
      if (ec) throw std::invalid_argument(p + ": cannot list: " + ec.message());
    } else {
      files.insert(std::filesystem::path(p).lexically_normal().string());
    }
  }
  return {files.begin(), files.end()};
}

std::vector<Contract> load_contract_dir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw ContractFileError(dir + ": --contract-dir: not a folder");
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<Contract> contracts;
  std::map<std::string, std::string> seen;
  for (const std::string& f : files) {
    Contract c = load_contract_file(f);
    if (find_contract(c.id) != nullptr) throw ContractFileError(f + ": id: \"" + c.id + "\" is a built-in contract's id");
    if (const auto [it, fresh] = seen.emplace(c.id, f); !fresh)
      throw ContractFileError(f + ": id: \"" + c.id + "\" is also the id of " + it->second);
    contracts.push_back(std::move(c));
  }
  return contracts;
}

ReplayTally::PerKind& ReplayTally::of(const std::optional<protocol::EntryKind>& kind) {
  if (!kind) return unknown;
  return *kind == EntryKind::golden ? golden : *kind == EntryKind::regression ? regression : failure;
}

void ReplayTally::add(const EntryReplay& r) {
  PerKind& k = of(r.kind);
  ++entries;
  ++k.entries;
  k.cases += r.cases;
  k.elements += r.elements;
  if (r.outcome == ReplayOutcome::pass) ++k.passed;
  if (r.outcome == ReplayOutcome::mismatch) {
    ++k.mismatched;
    ++mismatched;
  }
  if (r.outcome == ReplayOutcome::malformed) {
    ++k.malformed;
    ++malformed;
  }
}

std::string replay_line(const EntryReplay& r) {
  std::string line = std::string(replay_outcome_name(r.outcome));
  line.resize(10, ' ');
  line += r.path + ": ";
  if (r.outcome != ReplayOutcome::pass) {
    std::string first = r.problems.empty() ? "" : r.problems[0];
    if (first.rfind(r.path + ": ", 0) == 0) first = first.substr(r.path.size() + 2);
    line += first;
    if (r.problems.size() > 1) line += " (and " + std::to_string(r.problems.size() - 1) + " more problems)";
    return line;
  }
  line += std::string(protocol::entry_kind_name(*r.kind)) + ", " + (r.subject.empty() ? "hand-written" : r.subject) + " (" +
          r.contract + ")";
  if (!r.property.empty()) line += ", " + r.property;
  line += ", " + std::to_string(r.cases) + " cases, " + std::to_string(r.elements) + " elements";
  if (!r.note.empty()) line += "; " + r.note;
  return line;
}

std::string replay_summary(const ReplayTally& t) {
  const auto kind = [](const char* name, const ReplayTally::PerKind& k) {
    return std::string(name) + " " + std::to_string(k.entries) + " (" + std::to_string(k.passed) + " ok, " +
           std::to_string(k.mismatched) + " mismatch, " + std::to_string(k.malformed) + " malformed)";
  };
  std::string s = "ordo replay: " + std::to_string(t.entries) + " entries: " + kind("golden", t.golden) + ", " +
                  kind("regression", t.regression) + ", " + kind("failure", t.failure);
  if (t.unknown.entries > 0) s += ", " + std::to_string(t.unknown.entries) + " of unreadable kind";
  s += "\n" + std::to_string(t.failure.entries) +
       " failure entries: each was checked to still document its failure against the emulator; whether its "
       "subject is fixed is for `ordo verify` (its reproduce command) to say\n";
  s += t.exit_code() == 0 ? "PASS" : t.malformed > 0 ? "FAIL (malformed entries)" : "FAIL (mismatches)";
  return s;
}

}  // namespace ordo::properties
