// The writer of ordo.corpus/1 entries (format: corpus/README.md; reader: corpus_entry.cpp).
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "protocol/corpus_entry.h"
#include "protocol/corpus_tensor.h"
#include "protocol/sha256.h"

namespace ordo::protocol {
namespace {

using corpus_detail::TensorDtype;
using corpus_detail::TensorWriter;
using ojson = nlohmann::ordered_json;

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

[[noreturn]] void refuse(std::size_t index, const std::string& what) {
  throw std::invalid_argument("corpus entry: case " + std::to_string(index) + ": " + what);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits_of(a[i]) != bits_of(b[i])) return false;
  return true;
}

bool same_problem(const ForwardProblem& a, const ForwardProblem& b) {
  return a.M == b.M && a.N == b.N && a.K == b.K && a.bf16_output == b.bf16_output && same_bits(a.x, b.x) &&
         same_bits(a.w, b.w) && a.bias.has_value() == b.bias.has_value() && (!a.bias || same_bits(*a.bias, *b.bias));
}

// A built-in contract by its id; any other (a contract file's, a plugin's) embedded, so that an entry
// replays without the file it came from.
ojson contract_json(const Contract& c) {
  if (const Contract* b = find_contract(c.id); b != nullptr && contract_to_json(*b) == contract_to_json(c)) return c.id;
  return contract_to_json(c);
}

ojson forward_case(const CorpusCase& c, TensorDtype operands, const TensorWriter& tw, const std::string& n) {
  const ForwardProblem& p = *c.forward;
  ojson j = {{"M", p.M}, {"N", p.N}, {"K", p.K}, {"x", tw.floats(p.x, {p.M, p.K}, operands, n + "x")},
             {"w", tw.floats(p.w, {p.N, p.K}, operands, n + "w")}};
  if (p.bias) j["bias"] = tw.floats(*p.bias, {p.N}, TensorDtype::f32, n + "bias");
  j["y_dtype"] = p.bf16_output ? "bf16" : "f32";
  j["expected"] = {{"y", tw.floats(c.expected, {p.M, p.N}, p.bf16_output ? TensorDtype::bf16 : TensorDtype::f32, n + "y")},
                   {"sha256", expected_sha256(c.expected, std::nullopt)}};
  return j;
}

ojson data_case(const CorpusCase& c, TensorDtype operands, const TensorWriter& tw, const std::string& n) {
  const BackwardDataProblem& p = *c.data;
  return {{"M", p.M}, {"N", p.N}, {"K", p.K}, {"g", tw.floats(p.g, {p.M, p.N}, operands, n + "g")},
          {"w", tw.floats(p.w, {p.N, p.K}, operands, n + "w")},
          {"expected", {{"dx", tw.floats(c.expected, {p.M, p.K}, TensorDtype::f32, n + "dx")},
                        {"sha256", expected_sha256(c.expected, std::nullopt)}}}};
}

ojson weight_case(const CorpusCase& c, TensorDtype operands, const TensorWriter& tw, const std::string& n) {
  const BackwardWeightProblem& p = *c.weight;
  ojson j = {{"T", p.T}, {"N", p.N}, {"K", p.K}, {"x", tw.floats(p.x, {p.T, p.K}, operands, n + "x")},
             {"g", tw.floats(p.g, {p.T, p.N}, operands, n + "g")}};
  if (p.keys) j["keys"] = {{"width", p.keys->width}, {"values", tw.ints(p.keys->values, {p.T, p.keys->width}, n + "keys")}};
  j["row_order"] = p.keys ? "keys" : "call";
  j["with_bias_grad"] = p.with_bias_grad;
  ojson e = {{"dw", tw.floats(c.expected, {p.N, p.K}, TensorDtype::f32, n + "dw")}};
  if (c.expected_db) e["db"] = tw.floats(*c.expected_db, {p.N}, TensorDtype::f32, n + "db");
  e["sha256"] = expected_sha256(c.expected, c.expected_db);
  j["expected"] = e;
  return j;
}

// The case checked against the contract's operation and its own shapes before anything is written.
ojson case_json(const CorpusCase& c, const Contract& contract, const TensorWriter& tw, std::size_t index) {
  const TensorDtype operands = contract.plan.operand_dtype == DType::bf16 ? TensorDtype::bf16 : TensorDtype::f32;
  const std::string n = "case" + std::to_string(index) + ".";
  ojson j = {{"label", c.label}};
  if (contract.kind == ContractKind::forward) {
    if (!c.forward || c.data || c.weight) refuse(index, "a forward contract's case holds exactly a forward problem");
    if (!c.forward->shapes_consistent()) refuse(index, "the forward problem's shapes are inconsistent");
    if (!holds_exactly(c.expected.size(), c.forward->M, c.forward->N)) refuse(index, "the expected Y is not [M, N]");
    j.update(forward_case(c, operands, tw, n));
  } else if (contract.kind == ContractKind::backward_data) {
    if (!c.data || c.forward || c.weight) refuse(index, "a dX contract's case holds exactly a dX problem");
    if (!validate(*c.data).ok()) refuse(index, "invalid dX problem: " + validate(*c.data).to_string());
    if (!holds_exactly(c.expected.size(), c.data->M, c.data->K)) refuse(index, "the expected dX is not [M, K]");
    j.update(data_case(c, operands, tw, n));
  } else {
    if (!c.weight || c.forward || c.data) refuse(index, "a dW contract's case holds exactly a dW problem");
    if (!validate(*c.weight).ok()) refuse(index, "invalid dW problem: " + validate(*c.weight).to_string());
    if (!holds_exactly(c.expected.size(), c.weight->N, c.weight->K)) refuse(index, "the expected dW is not [N, K]");
    if (c.expected_db.has_value() != c.weight->with_bias_grad || (c.expected_db && !holds_exactly(c.expected_db->size(), 1, c.weight->N)))
      refuse(index, "the expected db must be [N], exactly when with_bias_grad");
    j.update(weight_case(c, operands, tw, n));
  }
  return j;
}

ojson failure_json(const CorpusEntry& e, const TensorWriter& tw) {
  const FailureDetails& d = *e.failure;
  const FailureCase& fc = d.minimised_case;
  ojson c = {{"M", fc.M}, {"N", fc.N}, {"K", fc.K}, {"family", fc.family}, {"has_bias", fc.has_bias},
             {"seed", hex64(fc.seed)}, {"bf16_operands", fc.bf16_operands}, {"bf16_output", fc.bf16_output},
             {"values", fc.explicit_values ? "explicit" : "generated"}};
  const ForwardProblem* forward = e.cases.empty() ? nullptr : &*e.cases[0].forward;
  if (forward && (forward->M != fc.M || forward->N != fc.N || forward->K != fc.K))
    throw std::invalid_argument("corpus entry: failure.case: its shape is not that of case 0");
  if (fc.explicit_values && forward && !same_problem(*fc.explicit_values, *forward))
    throw std::invalid_argument("corpus entry: failure.case: explicit values differ from case 0, their materialised form");
  if (fc.explicit_values && !forward) {
    const ForwardProblem& p = *fc.explicit_values;
    if (!p.shapes_consistent() || p.M != fc.M || p.N != fc.N || p.K != fc.K || p.bias.has_value() != fc.has_bias)
      throw std::invalid_argument("corpus entry: failure.case: explicit values of another shape than the case");
    const TensorDtype operands = fc.bf16_operands ? TensorDtype::bf16 : TensorDtype::f32;
    c["x"] = tw.floats(p.x, {p.M, p.K}, operands, "failure.x");
    c["w"] = tw.floats(p.w, {p.N, p.K}, operands, "failure.w");
    if (p.bias) c["bias"] = tw.floats(*p.bias, {p.N}, TensorDtype::f32, "failure.bias");
  }
  ojson f = {{"case", c}, {"campaign_seed", hex64(d.campaign_seed)}, {"case_index", d.case_index}};
  if (d.observed) {
    if (!forward || !holds_exactly(d.observed->size(), forward->M, forward->N))
      throw std::invalid_argument("corpus entry: failure.observed: values need case 0 and must be [M, N]");
    f["observed"] = {{"y", tw.floats(*d.observed, {forward->M, forward->N},
                                     forward->bf16_output ? TensorDtype::bf16 : TensorDtype::f32, "failure.observed")},
                     {"sha256", values_sha256(*d.observed)}};
  } else if (!d.observed_sha256.empty()) {
    if (!is_sha256_hex(d.observed_sha256)) throw std::invalid_argument("corpus entry: failure.observed: not a SHA-256");
    f["observed"] = {{"sha256", d.observed_sha256}};
  }
  f["detail"] = d.detail;
  f["reproduce"] = d.reproduce;
  return f;
}

std::string entry_text(const std::string& path, const CorpusEntry& e, const CorpusWriteOptions& o) {
  const bool failure = e.kind == EntryKind::failure;
  if (failure != e.failure.has_value()) throw std::invalid_argument("corpus entry: failure details exactly for kind failure");
  if (failure != !e.property.empty()) throw std::invalid_argument("corpus entry: a property exactly for kind failure");
  if (!failure && e.cases.empty()) throw std::invalid_argument("corpus entry: a golden or regression entry needs cases");
  if (failure && (e.cases.size() > 1 || (!e.cases.empty() && e.contract.kind != ContractKind::forward)))
    throw std::invalid_argument("corpus entry: a failure holds at most one case, of a forward contract");
  if ((failure || e.kind == EntryKind::golden) && e.subject.empty())
    throw std::invalid_argument("corpus entry: golden and failure entries name their subject");
  const std::filesystem::path p(path);
  const TensorWriter tw(p.parent_path().empty() ? "." : p.parent_path().string(), p.stem().string(), o.max_inline_values);
  ojson j = {{"schema", kCorpusSchema},
             {"kind", entry_kind_name(e.kind)},
             {"why", e.why},
             {"expected_verdict", failure ? "fail" : "pass"},
             {"contract", contract_json(e.contract)}};
  if (!e.subject.empty()) j["subject"] = e.subject;
  if (!e.gpu.empty()) j["gpu"] = e.gpu;
  if (!e.commit.empty()) j["commit"] = e.commit;
  if (failure) j["property"] = e.property;
  j["cases"] = ojson::array();
  for (std::size_t i = 0; i < e.cases.size(); ++i) j["cases"].push_back(case_json(e.cases[i], e.contract, tw, i));
  if (failure) j["failure"] = failure_json(e, tw);
  return j.dump(1) + "\n";
}

}  // namespace

