#include "core/contract.h"

#include <string>

namespace ordo {

std::vector<std::string> Contract::statement() const {
  return {
      "id: " + id,
      "operation: " + operation,
      "operands: " + operand_format,
      "accumulator: " + accumulator_format,
      "start value: " + start_value,
      "K order: " + k_order,
      "output: " + output_rounding,
      "special values: " + special_values,
      "invariances: " + invariances,
  };
}

const Contract& contract_fwd_f32_fma_chain() {
  static const Contract c{
      .id = "fwd.f32.fma-chain/1",
      .operation = "Y[m,n] = sum_k X[m,k]*W[n,k] + b[n]; X [M,K], W [N,K], b [N] optional, Y [M,N], row-major, "
                   "any M, N, K >= 1",
      .operand_format = "IEEE binary32, subnormals kept (no FTZ/DAZ), never converted to TF32",
      .accumulator_format = "IEEE binary32",
      .accumulation = AccumulationModel::fma_chain,
      .bias = BiasPlacement::after_chain_add_rn,
      .start_value = "+0.0",
      .k_order = "one chain per output: for k = 0, 1, ..., K-1: acc = fma_rn(X[m,k], W[n,k], acc) "
                 "(one correctly rounded fused multiply-add per k, round to nearest even)",
      .output_rounding = "with bias: Y = add_rn(acc, b[n]) (one round-to-nearest-even add); without: Y = acc",
      .special_values = "IEEE 754 semantics per operation; every NaN result has the bits 0x7fffffff",
      .invariances = "Y[m,n] depends only on row m of X, row n of W and b[n]: not on M, N, the other rows, "
                     "the grid, the tile or the stream",
  };
  return c;
}

namespace {

Contract bf16_tc_fdpa(int arch, AccumulationModel model, const char* params) {
  return Contract{
      .id = "fwd.bf16.tc-fdpa-sm" + std::to_string(arch) + "/1",
      .operation = "Y[m,n] = sum_k X[m,k]*W[n,k] + b[n]; X [M,K], W [N,K] bfloat16, b [N] FP32 optional, Y [M,N] "
                   "FP32, row-major, any M, N, K >= 1",
      .operand_format = "bfloat16 (subnormals kept)",
      .accumulator_format = "IEEE binary32",
      .accumulation = model,
      .bias = BiasPlacement::after_chain_add_rn,
      .start_value = "+0.0",
      .k_order = std::string("one chain per output over k ascending in instruction steps of 16 (K padded to a "
                             "multiple of 16 with zero products), the running accumulator the C operand of each; "
                             "each instruction is T-FDPA steps of ") + params +
                 ": exact products, terms truncated to F fraction bits below the largest exponent, one truncating "
                 "normalisation (oracle/tc_fdpa_model.h)",
      .output_rounding = "with bias: Y = add_rn(acc, b[n]); without: Y = acc (FP32)",
      .special_values = "T-FDPA rules: NaN, Inf*0 or opposite infinities give 0x7fffffff; an exact zero sum is +0; "
                        "sums >= 2^128 give Inf",
      .invariances = "Y[m,n] depends only on row m of X, row n of W and b[n]",
  };
}

}  // namespace

const Contract& contract_fwd_bf16_tc_fdpa_sm80() {
  static const Contract c = bf16_tc_fdpa(80, AccumulationModel::tc_fdpa_sm80, "L = 8 products (two per instruction), F = 24");
  return c;
}

const Contract& contract_fwd_bf16_tc_fdpa_sm90() {
  static const Contract c = bf16_tc_fdpa(90, AccumulationModel::tc_fdpa_sm90, "L = 16 products (one per instruction), F = 25");
  return c;
}

const std::vector<const Contract*>& all_contracts() {
  static const std::vector<const Contract*> all{&contract_fwd_f32_fma_chain(), &contract_fwd_bf16_tc_fdpa_sm80(),
                                                &contract_fwd_bf16_tc_fdpa_sm90()};
  return all;
}

const Contract* find_contract(std::string_view id) {
  for (const Contract* c : all_contracts())
    if (c->id == id) return c;
  return nullptr;
}

}  // namespace ordo
