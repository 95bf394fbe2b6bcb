#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ordo {

// A contract states the arithmetic of a kernel completely, as data: two implementations of the same
// contract (a CUDA kernel and the host emulator) must produce the same bits for every input.
// Tile parameters that cannot change bits (block sizes, warps, stages) are not part of a contract.
enum class AccumulationModel {
  fma_chain,     // acc = +0; for each term in the contract's order: acc = fma_rn(a, b, acc)
  tc_fdpa_sm80,  // BF16 tensor-core chain, T-FDPA with L = 8, F = 24 (oracle/tc_fdpa_model.h)
  tc_fdpa_sm90,  // BF16 tensor-core chain, T-FDPA with L = 16, F = 25
};

enum class BiasPlacement {
  after_chain_add_rn,     // y = add_rn(acc, b[n]) after the whole chain; no bias: y = acc
  none,                   // the operation has no bias (dX)
  gradient_add_rn_chain,  // db[n] = add_rn chain from +0 over the tokens of G[t,n], in the row order of dW
};

// What a contract computes: the forward product, or one of the two backward products.
enum class ContractKind {
  forward,          // Y = X * W^T + b, reduced over k
  backward_data,    // dX = G * W, reduced over the output features n
  backward_weight,  // dW = G^T * X and db = sum_t G, reduced over the tokens t in a stated row order
};

struct Contract {
  std::string id;  // versioned, e.g. "fwd.f32.fma-chain/1"
  ContractKind kind;
  std::string operation;
  std::string operand_format;
  std::string accumulator_format;
  AccumulationModel accumulation;
  BiasPlacement bias;
  std::string start_value;
  std::string k_order;    // the order of one output's reduction (over k, n or the tokens)
  std::string row_order;  // backward_weight only: which token rows are reduced, in which order
  std::string output_rounding;
  std::string special_values;
  std::string invariances;
  std::vector<std::string> statement() const;  // the whole contract as readable lines
};

const Contract& contract_fwd_f32_fma_chain();
const Contract& contract_fwd_bf16_tc_fdpa_sm80();
const Contract& contract_fwd_bf16_tc_fdpa_sm90();
const Contract& contract_bwd_dx_f32_fma_chain();
const Contract& contract_bwd_dw_f32_fma_chain();
const Contract& contract_bwd_dx_bf16_tc_fdpa_sm80();
const Contract& contract_bwd_dx_bf16_tc_fdpa_sm90();
const Contract& contract_bwd_dw_bf16_tc_fdpa_sm80();
const Contract& contract_bwd_dw_bf16_tc_fdpa_sm90();

const std::vector<const Contract*>& forward_contracts();
const std::vector<const Contract*>& backward_contracts();
const std::vector<const Contract*>& all_contracts();  // forward, then backward
const Contract* find_contract(std::string_view id);

}  // namespace ordo
