#include "properties/corpus_failures.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "protocol/sha256.h"

namespace ordo::properties {
namespace {
using protocol::write_corpus_entry;


using protocol::CorpusEntry;
using protocol::EntryKind;
using protocol::FailureDetails;
using protocol::Sha256;

// A property name as part of a file name: [a-z0-9._-] kept, anything else '_'.
std::string file_part(const std::string& s) {
  std::string out;
  for (const char c : s)
    out += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' ? c : '_';
  return out.empty() ? "failure" : out.substr(0, 96);
}

void hash_floats(Sha256& s, const char* name, const std::vector<float>& v) {
  s.update(std::string(name) + " " + std::to_string(v.size()) + "\n");
  s.update(v.data(), v.size() * sizeof(float));
}

// SHA-256 of what identifies a failure: contract, subject, property, the case (fields and values).
std::string failure_digest(const FailureRecordInput& in, const ForwardProblem& p) {
  Sha256 s;
  const ForwardCase& c = in.minimised_case;
  s.update("ordo.corpus/1 failure\n" + contract_to_json(in.contract).dump() + "\n" + in.subject + "\n" + in.property +
           "\n" + c.summary() + "\n");
  hash_floats(s, "x", p.x);
  hash_floats(s, "w", p.w);
  if (p.bias) hash_floats(s, "bias", *p.bias);
  s.update(p.bf16_output ? "y bf16\n" : "y f32\n");
  return s.hex_digest();
}

std::string path_for(const std::string& corpus_dir, const FailureRecordInput& in, const ForwardProblem& p) {
  return (std::filesystem::path(corpus_dir) / "failures" /
          (file_part(in.property) + "-" + failure_digest(in, p).substr(0, 16) + ".json"))
      .string();
}

CorpusEntry build_failure_entry(const FailureRecordInput& in, const ForwardProblem& p) {
  CorpusEntry e;
  e.kind = EntryKind::failure;
  e.why = "A minimised failure of " + in.property + " on " + in.subject + ", found by a campaign (seed " +
          std::to_string(in.seed) + ", case " + std::to_string(in.case_index) +
          "). ordo replay checks that the entry still documents a failure against the contract's emulator; "
          "ordo verify (the reproduce command) whether the subject still fails.";
  e.contract = in.contract;
  e.subject = in.subject;
  e.gpu = in.gpu;
  e.commit = build_git_commit();
  e.property = in.property;
  FailureDetails d;
  d.minimised_case = failure_case_of(in.minimised_case);
  d.campaign_seed = in.seed;
  d.case_index = in.case_index;
  d.detail = in.detail;
  d.reproduce = in.reproduce;
  if (in.contract.kind != ContractKind::forward) {
    if (!in.observed.empty() || !in.expected.empty())
      throw std::invalid_argument("add_failure_entry: outputs are recorded for forward properties only (" + in.property + ")");
  } else {
    if (!in.expected.empty() && !holds_exactly(in.expected.size(), p.M, p.N))
      throw std::invalid_argument("add_failure_entry: expected is not [M, N]");
    if (!in.observed.empty() && !holds_exactly(in.observed.size(), p.M, p.N))
      throw std::invalid_argument("add_failure_entry: observed is not [M, N]");
    // The case, with the emulator's output when the campaign did not pass it. A case the contract's
    // checks refuse (the emulator cannot replay it) keeps its inputs in failure.case only.
    if (check_dot_problem(in.contract.plan, p).ok()) {
      std::vector<float> expected = in.expected.empty() ? oracle::emulate_dot(in.contract.plan, p) : in.expected;
      e.cases.push_back({std::string(family_name(in.minimised_case.family)), p, {}, {}, std::move(expected), {}, ""});
      if (!in.observed.empty()) d.observed = in.observed;
    } else if (!in.observed.empty()) {
      d.observed_sha256 = protocol::values_sha256(in.observed);
    }
  }
  e.failure = std::move(d);
  return e;
}

}  // namespace

namespace {
// The fields a corpus failure and a forward case share, copied the same way in either direction (the value
// family is a name in one and an enum in the other).
template <class From, class To>
void copy_shared_fields(const From& from, To& to) {
  to.M = from.M;
  to.N = from.N;
  to.K = from.K;
  to.has_bias = from.has_bias;
  to.seed = from.seed;
  to.bf16_operands = from.bf16_operands;
  to.bf16_output = from.bf16_output;
  to.explicit_values = from.explicit_values;
}
}  // namespace

protocol::FailureCase failure_case_of(const ForwardCase& c) {
  protocol::FailureCase f;
  copy_shared_fields(c, f);
  f.family = std::string(family_name(c.family));
  return f;
}

ForwardCase forward_case_of(const protocol::FailureCase& f) {
  ForwardCase c;
  bool known = false;
  for (const ValueFamily v : all_families())
    if (family_name(v) == f.family) {
      c.family = v;
      known = true;
    }
  if (!known) throw std::invalid_argument("unknown value family \"" + f.family + "\"");
  copy_shared_fields(f, c);
  return c;
}

std::string failure_entry_path(const std::string& corpus_dir, const FailureRecordInput& in) {
  return path_for(corpus_dir, in, in.minimised_case.materialize());
}

CorpusEntry failure_entry(const FailureRecordInput& in) {
  return build_failure_entry(in, in.minimised_case.materialize());
}

AddOutcome add_failure_entry(const std::string& corpus_dir, const FailureRecordInput& in) {
  // Everything expensive (materialising, emulating, hashing) outside the lock; the lock makes "does the
  // file exist, else write it" one step for the threads of this process. Two processes racing on the same
  // failure write identical text, and the atomic rename leaves one whole copy.
  const ForwardProblem p = in.minimised_case.materialize();
  const std::string path = path_for(corpus_dir, in, p);
  const CorpusEntry entry = build_failure_entry(in, p);
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return AddOutcome::already_present;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) throw FileWriteError(std::filesystem::path(path).parent_path().string() + ": cannot create: " + ec.message());
  write_corpus_entry(path, entry);
  return AddOutcome::written;
}

}  // namespace ordo::properties
