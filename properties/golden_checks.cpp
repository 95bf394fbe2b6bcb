#include "properties/golden_checks.h"

#include <cstring>
#include <filesystem>

#include "properties/corpus_replay.h"
#include "properties/forward_checks.h"

namespace ordo::properties {
namespace {
using protocol::CorpusCase;
using protocol::CorpusEntry;
using protocol::EntryKind;
using protocol::read_corpus_entry;


bool same_values(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

bool same_inputs(const ForwardProblem& a, const ForwardProblem& b) {
  return a.M == b.M && a.N == b.N && a.K == b.K && a.bf16_output == b.bf16_output && same_values(a.x, b.x) &&
         same_values(a.w, b.w) && a.bias.has_value() == b.bias.has_value() &&
         (!a.bias || same_values(*a.bias, *b.bias));
}

ValueFamily family_of(const std::string& label) {
  for (const ValueFamily f : all_families())
    if (label == family_name(f)) return f;
  return ValueFamily::uniform;
}

}  // namespace

std::vector<protocol::CorpusCase> golden_forward_cases(const std::string& dir, const std::string& contract_id) {
  std::vector<protocol::CorpusCase> out;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return out;
  for (const std::string& path : corpus_entry_files({dir})) {
    const CorpusEntry e = read_corpus_entry(path);
    if (e.kind != EntryKind::golden || e.contract.id != contract_id) continue;
    for (const CorpusCase& c : e.cases)
      if (c.forward) out.push_back(c);
  }
  return out;
}

rc::Gen<ForwardCase> gen_golden_case(const std::vector<protocol::CorpusCase>& cases) {
  return rc::gen::map(rc::gen::inRange<std::size_t>(0, cases.size()), [cases](std::size_t i) {
    const ForwardProblem& p = *cases[i].forward;
    ForwardCase c;
    c.M = p.M;
    c.N = p.N;
    c.K = p.K;
    c.has_bias = p.bias.has_value();
    c.seed = i;
    c.family = family_of(cases[i].label);
    c.bf16_output = p.bf16_output;
    c.explicit_values = p;
    return c;
  });
}

CheckResult check_equals_golden(ForwardSubject& subject, const std::vector<protocol::CorpusCase>& cases, const ForwardCase& c) {
  if (c.seed >= cases.size() || !c.explicit_values) return CheckResult::error("not a golden case");
  const CorpusCase& golden = cases[c.seed];
  if (!same_inputs(*c.explicit_values, *golden.forward)) return {};
  const BackendResult got = subject.forward(*golden.forward);
  if (!got.status.ok())
    return CheckResult::error(subject.kernel_id() + " refused a golden case: " + got.status.to_string());
  if (got.y.size() != golden.expected.size()) return CheckResult::failure("wrong number of outputs");
  CheckResult r = compare_outputs(got.y, golden.expected, *golden.forward, subject.name(), "GPU (golden)");
  if (!r.passed) r.detail = "golden case " + std::to_string(c.seed) + " (" + golden.label + "): " + r.detail;
  return r;
}

}  // namespace ordo::properties