void write_corpus_entry(const std::string& path, const CorpusEntry& entry, const CorpusWriteOptions& options) {
  // The .npy files are written while the text is built; the JSON that names them goes last.
  const std::string text = entry_text(path, entry, options);
  write_file_atomically(path, text);
}

void write_corpus_entry(const std::string& path, const CorpusEntry& entry) { write_corpus_entry(path, entry, {}); }

std::string values_sha256(const std::vector<float>& v) { return sha256_hex(v.data(), v.size() * sizeof(float)); }

std::string values_sha256(const std::vector<std::int64_t>& v) {
  return sha256_hex(v.data(), v.size() * sizeof(std::int64_t));
}

std::string expected_sha256(const std::vector<float>& expected, const std::optional<std::vector<float>>& db) {
  Sha256 s;
  s.update(expected.data(), expected.size() * sizeof(float));
  if (db) s.update(db->data(), db->size() * sizeof(float));
  return s.hex_digest();
}

std::string golden_why(const std::string& variant, const std::string& contract_id) {
  return "Golden vectors: the output bits " + variant + " produced on a real GPU (ordo record-golden). The host emulator of " +
         contract_id + " must reproduce every bit, so that CI, which has no GPU, checks the emulator against hardware.";
}

}  // namespace ordo::protocol
