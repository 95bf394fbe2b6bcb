#include "protocol/corpus_legacy.h"

#include "core/contract_file.h"
#include "core/float_bits.h"

namespace ordo::protocol {
namespace {

CorpusEntry golden_header(const std::string& variant, const std::string& contract, const std::string& gpu,
                          const std::string& commit) {
  CorpusEntry e;
  e.kind = EntryKind::golden;
  e.why = golden_why(variant, contract);
  e.contract = resolve_contract(contract);
  e.subject = variant;
  e.gpu = gpu;
  e.commit = commit;
  return e;
}

// The first difference of two tensors, bit for bit, or "".
std::string bits_differ(const std::vector<float>& legacy, const std::vector<float>& entry, const std::string& name) {
  if (legacy.size() != entry.size())
    return name + ": " + std::to_string(legacy.size()) + " values in the legacy file, " + std::to_string(entry.size()) + " in the entry";
  for (std::size_t i = 0; i < legacy.size(); ++i)
    if (bits_of(legacy[i]) != bits_of(entry[i]))
      return name + "[" + std::to_string(i) + "]: " + hex_bits(legacy[i]) + " in the legacy file, " + hex_bits(entry[i]) +
             " in the entry";
  return "";
}

std::string optional_differ(const std::optional<std::vector<float>>& legacy, const std::optional<std::vector<float>>& entry,
                            const std::string& name) {
  if (legacy.has_value() != entry.has_value()) return name + ": present in one of the two only";
  return legacy ? bits_differ(*legacy, *entry, name) : "";
}

std::string header_differ(const std::string& variant, const std::string& contract, const std::string& gpu,
                          const std::string& commit, std::size_t cases, const CorpusEntry& e) {
  if (e.kind != EntryKind::golden) return "kind: not golden";
  if (e.subject != variant) return "subject: \"" + e.subject + "\", the legacy variant is \"" + variant + "\"";
  if (e.contract.id != contract) return "contract: \"" + e.contract.id + "\", the legacy file's is \"" + contract + "\"";
  if (e.gpu != gpu || e.commit != commit) return "gpu or commit differ";
  if (e.cases.size() != cases) return "cases: " + std::to_string(e.cases.size()) + " against " + std::to_string(cases);
  return "";
}

std::string forward_differ(const ForwardProblem& a, const ForwardProblem& b) {
  if (a.M != b.M || a.N != b.N || a.K != b.K) return "M, N, K differ";
  if (a.bf16_output != b.bf16_output) return "y_dtype differs";
  if (std::string d = bits_differ(a.x, b.x, "x"); !d.empty()) return d;
  if (std::string d = bits_differ(a.w, b.w, "w"); !d.empty()) return d;
  return optional_differ(a.bias, b.bias, "bias");
}

std::string weight_differ(const BackwardWeightProblem& a, const BackwardWeightProblem& b) {
  if (a.T != b.T || a.N != b.N || a.K != b.K) return "T, N, K differ";
  if (a.with_bias_grad != b.with_bias_grad || a.bf16_operands != b.bf16_operands) return "with_bias_grad or dtype differ";
  if (a.keys.has_value() != b.keys.has_value()) return "keys: present in one of the two only (the row order differs)";
  if (a.keys && (a.keys->width != b.keys->width || a.keys->values != b.keys->values)) return "keys differ";
  if (std::string d = bits_differ(a.x, b.x, "x"); !d.empty()) return d;
  return bits_differ(a.g, b.g, "g");
}

std::string located(std::size_t i, const std::string& d) { return d.empty() ? "" : "case " + std::to_string(i) + ": " + d; }

}  // namespace

CorpusEntry convert_legacy_golden(const GoldenFile& f) {
  CorpusEntry e = golden_header(f.variant, f.contract, f.gpu, f.commit);
  for (const GoldenCase& c : f.cases) e.cases.push_back({c.family, c.problem, {}, {}, c.y, {}, ""});
  return e;
}

CorpusEntry convert_legacy_golden_backward(const GoldenBackwardFile& f) {
  CorpusEntry e = golden_header(f.variant, f.contract, f.gpu, f.commit);
  for (const GoldenBackwardCase& c : f.cases) {
    if (c.data) e.cases.push_back({c.family, {}, c.data, {}, c.dx, {}, ""});
    else e.cases.push_back({c.family, {}, {}, c.weight, c.dw.dw, c.dw.db, ""});
  }
  return e;
}

CorpusEntry convert_legacy_regression(const RegressionFile& f) {
  CorpusEntry e;
  e.kind = EntryKind::regression;
  e.why = f.description;
  e.contract = resolve_contract(f.contract);
  // The legacy reader has already selected each case's rows, in its order, with the keys only when the
  // case used them: exactly the problem a case of the new format states.
  for (const RegressionCase& c : f.cases) e.cases.push_back({c.order, {}, {}, c.problem, c.expected.dw, c.expected.db, ""});
  return e;
}

std::string legacy_difference(const GoldenFile& f, const CorpusEntry& e) {
  if (std::string d = header_differ(f.variant, f.contract, f.gpu, f.commit, f.cases.size(), e); !d.empty()) return d;
  for (std::size_t i = 0; i < f.cases.size(); ++i) {
    const GoldenCase& a = f.cases[i];
    const CorpusCase& b = e.cases[i];
    if (a.family != b.label) return located(i, "label \"" + b.label + "\" is not the family \"" + a.family + "\"");
    if (!b.forward) return located(i, "not a forward case");
    if (std::string d = forward_differ(a.problem, *b.forward); !d.empty()) return located(i, d);
    if (std::string d = bits_differ(a.y, b.expected, "y"); !d.empty()) return located(i, d);
  }
  return "";
}

std::string legacy_difference(const GoldenBackwardFile& f, const CorpusEntry& e) {
  if (std::string d = header_differ(f.variant, f.contract, f.gpu, f.commit, f.cases.size(), e); !d.empty()) return d;
  for (std::size_t i = 0; i < f.cases.size(); ++i) {
    const GoldenBackwardCase& a = f.cases[i];
    const CorpusCase& b = e.cases[i];
    if (a.family != b.label) return located(i, "label \"" + b.label + "\" is not the family \"" + a.family + "\"");
    if (a.data.has_value() != b.data.has_value() || a.weight.has_value() != b.weight.has_value())
      return located(i, "a dX case in one, a dW case in the other");
    if (a.data) {
      const BackwardDataProblem &p = *a.data, &q = *b.data;
      if (p.M != q.M || p.N != q.N || p.K != q.K || p.bf16_operands != q.bf16_operands) return located(i, "M, N, K or dtype differ");
      if (std::string d = bits_differ(p.g, q.g, "g"); !d.empty()) return located(i, d);
      if (std::string d = bits_differ(p.w, q.w, "w"); !d.empty()) return located(i, d);
      if (std::string d = bits_differ(a.dx, b.expected, "dx"); !d.empty()) return located(i, d);
    } else {
      if (std::string d = weight_differ(*a.weight, *b.weight); !d.empty()) return located(i, d);
      if (std::string d = bits_differ(a.dw.dw, b.expected, "dw"); !d.empty()) return located(i, d);
      if (std::string d = optional_differ(a.dw.db, b.expected_db, "db"); !d.empty()) return located(i, d);
    }
  }
  return "";
}

std::string legacy_difference(const RegressionFile& f, const CorpusEntry& e) {
  if (e.kind != EntryKind::regression) return "kind: not regression";
  if (e.contract.id != f.contract) return "contract differs";
  if (e.why != f.description) return "why is not the legacy description";
  if (e.cases.size() != f.cases.size()) return "the number of cases differs";
  for (std::size_t i = 0; i < f.cases.size(); ++i) {
    const RegressionCase& a = f.cases[i];
    const CorpusCase& b = e.cases[i];
    if (a.order != b.label) return located(i, "label is not the legacy order text");
    if (!b.weight) return located(i, "not a dW case");
    if (std::string d = weight_differ(a.problem, *b.weight); !d.empty()) return located(i, d);
    if (std::string d = bits_differ(a.expected.dw, b.expected, "dw"); !d.empty()) return located(i, d);
    if (std::string d = optional_differ(a.expected.db, b.expected_db, "db"); !d.empty()) return located(i, d);
  }
  return "";
}

}  // namespace ordo::protocol
