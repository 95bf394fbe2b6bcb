#include "protocol/regression_corpus.h"

#include <limits>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/contract.h"
#include "protocol/strict_json.h"

namespace ordo::protocol {
namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// The problem every case selects rows of: the file's header fields.
BackwardWeightProblem read_base(StrictObject& h, const Contract& contract) {
  BackwardWeightProblem p;
  p.T = h.integer("T", 1, kMaxDimension);
  p.N = h.integer("N", 1, kMaxDimension);
  p.K = h.integer("K", 1, kMaxDimension);
  h.count("x", "T*K", p.T, p.K);
  h.count("g", "T*N", p.T, p.N);
  p.x = h.hex_matrix("x", p.T, p.K);
  p.g = h.hex_matrix("g", p.T, p.N);
  p.bf16_operands = contract.plan.operand_dtype == DType::bf16;
  if (h.has("keys")) {
    StrictObject k = h.object("keys");
    LogicalKeys keys;
    keys.width = k.integer("width", 2, 3);
    keys.values = k.integer_matrix("rows", p.T, keys.width, kInt64Min, kInt64Max);
    k.no_unknown();
    p.keys = std::move(keys);
  }
  p.with_bias_grad = h.boolean("with_bias_grad");
  if (const Status s = validate(p); !s.ok()) h.fail("", "the problem is invalid: " + s.to_string());
  return p;
}

RegressionCase read_case(const nlohmann::json& jc, const Location& where, const BackwardWeightProblem& base) {
  StrictObject c(jc, where);
  RegressionCase r;
  // Distinct rows in [0, T): select_rows indexes the base problem with them unchecked.
  const nlohmann::json& rows = c.array("rows");
  if (rows.size() > static_cast<std::uint64_t>(base.T))
    c.fail("rows", "must hold at most T = " + std::to_string(base.T) + " row indices, found " + std::to_string(rows.size()));
  std::vector<std::int64_t> selected = c.integers("rows", static_cast<std::int64_t>(rows.size()), 0, base.T - 1);
  std::vector<bool> seen(static_cast<std::size_t>(base.T), false);
  for (std::size_t i = 0; i < selected.size(); ++i) {
    if (seen[static_cast<std::size_t>(selected[i])])
      c.fail("rows[" + std::to_string(i) + "]", "row " + std::to_string(selected[i]) + " is selected twice");
    seen[static_cast<std::size_t>(selected[i])] = true;
  }
  const bool use_keys = c.boolean("use_keys");
  if (use_keys && !base.keys) c.fail("use_keys", "is true, but the file has no keys");
  r.order = c.string("order");
  r.problem = select_rows(base, selected);
  if (!use_keys) r.problem.keys.reset();
  r.expected.dw = c.hex_matrix("dw", base.N, base.K);
  if (base.with_bias_grad) r.expected.db = c.hex_values("db", base.N, "N");
  else if (c.has("db")) c.fail("db", "given, but with_bias_grad is false");
  c.no_unknown();
  if (const Status s = validate(r.problem); !s.ok()) c.fail("", "the problem is invalid: " + s.to_string());
  return r;
}

}  // namespace

RegressionFile parse_regression_text(std::string_view text, const std::string& where) {
  const nlohmann::json j = parse_strict_json(text, where);
  StrictObject h(j, Location{where, std::nullopt});
  h.schema(kRegressionSchema);
  RegressionFile f;
  f.name = h.string("name");
  f.contract = h.string("contract");
  const Contract* contract = find_contract(f.contract);
  if (contract == nullptr) h.fail("contract", "unknown contract " + in_quotes(f.contract) + " (a built-in id is needed)");
  if (contract->kind != ContractKind::backward_weight)
    h.fail("contract", in_quotes(f.contract) + " is not a backward_weight contract (regression cases are dW/db)");
  f.description = h.string("description");
  h.string("values");  // the encoding, in words, for people reading the file
  const BackwardWeightProblem base = read_base(h, *contract);
  const nlohmann::json& cases = h.array("cases");
  h.no_unknown();
  if (cases.empty()) h.fail("cases", "must hold at least one case");
  for (std::size_t i = 0; i < cases.size(); ++i) f.cases.push_back(read_case(cases[i], Location{where, i}, base));
  return f;
}

RegressionFile read_regression_file(const std::string& path) {
  return parse_regression_text(read_corpus_file(path), path);
}

}  // namespace ordo::protocol
