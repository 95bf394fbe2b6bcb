// The strict reader of ordo.corpus/1 entries (format: corpus/README.md; writer: corpus_entry_write.cpp).
#include "protocol/corpus_entry.h"

#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/contract_file.h"
#include "core/problem_checks.h"
#include "protocol/corpus_tensor.h"
#include "protocol/sha256.h"
#include "protocol/strict_json.h"

namespace ordo::protocol {
namespace {

using corpus_detail::read_float_tensor;
using corpus_detail::read_int64_tensor;
using corpus_detail::read_sha256;
using corpus_detail::TensorDtype;
using nlohmann::json;

struct Reader {
  const Contract& contract;
  const std::string& npy_dir;
  TensorDtype operands() const { return contract.plan.operand_dtype == DType::bf16 ? TensorDtype::bf16 : TensorDtype::f32; }
};

// One of `names`, or a located error listing them.
std::string one_of(StrictObject& o, const std::string& field, std::initializer_list<const char*> names) {
  const std::string s = o.string(field);
  std::string list;
  for (const char* n : names) {
    if (s == n) return s;
    list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  }
  o.fail(field, "must be one of " + list + ", got " + in_quotes(s));
}

// "0x" and exactly 16 hex digits: a 64-bit seed, which a JSON number would not hold exactly everywhere.
std::uint64_t hex64(StrictObject& o, const std::string& field) {
  const std::string s = o.string(field);
  const auto bad = [&] { o.fail(field, "must be \"0x\" and 16 hex digits (a 64-bit seed), got " + in_quotes(s)); };
  if (s.size() != 18 || s[0] != '0' || s[1] != 'x') bad();
  const auto hi = parse_hex32(std::string_view(s).substr(2, 8)), lo = parse_hex32(std::string_view(s).substr(10, 8));
  if (!hi || !lo) bad();
  return std::uint64_t{*hi} << 32 | *lo;
}

std::string expected_digest(StrictObject& e) { return read_sha256(e, "sha256"); }

void read_forward(StrictObject& c, const Reader& r, CorpusCase& out) {
  ForwardProblem p;
  p.M = c.integer("M", 1, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.x = read_float_tensor(c, "x", {{p.M, p.K}, "M*K"}, r.operands(), r.npy_dir);
  p.w = read_float_tensor(c, "w", {{p.N, p.K}, "N*K"}, r.operands(), r.npy_dir);
  // The bias is added in FP32 under every contract, so it is an FP32 tensor even with bf16 operands.
  if (c.has("bias")) p.bias = read_float_tensor(c, "bias", {{p.N}, "N"}, TensorDtype::f32, r.npy_dir);
  p.bf16_output = one_of(c, "y_dtype", {"f32", "bf16"}) == "bf16";
  StrictObject e = c.object("expected");
  out.expected = read_float_tensor(e, "y", {{p.M, p.N}, "M*N"}, p.bf16_output ? TensorDtype::bf16 : TensorDtype::f32,
                                   r.npy_dir, false);
  out.expected_sha256 = expected_digest(e);
  e.no_unknown();
  c.no_unknown();
  if (!p.shapes_consistent()) c.fail("", "shapes inconsistent after reading (reader bug)");
  if (const Status s = check_dot_problem(r.contract.plan, p); !s.ok())
    c.fail("", "refused by the contract's checks: " + s.to_string());
  out.forward = std::move(p);
}

void read_data(StrictObject& c, const Reader& r, CorpusCase& out) {
  BackwardDataProblem p;
  p.M = c.integer("M", 1, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.bf16_operands = r.operands() == TensorDtype::bf16;
  p.g = read_float_tensor(c, "g", {{p.M, p.N}, "M*N"}, r.operands(), r.npy_dir);
  p.w = read_float_tensor(c, "w", {{p.N, p.K}, "N*K"}, r.operands(), r.npy_dir);
  StrictObject e = c.object("expected");
  out.expected = read_float_tensor(e, "dx", {{p.M, p.K}, "M*K"}, TensorDtype::f32, r.npy_dir);
  out.expected_sha256 = expected_digest(e);
  e.no_unknown();
  c.no_unknown();
  if (const Status s = validate(p); !s.ok()) c.fail("", "the problem is invalid: " + s.to_string());
  out.data = std::move(p);
}

void read_weight(StrictObject& c, const Reader& r, CorpusCase& out) {
  BackwardWeightProblem p;
  p.T = c.integer("T", 0, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.bf16_operands = r.operands() == TensorDtype::bf16;
  p.x = read_float_tensor(c, "x", {{p.T, p.K}, "T*K"}, r.operands(), r.npy_dir);
  p.g = read_float_tensor(c, "g", {{p.T, p.N}, "T*N"}, r.operands(), r.npy_dir);
  if (c.has("keys")) {
    StrictObject k = c.object("keys");
    LogicalKeys keys;
    keys.width = k.integer("width", 2, 3);
    keys.values = read_int64_tensor(k, "values", {{p.T, keys.width}, "T*width"}, r.npy_dir);
    k.no_unknown();
    p.keys = std::move(keys);
  }
  // Stated although the keys imply it, so that a hand edit that drops the keys cannot silently turn a
  // case reduced in key order into one reduced in call order.
  const std::string order = one_of(c, "row_order", {"keys", "call"});
  if ((order == "keys") != p.keys.has_value())
    c.fail("row_order", order == "keys" ? "is \"keys\", but the case has no keys" : "is \"call\", but the case has keys");
  p.with_bias_grad = c.boolean("with_bias_grad");
  StrictObject e = c.object("expected");
  out.expected = read_float_tensor(e, "dw", {{p.N, p.K}, "N*K"}, TensorDtype::f32, r.npy_dir);
  if (p.with_bias_grad) out.expected_db = read_float_tensor(e, "db", {{p.N}, "N"}, TensorDtype::f32, r.npy_dir);
  else if (e.has("db")) e.fail("db", "given, but with_bias_grad is false");
  out.expected_sha256 = expected_digest(e);
  e.no_unknown();
  c.no_unknown();
  if (const Status s = validate(p); !s.ok()) c.fail("", "the problem is invalid: " + s.to_string());
  out.weight = std::move(p);
}

CorpusCase read_case(const json& jc, const Location& where, const Reader& r) {
  StrictObject c(jc, where);
  CorpusCase out;
  out.label = c.string("label");
  switch (r.contract.kind) {
    case ContractKind::forward: read_forward(c, r, out); break;
    case ContractKind::backward_data: read_data(c, r, out); break;
    case ContractKind::backward_weight: read_weight(c, r, out); break;
  }
  return out;
}

Contract read_contract(StrictObject& h, const CorpusReadOptions& options) {
  const json& v = h.required("contract");
  if (v.is_string()) {
    const std::string id = v.get<std::string>();
    if (const Contract* c = find_contract(id)) return *c;
    for (const Contract& c : options.contracts)
      if (c.id == id) return c;
    h.fail("contract", "unknown contract " + in_quotes(id) +
                           ": not a built-in id; embed its ordo.contract/1 document, or give the folder of its file "
                           "(ordo replay --contract-dir DIR)");
  }
  if (!v.is_object())
    h.fail("contract", "must be a built-in contract id or an embedded ordo.contract/1 object, got " + describe_json(v));
  try {
    return contract_from_json(v, h.where().file + ": contract");
  } catch (const ContractFileError& e) {
    throw CorpusError(e.what());  // "FILE: contract: FIELD: what"
  } catch (const std::exception& e) {
    h.fail("contract", e.what());
  }
}

// A value family's name, as the generator writes them (lower case, digits, '_', '^', '-'); whether this
// build knows the family is the generator's question (properties/corpus_failures.h), asked on replay.
std::string family_named(StrictObject& o, const std::string& field) {
  const std::string s = o.string(field);
  if (s.empty() || s.size() > 64 || s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_^-") != std::string::npos)
    o.fail(field, "not a value family's name: " + in_quotes(s));
  return s;
}

// The failure block. `forward` is the entry's forward case when it has one: it holds the minimised case
// materialised, so explicit values are not written twice.
FailureDetails read_failure(StrictObject& f, const Reader& r, const ForwardProblem* forward) {
  FailureDetails d;
  StrictObject c = f.object("case");
  FailureCase& fc = d.minimised_case;
  fc.M = c.integer("M", 1, kMaxDimension);
  fc.N = c.integer("N", 1, kMaxDimension);
  fc.K = c.integer("K", 1, kMaxDimension);
  fc.family = family_named(c, "family");
  fc.has_bias = c.boolean("has_bias");
  fc.seed = hex64(c, "seed");
  fc.bf16_operands = c.boolean("bf16_operands");
  fc.bf16_output = c.boolean("bf16_output");
  const bool explicit_values = one_of(c, "values", {"generated", "explicit"}) == "explicit";
  if (forward != nullptr) {
    if (forward->M != fc.M || forward->N != fc.N || forward->K != fc.K || forward->bias.has_value() != fc.has_bias ||
        forward->bf16_output != fc.bf16_output)
      c.fail("", "does not match the shape, bias or y dtype of the entry's case 0, its materialised form");
    if (explicit_values) fc.explicit_values = *forward;
  } else if (explicit_values) {
    ForwardProblem p;
    p.M = fc.M;
    p.N = fc.N;
    p.K = fc.K;
    // The case's own flag, not the contract's: the values are what the failing property was given.
    const TensorDtype operands = fc.bf16_operands ? TensorDtype::bf16 : TensorDtype::f32;
    p.x = read_float_tensor(c, "x", {{p.M, p.K}, "M*K"}, operands, r.npy_dir);
    p.w = read_float_tensor(c, "w", {{p.N, p.K}, "N*K"}, operands, r.npy_dir);
    if (fc.has_bias) p.bias = read_float_tensor(c, "bias", {{p.N}, "N"}, TensorDtype::f32, r.npy_dir);
    p.bf16_output = fc.bf16_output;
    fc.explicit_values = std::move(p);
  }
  c.no_unknown();
  d.campaign_seed = hex64(f, "campaign_seed");
  d.case_index = f.integer("case_index", -1, std::numeric_limits<std::int64_t>::max());
  if (f.has("observed")) {
    StrictObject o = f.object("observed");
    if (o.has("y")) {
      if (forward == nullptr) o.fail("y", "observed values need the entry's forward case (cases[0])");
      d.observed = read_float_tensor(o, "y", {{forward->M, forward->N}, "M*N"},
                                     forward->bf16_output ? TensorDtype::bf16 : TensorDtype::f32, r.npy_dir, false);
    }
    d.observed_sha256 = read_sha256(o, "sha256");
    o.no_unknown();
    // The observed output is evidence, not something the replay recomputes: values and digest must agree.
    if (d.observed && values_sha256(*d.observed) != d.observed_sha256)
      o.fail("sha256", "is not the SHA-256 of the observed values (" + values_sha256(*d.observed) + ")");
  }
  d.detail = f.string("detail");
  d.reproduce = f.string("reproduce");
  f.no_unknown();
  return d;
}

}  // namespace

std::string_view entry_kind_name(EntryKind k) {
  switch (k) {
    case EntryKind::golden: return "golden";
    case EntryKind::regression: return "regression";
    case EntryKind::failure: return "failure";
  }
  return "?";
}

CorpusEntry parse_corpus_entry_text(std::string_view text, const std::string& where, const std::string& npy_dir,
                                    const CorpusReadOptions& options) {
  const json j = parse_strict_json(text, where);
  StrictObject h(j, Location{where, std::nullopt});
  h.schema(kCorpusSchema);
  CorpusEntry e;
  const std::string kind = one_of(h, "kind", {"golden", "regression", "failure"});
  e.kind = kind == "golden" ? EntryKind::golden : kind == "regression" ? EntryKind::regression : EntryKind::failure;
  const bool failure = e.kind == EntryKind::failure;
  e.why = h.string("why");
  const std::string verdict = one_of(h, "expected_verdict", {"pass", "fail"});
  if ((verdict == "fail") != failure)
    h.fail("expected_verdict", failure ? "must be \"fail\" for a failure entry (it documents a failure)"
                                       : "must be \"pass\" for a " + kind + " entry (the emulator reproduces its bits)");
  e.contract = read_contract(h, options);
  if (failure || e.kind == EntryKind::golden || h.has("subject")) e.subject = h.string("subject");
  if (h.has("gpu")) e.gpu = h.string("gpu");
  if (h.has("commit")) e.commit = h.string("commit");
  if (failure) e.property = h.string("property");
  else if (h.has("property")) h.fail("property", "is only for failure entries");
  const json& cases = h.array("cases");
  const json* failure_json = failure ? &h.required("failure") : nullptr;
  if (!failure && h.has("failure")) h.fail("failure", "is only for failure entries");
  h.no_unknown();
  // A golden or regression entry without cases would replay as a pass while checking nothing.
  if (!failure && cases.empty()) h.fail("cases", "must hold at least one case");
  if (failure && cases.size() > 1) h.fail("cases", "a failure entry holds at most one case (its minimised case)");
  if (failure && !cases.empty() && e.contract.kind != ContractKind::forward)
    h.fail("cases", "a failure of a backward contract records its minimised forward case under failure.case only");
  const Reader reader{e.contract, npy_dir};
  for (std::size_t i = 0; i < cases.size(); ++i) e.cases.push_back(read_case(cases[i], Location{where, i}, reader));
  if (failure) {
    StrictObject f(*failure_json, h.where(), "failure");
    e.failure = read_failure(f, reader, e.cases.empty() ? nullptr : &*e.cases[0].forward);
  }
  return e;
}

CorpusEntry read_corpus_entry(const std::string& path, const CorpusReadOptions& options) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_corpus_entry_text(read_corpus_file(path), path, dir.empty() ? "." : dir, options);
}

CorpusEntry read_corpus_entry(const std::string& path) { return read_corpus_entry(path, {}); }

}  // namespace ordo::protocol
