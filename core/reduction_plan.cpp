#include "core/reduction_plan.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace ordo {

std::int64_t ReductionPlan::padding_multiple() const {
  return std::lcm<std::int64_t>(std::max<std::int64_t>(1, k_padding_multiple), step.width());
}

std::int64_t ReductionPlan::padded_terms(std::int64_t K) const {
  const std::int64_t m = padding_multiple();
  return K <= 0 ? 0 : (K + m - 1) / m * m;
}

bool ReductionPlan::allows_output(DType t) const {
  return std::find(output_dtypes.begin(), output_dtypes.end(), t) != output_dtypes.end();
}

std::string plan_problem(const ReductionPlan& p, ContractKind kind) {
  if (p.operand_dtype != DType::f32 && p.operand_dtype != DType::bf16) return "operands: must be f32 or bf16";
  if (p.step.kind == StepKind::tc_fdpa) {
    const TcFdpaStep& t = p.step.tc;
    // The model's integer sum is exact and its bound derived only in this range (oracle/tc_fdpa_model.h).
    if (t.L < 1 || t.L > 64) return "step.L: must be in [1, 64], got " + std::to_string(t.L);
    if (t.F < 23 || t.F > 40) return "step.F: must be in [23, 40], got " + std::to_string(t.F);
    if (t.e_zero > -126) return "step.e_zero: must be <= -126, got " + std::to_string(t.e_zero);
    if (t.k_width < t.L || t.k_width % t.L != 0)
      return "step.k_width: must be a positive multiple of L = " + std::to_string(t.L) + ", got " +
             std::to_string(t.k_width);
    if (t.k_width > 256) return "step.k_width: at most 256, got " + std::to_string(t.k_width);
    if (p.operand_dtype != DType::bf16) return "operands: the tc_fdpa step models bf16 operands only";
  }
  if (p.k_padding_multiple < 1 || p.k_padding_multiple > (1 << 20))
    return "k_padding.multiple: must be in [1, 2^20], got " + std::to_string(p.k_padding_multiple);
  if (p.structure == KStructure::segments) {
    if (p.segment_length < 1 || p.segment_length > (std::int64_t{1} << 30))
      return "k_structure.length: must be in [1, 2^30], got " + std::to_string(p.segment_length);
    if (p.segment_length % p.step.width() != 0)
      return "k_structure.length: must be a multiple of the step's instruction width " +
             std::to_string(p.step.width()) + ", got " + std::to_string(p.segment_length);
  } else if (p.segment_length != 0) {
    return "k_structure.length: only a segments structure has a length";
  }
  if (p.output_dtypes.empty()) return "output: at least one output dtype";
  for (DType t : p.output_dtypes)
    if (t != DType::f32 && t != DType::bf16) return "output: each output dtype must be f32 or bf16";
  if (p.nan_bits && ((*p.nan_bits & 0x7F800000u) != 0x7F800000u || (*p.nan_bits & 0x7FFFFFu) == 0))
    return "nan: the NaN bits must be a binary32 NaN";
  if (kind == ContractKind::forward) {
    if (p.bias == BiasPlacement::none) return "bias: a forward contract places its bias (after_chain_add_rn or initial_accumulator)";
  } else {
    if (p.bias != BiasPlacement::none) return "bias: only a forward contract has a bias; use \"none\"";
    if (p.output_dtypes != std::vector<DType>{DType::f32}) return "output: backward outputs are f32 only";
  }
  if (kind != ContractKind::backward_weight &&
      (p.row_order != RowOrder::ascending_logical_key || p.bias_gradient != BiasGradient::add_rn_chain))
    return "row_order, bias_gradient: only a backward_weight contract has them";
  return "";
}

std::string_view step_kind_name(StepKind k) { return k == StepKind::fma_rn ? "fma_rn" : "tc_fdpa"; }
std::string_view structure_name(KStructure s) { return s == KStructure::chain ? "chain" : "segments"; }
std::string_view combine_name(SegmentCombine c) {
  return c == SegmentCombine::ascending_add_rn ? "ascending_add_rn" : "pairwise_tree";
}
std::string_view bias_placement_name(BiasPlacement b) {
  switch (b) {
    case BiasPlacement::after_chain_add_rn: return "after_chain_add_rn";
    case BiasPlacement::initial_accumulator: return "initial_accumulator";
    case BiasPlacement::none: return "none";
  }
  return "?";
}
std::string_view row_order_name(RowOrder r) {
  return r == RowOrder::call_order ? "call_order" : "ascending_logical_key";
}
std::string_view bias_gradient_name(BiasGradient b) { return b == BiasGradient::none ? "none" : "add_rn_chain"; }
std::string_view contract_kind_name(ContractKind k) {
  switch (k) {
    case ContractKind::forward: return "forward";
    case ContractKind::backward_data: return "backward_data";
    case ContractKind::backward_weight: return "backward_weight";
  }
  return "?";
}

