#include "core/contract.h"

#include <string>

namespace ordo {

std::vector<std::string> Contract::statement() const {
  std::vector<std::string> lines{"id: " + id, "summary: " + summary};
  for (std::string& l : describe_plan(plan, kind)) lines.push_back(std::move(l));
  if (source != "built-in") lines.push_back("source: " + source);
  return lines;
}

TcFdpaStep tc_step_sm80() { return {.L = 8, .F = 24, .e_zero = -132, .k_width = 16}; }
TcFdpaStep tc_step_sm90() { return {.L = 16, .F = 25, .e_zero = -133, .k_width = 16}; }

namespace {

// The built-in contracts, one data row each. Everything else in this file is lookup.
ReductionPlan fma_plan() { return ReductionPlan{}; }

ReductionPlan tc_plan(int arch) {
  ReductionPlan p;
  p.operand_dtype = DType::bf16;
  p.step = Step{.kind = StepKind::tc_fdpa, .tc = arch == 80 ? tc_step_sm80() : tc_step_sm90()};
  return p;
}

ReductionPlan with(ReductionPlan p, BiasPlacement bias, std::vector<DType> outputs) {
  p.bias = bias;
  p.output_dtypes = std::move(outputs);
  return p;
}

Contract make(std::string id, ContractKind kind, ReductionPlan plan, std::string summary) {
  return Contract{.id = std::move(id), .kind = kind, .plan = std::move(plan), .summary = std::move(summary)};
}

std::string arch_id(int arch) { return "sm" + std::to_string(arch); }

}  // namespace

const Contract& contract_fwd_f32_fma_chain() {
  static const Contract c = make("fwd.f32.fma-chain/1", ContractKind::forward,
                                 with(fma_plan(), BiasPlacement::after_chain_add_rn, {DType::f32}),
                                 "FP32 forward: one ascending FMA chain per output from +0, then the bias with one add");
  return c;
}

static Contract fwd_tc(int arch) {
  return make("fwd.bf16.tc-fdpa-" + arch_id(arch) + "/1", ContractKind::forward,
              with(tc_plan(arch), BiasPlacement::after_chain_add_rn, {DType::f32, DType::bf16}),
              "BF16 forward on " + arch_id(arch) +
                  " tensor cores: one chain of k16 instructions per output, FP32 accumulator, FP32 or BF16 Y");
}
static Contract bwd_dx(ReductionPlan p, std::string id, std::string summary) {
  return make(std::move(id), ContractKind::backward_data, with(std::move(p), BiasPlacement::none, {DType::f32}),
              std::move(summary));
}
static Contract bwd_dw(ReductionPlan p, std::string id, std::string summary) {
  return make(std::move(id), ContractKind::backward_weight, with(std::move(p), BiasPlacement::none, {DType::f32}),
              std::move(summary));
}

const Contract& contract_fwd_bf16_tc_fdpa_sm80() {
  static const Contract c = fwd_tc(80);
  return c;
}
const Contract& contract_fwd_bf16_tc_fdpa_sm90() {
  static const Contract c = fwd_tc(90);
  return c;
}
const Contract& contract_bwd_dx_f32_fma_chain() {
  static const Contract c =
      bwd_dx(fma_plan(), "bwd.dx.f32.fma-chain/1", "FP32 dX = G W: one ascending FMA chain over n per output");
  return c;
}
const Contract& contract_bwd_dw_f32_fma_chain() {
  static const Contract c = bwd_dw(fma_plan(), "bwd.dw.f32.fma-chain/1",
                                   "FP32 dW = G^T X, db: one FMA chain per element over the tokens in logical-key order");
  return c;
}
const Contract& contract_bwd_dx_bf16_tc_fdpa_sm80() {
  static const Contract c = bwd_dx(tc_plan(80), "bwd.dx.bf16.tc-fdpa-sm80/1", "BF16 dX on sm80 tensor cores");
  return c;
}
const Contract& contract_bwd_dx_bf16_tc_fdpa_sm90() {
  static const Contract c = bwd_dx(tc_plan(90), "bwd.dx.bf16.tc-fdpa-sm90/1", "BF16 dX on sm90 tensor cores");
  return c;
}
const Contract& contract_bwd_dw_bf16_tc_fdpa_sm80() {
  static const Contract c = bwd_dw(tc_plan(80), "bwd.dw.bf16.tc-fdpa-sm80/1",
                                   "BF16 dW, db on sm80 tensor cores: tokens in logical-key order, 16 per instruction");
  return c;
}
const Contract& contract_bwd_dw_bf16_tc_fdpa_sm90() {
  static const Contract c = bwd_dw(tc_plan(90), "bwd.dw.bf16.tc-fdpa-sm90/1",
                                   "BF16 dW, db on sm90 tensor cores: tokens in logical-key order, 16 per instruction");
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
