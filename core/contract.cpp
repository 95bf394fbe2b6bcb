#include "core/contract.h"

#include <string>

namespace ordo {

std::vector<std::string> Contract::statement() const {
  std::vector<std::string> lines{
      "id: " + id,
      "operation: " + operation,
      "operands: " + operand_format,
      "accumulator: " + accumulator_format,
      "start value: " + start_value,
      "reduction order: " + k_order,
  };
  if (!row_order.empty()) lines.push_back("row order: " + row_order);
  lines.push_back("output: " + output_rounding);
  lines.push_back("special values: " + special_values);
  lines.push_back("invariances: " + invariances);
  return lines;
}

namespace {

const char* const kF32Operands = "IEEE binary32, subnormals kept (no FTZ/DAZ), never converted to TF32";
const char* const kF32SpecialValues = "IEEE 754 semantics per operation; every NaN result has the bits 0x7fffffff";
const char* const kTcSpecialValues =
    "T-FDPA rules: NaN, Inf*0 or opposite infinities give 0x7fffffff; an exact zero sum is +0; sums >= 2^128 give Inf";
const char* const kTcInstruction =
    ": exact products, terms truncated to F fraction bits below the largest exponent, one truncating normalisation "
    "(oracle/tc_fdpa_model.h)";
const char* const kTcParamsSm80 = "L = 8 products (two per instruction), F = 24";
const char* const kTcParamsSm90 = "L = 16 products (one per instruction), F = 25";

// The token rows of dW and db, and their order: the fix for a reduction in call order, which makes dW
// change when the rows of X and G are permuted together (the 2^-24 next to 1 and -1 of the seed's review).
const char* const kTokenRowOrder =
    "with logical keys (int64 [T,2] or [T,3], row-major; anything else: bad_keys): the active rows (first key "
    "column >= 0) in ascending key order, lexicographic over the key columns as signed integers; active keys "
    "unique (else duplicate_key); padding rows (first key column < 0) are dropped, their X never read, and each "
    "of their G elements must be +0 or -0 (else padding_gradient_nonzero). Without keys: every row, in call "
    "order t = 0..T-1";
const char* const kTokenInvariances =
    "with keys, dW and db do not change under any joint permutation of the rows of X, G and the keys, under "
    "padding rows inserted anywhere, or under any split of the tokens into microbatches accumulated in canonical "
    "order; dW[n,k] depends only on column n of G and column k of X, so an output shard of N (rows of dW, "
    "entries of db) equals that slice of the whole";
const char* const kDataInvariances =
    "dX[m,k] depends only on row m of G and column k of W: not on M, the other rows of G, the grid, the tile or "
    "the stream. A fused projection (W = [Wq; Wk; Wv]) is one chain over all of its N outputs, which in general "
    "differs from the sum of the separate projections' dX";

std::string tc_params(int arch) { return arch == 80 ? kTcParamsSm80 : kTcParamsSm90; }
AccumulationModel tc_model(int arch) {
  return arch == 80 ? AccumulationModel::tc_fdpa_sm80 : AccumulationModel::tc_fdpa_sm90;
}

Contract bf16_tc_fdpa(int arch) {
  return Contract{
      .id = "fwd.bf16.tc-fdpa-sm" + std::to_string(arch) + "/1",
      .kind = ContractKind::forward,
      .operation =
          "Y[m,n] = sum_k X[m,k]*W[n,k] + b[n]; X [M,K], W [N,K] bfloat16, b [N] FP32 optional, Y [M,N] "
          "FP32, row-major, any M, N, K >= 1",
      .operand_format = "bfloat16 (subnormals kept)",
      .accumulator_format = "IEEE binary32",
      .accumulation = tc_model(arch),
      .bias = BiasPlacement::after_chain_add_rn,
      .start_value = "+0.0",
      .k_order =
          "one chain per output over k ascending in instruction steps of 16 (K padded to a multiple of 16 "
          "with zero products), the running accumulator the C operand of each; each instruction is T-FDPA "
          "steps of " +
          tc_params(arch) + kTcInstruction,
      .row_order = "",
      .output_rounding =
          "with bias: Y = add_rn(acc, b[n]); without: Y = acc. FP32 output, or, when Y is BF16, one "
          "round-to-nearest-even cast of the FP32 result (after the bias add) at the store",
      .special_values = kTcSpecialValues,
      .invariances = "Y[m,n] depends only on row m of X, row n of W and b[n]",
  };
}

Contract bwd_dx_bf16(int arch) {
  return Contract{
      .id = "bwd.dx.bf16.tc-fdpa-sm" + std::to_string(arch) + "/1",
      .kind = ContractKind::backward_data,
      .operation =
          "dX[m,k] = sum_n G[m,n]*W[n,k]; G [M,N], W [N,K] bfloat16, dX [M,K] FP32, row-major, any M, N, "
          "K >= 1",
      .operand_format = "bfloat16 (subnormals kept)",
      .accumulator_format = "IEEE binary32",
      .accumulation = tc_model(arch),
      .bias = BiasPlacement::none,
      .start_value = "+0.0",
      .k_order =
          "one chain per output over n ascending in instruction steps of 16 (N padded to a multiple of 16 "
          "with zero products), the running accumulator the C operand of each; each instruction is T-FDPA "
          "steps of " +
          tc_params(arch) + kTcInstruction,
      .row_order = "",
      .output_rounding = "dX = acc (FP32)",
      .special_values = kTcSpecialValues,
      .invariances = kDataInvariances,
  };
}

Contract bwd_dw_bf16(int arch) {
  return Contract{
      .id = "bwd.dw.bf16.tc-fdpa-sm" + std::to_string(arch) + "/1",
      .kind = ContractKind::backward_weight,
      .operation =
          "dW[n,k] = sum_t G[t,n]*X[t,k] and, optionally, db[n] = sum_t G[t,n], over the active tokens t; "
          "X [T,K], G [T,N] bfloat16, optional logical keys [T,2|3] int64, dW [N,K] and db [N] FP32, "
          "row-major, any T >= 0, N, K >= 1",
      .operand_format = "bfloat16 (subnormals kept)",
      .accumulator_format = "IEEE binary32",
      .accumulation = tc_model(arch),
      .bias = BiasPlacement::gradient_add_rn_chain,
      .start_value = "+0.0 for dW and db (no active token: +0)",
      .k_order =
          "the active tokens, in row order, taken in consecutive groups of 16 (the last group padded with "
          "zero products); one chain per dW element over the groups, the running accumulator the C operand "
          "of each instruction; each instruction is T-FDPA steps of " +
          tc_params(arch) + kTcInstruction +
          ". db[n]: acc = add_rn(acc, G[t,n]) (bfloat16 converted exactly to FP32) over the same tokens in "
          "the same order. The groups follow the canonical order of all active tokens, never the padding, "
          "the call order or a microbatch split",
      .row_order = kTokenRowOrder,
      .output_rounding = "dW = acc, db = acc (FP32)",
      .special_values = std::string("dW: ") + kTcSpecialValues + ". db: " + kF32SpecialValues,
      .invariances = kTokenInvariances,
  };
}

}  // namespace

const Contract& contract_fwd_f32_fma_chain() {
  static const Contract c{
      .id = "fwd.f32.fma-chain/1",
      .kind = ContractKind::forward,
      .operation =
          "Y[m,n] = sum_k X[m,k]*W[n,k] + b[n]; X [M,K], W [N,K], b [N] optional, Y [M,N], row-major, "
          "any M, N, K >= 1",
      .operand_format = kF32Operands,
      .accumulator_format = "IEEE binary32",
      .accumulation = AccumulationModel::fma_chain,
      .bias = BiasPlacement::after_chain_add_rn,
      .start_value = "+0.0",
      .k_order =
          "one chain per output: for k = 0, 1, ..., K-1: acc = fma_rn(X[m,k], W[n,k], acc) "
          "(one correctly rounded fused multiply-add per k, round to nearest even)",
      .row_order = "",
      .output_rounding = "with bias: Y = add_rn(acc, b[n]) (one round-to-nearest-even add); without: Y = acc",
      .special_values = kF32SpecialValues,
      .invariances =
          "Y[m,n] depends only on row m of X, row n of W and b[n]: not on M, N, the other rows, "
          "the grid, the tile or the stream",
  };
  return c;
}

const Contract& contract_fwd_bf16_tc_fdpa_sm80() {
  static const Contract c = bf16_tc_fdpa(80);
  return c;
}

const Contract& contract_fwd_bf16_tc_fdpa_sm90() {
  static const Contract c = bf16_tc_fdpa(90);
  return c;
}

const Contract& contract_bwd_dx_f32_fma_chain() {
  static const Contract c{
      .id = "bwd.dx.f32.fma-chain/1",
      .kind = ContractKind::backward_data,
      .operation =
          "dX[m,k] = sum_n G[m,n]*W[n,k]; G [M,N] (the gradient of Y), W [N,K], dX [M,K], row-major, "
          "any M, N, K >= 1",
      .operand_format = kF32Operands,
      .accumulator_format = "IEEE binary32",
      .accumulation = AccumulationModel::fma_chain,
      .bias = BiasPlacement::none,
      .start_value = "+0.0",
      .k_order =
          "one chain per output: for n = 0, 1, ..., N-1: acc = fma_rn(G[m,n], W[n,k], acc) "
          "(one correctly rounded fused multiply-add per n, round to nearest even)",
      .row_order = "",
      .output_rounding = "dX = acc (FP32)",
      .special_values = kF32SpecialValues,
      .invariances = kDataInvariances,
  };
  return c;
}

const Contract& contract_bwd_dw_f32_fma_chain() {
  static const Contract c{
      .id = "bwd.dw.f32.fma-chain/1",
      .kind = ContractKind::backward_weight,
      .operation =
          "dW[n,k] = sum_t G[t,n]*X[t,k] and, optionally, db[n] = sum_t G[t,n], over the active tokens t; "
          "X [T,K], G [T,N], optional logical keys [T,2|3] int64, dW [N,K], db [N], row-major, any T >= 0, "
          "N, K >= 1",
      .operand_format = kF32Operands,
      .accumulator_format = "IEEE binary32",
      .accumulation = AccumulationModel::fma_chain,
      .bias = BiasPlacement::gradient_add_rn_chain,
      .start_value = "+0.0 for dW and db (no active token: +0)",
      .k_order =
          "one chain per dW element over the active tokens in row order: acc = fma_rn(G[t,n], X[t,k], acc) "
          "(one correctly rounded fused multiply-add per token); db[n]: acc = add_rn(acc, G[t,n]) over the "
          "same tokens in the same order",
      .row_order = kTokenRowOrder,
      .output_rounding = "dW = acc, db = acc (FP32)",
      .special_values = kF32SpecialValues,
      .invariances = kTokenInvariances,
  };
  return c;
}

const Contract& contract_bwd_dx_bf16_tc_fdpa_sm80() {
  static const Contract c = bwd_dx_bf16(80);
  return c;
}

const Contract& contract_bwd_dx_bf16_tc_fdpa_sm90() {
  static const Contract c = bwd_dx_bf16(90);
  return c;
}

const Contract& contract_bwd_dw_bf16_tc_fdpa_sm80() {
  static const Contract c = bwd_dw_bf16(80);
  return c;
}

const Contract& contract_bwd_dw_bf16_tc_fdpa_sm90() {
  static const Contract c = bwd_dw_bf16(90);
  return c;
}

const std::vector<const Contract*>& forward_contracts() {
  static const std::vector<const Contract*> all{&contract_fwd_f32_fma_chain(), &contract_fwd_bf16_tc_fdpa_sm80(),
                                                &contract_fwd_bf16_tc_fdpa_sm90()};
  return all;
}

const std::vector<const Contract*>& backward_contracts() {
  static const std::vector<const Contract*> all{
      &contract_bwd_dx_f32_fma_chain(),     &contract_bwd_dw_f32_fma_chain(),     &contract_bwd_dx_bf16_tc_fdpa_sm80(),
      &contract_bwd_dx_bf16_tc_fdpa_sm90(), &contract_bwd_dw_bf16_tc_fdpa_sm80(), &contract_bwd_dw_bf16_tc_fdpa_sm90()};
  return all;
}

const std::vector<const Contract*>& all_contracts() {
  static const std::vector<const Contract*> all = [] {
    std::vector<const Contract*> v = forward_contracts();
    v.insert(v.end(), backward_contracts().begin(), backward_contracts().end());
    return v;
  }();
  return all;
}

const Contract* find_contract(std::string_view id) {
  for (const Contract* c : all_contracts())
    if (c->id == id) return c;
  return nullptr;
}

}  // namespace ordo
