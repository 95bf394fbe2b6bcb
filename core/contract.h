#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace ordo {

// A contract states the arithmetic of a kernel completely, as data: two implementations of the same
// contract (a CUDA kernel and the host emulator) must produce the same bits for every input.
// Tile parameters that cannot change bits (block sizes, warps, stages) are not part of a contract.
enum class AccumulationModel {
  fma_chain,     // acc = +0; for k ascending: acc = fma_rn(x[k], w[k], acc)
  tc_fdpa_sm80,  // BF16 tensor-core chain, T-FDPA with L = 8, F = 24 (oracle/tc_fdpa_model.h)
  tc_fdpa_sm90,  // BF16 tensor-core chain, T-FDPA with L = 16, F = 25
};

enum class BiasPlacement {
  after_chain_add_rn,  // y = add_rn(acc, b[n]) after the whole chain; no bias: y = acc
};

struct Contract {
  std::string id;  // versioned, e.g. "fwd.f32.fma-chain/1"
  std::string operation;
  std::string operand_format;
  std::string accumulator_format;
  AccumulationModel accumulation;
  BiasPlacement bias;
  std::string start_value;
  std::string k_order;
  std::string output_rounding;
  std::string special_values;
  std::string invariances;
  std::vector<std::string> statement() const;  // the whole contract as readable lines
};

const Contract& contract_fwd_f32_fma_chain();
const Contract& contract_fwd_bf16_tc_fdpa_sm80();
const Contract& contract_fwd_bf16_tc_fdpa_sm90();
const std::vector<const Contract*>& all_contracts();
const Contract* find_contract(std::string_view id);

}  // namespace ordo