namespace {

std::string reduced_index(ContractKind kind) {
  switch (kind) {
    case ContractKind::forward: return "k";
    case ContractKind::backward_data: return "n";
    case ContractKind::backward_weight: return "t";
  }
  return "k";
}

std::string step_text(const Step& s, const std::string& i) {
  if (s.kind == StepKind::fma_rn) return "acc = fma_rn(a[" + i + "], b[" + i + "], acc) for each " + i + " ascending";
  const TcFdpaStep& t = s.tc;
  const int steps = t.k_width / t.L;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "instructions of %d terms over %s ascending, each %d T-FDPA step%s of L = %d products and the "
                "accumulator as C (exact products, terms truncated to F = %d fraction bits below the largest "
                "exponent, zero terms at exponent %d, one truncating normalisation)",
                t.k_width, i.c_str(), steps, steps == 1 ? "" : "s", t.L, t.F, t.e_zero);
  return buf;
}

}  // namespace

std::vector<std::string> describe_plan(const ReductionPlan& p, ContractKind kind) {
  const std::string i = reduced_index(kind);
  std::vector<std::string> lines;
  lines.push_back("operation: " + std::string(contract_kind_name(kind)) +
                  (kind == ContractKind::forward        ? " Y[m,n] = sum_k X[m,k] W[n,k] + b[n]"
                   : kind == ContractKind::backward_data ? " dX[m,k] = sum_n G[m,n] W[n,k]"
                                                         : " dW[n,k] = sum_t G[t,n] X[t,k], db[n] = sum_t G[t,n]"));
  lines.push_back("operands: " + std::string(dtype_name(p.operand_dtype)) +
                  (p.operand_dtype == DType::f32 ? " (IEEE binary32, subnormals kept, never TF32)" : " (subnormals kept)") +
                  "; accumulator: f32");
  lines.push_back("step: " + step_text(p.step, i));
  if (p.structure == KStructure::chain) {
    lines.push_back("structure: one chain per output over every term");
  } else {
    lines.push_back("structure: fixed segments of " + std::to_string(p.segment_length) + " terms, each its own chain, then " +
                    (p.combine == SegmentCombine::ascending_add_rn
                         ? std::string("the partials added in ascending order with add_rn (p0 + p1 + ...)")
                         : std::string("the partials added as a fixed pairwise tree (adjacent pairs level by level, an "
                                       "odd last partial moves up unchanged)")));
  }
  const std::int64_t pad = p.padding_multiple();
  lines.push_back(pad == 1 ? "padding: none"
                           : "padding: the terms are followed by zero products (+0 * +0) up to a multiple of " +
                                 std::to_string(pad));
  lines.push_back(std::string("start value: ") + (p.start_negative_zero ? "-0" : "+0") +
                  (p.bias == BiasPlacement::initial_accumulator ? " (the first chain starts at b[n])" : ""));
  if (kind == ContractKind::forward)
    lines.push_back(p.bias == BiasPlacement::after_chain_add_rn
                        ? "bias: y = add_rn(acc, b[n]) after the reduction (no bias: y = acc)"
                        : "bias: the initial accumulator of the first chain");
  if (kind == ContractKind::backward_weight) {
    lines.push_back(p.row_order == RowOrder::ascending_logical_key
                        ? "row order: with logical keys (int64 [T,2|3]), the active rows (first key column >= 0) in "
                          "ascending lexicographic key order, padding rows dropped (their G must be +-0), active keys "
                          "unique; without keys every row in call order"
                        : "row order: every row in call order (no logical keys)");
    lines.push_back(p.bias_gradient == BiasGradient::add_rn_chain
                        ? "db: acc = +0; acc = add_rn(acc, G[t,n]) over the same tokens in the same order"
                        : "db: none");
  }
  std::string out = "output: ";
  for (std::size_t j = 0; j < p.output_dtypes.size(); ++j) {
    out += j ? ", or " : "";
    out += p.output_dtypes[j] == DType::f32 ? "f32" : "bf16 (one round-to-nearest-even cast of the f32 result)";
  }
  lines.push_back(out);
  char nan[80];
  if (p.nan_bits) std::snprintf(nan, sizeof nan, "every NaN result has the bits 0x%08x", *p.nan_bits);
  else std::snprintf(nan, sizeof nan, "any NaN result is accepted (NaN bits not part of the contract)");
  lines.push_back(std::string("special values: ") + nan +
                  (p.step.kind == StepKind::tc_fdpa
                       ? "; T-FDPA: NaN, Inf*0 or opposite infinities give NaN, sums >= 2^128 give Inf, an exact zero sum is +0"
                       : "; IEEE 754 semantics per operation"));
  return lines;
}

}  // namespace ordo
