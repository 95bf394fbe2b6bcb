#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/reduction_plan.h"

namespace ordo {

// A contract states the arithmetic of a kernel completely, as data (its ReductionPlan): two
// implementations of the same contract (a CUDA kernel and the host emulator) must produce the same bits
// for every input. Tile parameters that cannot change bits (block sizes, warps, stages) are not part of
// a contract; those that do (the instruction's k width, segments, K padding) are.
//
// Built-in contracts are data rows (contract.cpp); users state their own in a JSON file
// (core/contract_file.h, docs/contract-format.md). Nothing dispatches on the id: it names the plan.
struct Contract {
  std::string id;  // versioned, e.g. "fwd.f32.fma-chain/1"
  ContractKind kind = ContractKind::forward;
  ReductionPlan plan;
  std::string summary;  // one line for people
  std::string source = "built-in";  // or the file it was read from

  std::vector<std::string> statement() const;  // the id, the summary and describe_plan()
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

// The tensor-core step parameters measured for an architecture (numerics: sm_80 L = 8, F = 24,
// e_zero = -132; sm_90 L = 16, F = 25, e_zero = -133; both k16 instructions).
TcFdpaStep tc_step_sm80();
TcFdpaStep tc_step_sm90();

}  // namespace ordo
