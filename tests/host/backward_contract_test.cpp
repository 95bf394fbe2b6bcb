// The backward contracts as data: registered, findable, of the right kind, and complete.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/contract.h"
#include "core/status.h"

namespace ordo {
namespace {

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

TEST(BackwardContracts, EveryContractIsRegisteredOnceAndFindable) {
  std::set<std::string> ids;
  for (const Contract* c : all_contracts()) {
    EXPECT_TRUE(ids.insert(c->id).second) << "duplicate id " << c->id;
    EXPECT_EQ(find_contract(c->id), c);
  }
  EXPECT_EQ(all_contracts().size(), forward_contracts().size() + backward_contracts().size());
  for (const Contract* c : forward_contracts()) EXPECT_EQ(c->kind, ContractKind::forward) << c->id;
  for (const char* id : {"bwd.dx.f32.fma-chain/1", "bwd.dw.f32.fma-chain/1", "bwd.dx.bf16.tc-fdpa-sm80/1",
                         "bwd.dx.bf16.tc-fdpa-sm90/1", "bwd.dw.bf16.tc-fdpa-sm80/1", "bwd.dw.bf16.tc-fdpa-sm90/1"}) {
    const Contract* c = find_contract(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_NE(c->kind, ContractKind::forward) << id;
  }
}

TEST(BackwardContracts, WeightContractsStateTheirRowOrder) {
  for (const Contract* c : backward_contracts()) {
    const std::vector<std::string> lines = c->statement();
    if (c->kind == ContractKind::backward_weight) {
      EXPECT_EQ(c->bias, BiasPlacement::gradient_add_rn_chain) << c->id;
      EXPECT_TRUE(mentions(lines, "row order: with logical keys")) << c->id;
      EXPECT_TRUE(mentions(lines, "ascending key order")) << c->id;
      EXPECT_TRUE(mentions(lines, "call order")) << c->id;
    } else {
      EXPECT_EQ(c->kind, ContractKind::backward_data) << c->id;
      EXPECT_EQ(c->bias, BiasPlacement::none) << c->id;
      EXPECT_FALSE(mentions(lines, "row order:")) << c->id;
    }
    EXPECT_TRUE(mentions(lines, "0x7fffffff")) << c->id;
  }
  EXPECT_EQ(contract_bwd_dw_bf16_tc_fdpa_sm80().accumulation, AccumulationModel::tc_fdpa_sm80);
  EXPECT_EQ(contract_bwd_dx_bf16_tc_fdpa_sm90().accumulation, AccumulationModel::tc_fdpa_sm90);
  EXPECT_EQ(contract_bwd_dw_f32_fma_chain().accumulation, AccumulationModel::fma_chain);
}

TEST(BackwardContracts, Bf16ForwardOutputRoundingCoversABf16Y) {
  for (const Contract* c : {&contract_fwd_bf16_tc_fdpa_sm80(), &contract_fwd_bf16_tc_fdpa_sm90()})
    EXPECT_NE(c->output_rounding.find("when Y is BF16, one round-to-nearest-even cast of the FP32 result (after the "
                                      "bias add) at the store"),
              std::string::npos)
        << c->id;
}

TEST(BackwardContracts, KeyStatusCodesHaveNames) {
  EXPECT_EQ(status_code_name(StatusCode::bad_keys), "bad_keys");
  EXPECT_EQ(status_code_name(StatusCode::duplicate_key), "duplicate_key");
  EXPECT_EQ(status_code_name(StatusCode::padding_gradient_nonzero), "padding_gradient_nonzero");
  EXPECT_EQ(status_code_name(StatusCode::unexpected_key), "unexpected_key");
  EXPECT_EQ(status_code_name(StatusCode::key_out_of_order), "key_out_of_order");
  EXPECT_EQ(status_code_name(StatusCode::missing_keys), "missing_keys");
}

}  // namespace
}  // namespace ordo
