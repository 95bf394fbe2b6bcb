// Contracts as data: the built-in rows, the contract file format (every defect gets its own located error),
// and the round trip between them.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/contract.h"
#include "core/contract_file.h"
#include "test_support.h"

namespace ordo {
namespace {

std::string error_of(const std::string& text) {
  try {
    contract_from_text(text, "user.json");
  } catch (const ContractFileError& e) {
    return e.what();
  }
  return "";
}

// A valid forward contract with one field replaced (or removed, with value "").
std::string with_field(const std::string& field, const std::string& value) {
  std::string fields[][2] = {{"schema", "\"ordo.contract/1\""},
                             {"id", "\"user.test/1\""},
                             {"operation", "\"forward\""},
                             {"operands", "\"f32\""},
                             {"step", "{\"kind\": \"fma_rn\"}"},
                             {"k_structure", "{\"kind\": \"chain\"}"},
                             {"bias", "\"after_chain_add_rn\""},
                             {"output", "[\"f32\"]"}};
  std::string text = "{";
  bool replaced = false;
  for (auto& [name, v] : fields) {
    std::string val = v;
    if (name == field) {
      replaced = true;
      if (value.empty()) continue;
      val = value;
    }
    text += text.size() > 1 ? ", " : "";
    text.append("\"").append(name).append("\": ").append(val);
  }
  if (!replaced) text += ", \"" + field + "\": " + value;
  return text + "}";
}

TEST(Contracts, EveryBuiltInIsRegisteredOnceFindableAndWellFormed) {
  std::set<std::string> ids;
  for (const Contract* c : all_contracts()) {
    EXPECT_TRUE(ids.insert(c->id).second) << "duplicate id " << c->id;
    EXPECT_EQ(find_contract(c->id), c);
    EXPECT_EQ(plan_problem(c->plan, c->kind), "") << c->id;
  }
  EXPECT_EQ(all_contracts().size(), forward_contracts().size() + backward_contracts().size());
  for (const Contract* c : forward_contracts()) EXPECT_EQ(c->kind, ContractKind::forward) << c->id;
}

// The measured tensor-core parameters are data in the rows (docs/numerics.md §2: sm_80 L=8 F=24 e_zero=-132,
// sm_90 L=16 F=25 e_zero=-133; k16 instructions). A typo here would show up as golden-vector mismatches too.
TEST(Contracts, TensorCoreRowsCarryTheMeasuredParameters) {
  for (const Contract* c : {&contract_fwd_bf16_tc_fdpa_sm80(), &contract_bwd_dx_bf16_tc_fdpa_sm80(),
                            &contract_bwd_dw_bf16_tc_fdpa_sm80()}) {
    EXPECT_EQ(c->plan.step.kind, StepKind::tc_fdpa);
    EXPECT_EQ(c->plan.step.tc.L, 8);
    EXPECT_EQ(c->plan.step.tc.F, 24);
    EXPECT_EQ(c->plan.step.tc.e_zero, -132);
    EXPECT_EQ(c->plan.step.tc.k_width, 16);
  }
  for (const Contract* c : {&contract_fwd_bf16_tc_fdpa_sm90(), &contract_bwd_dx_bf16_tc_fdpa_sm90(),
                            &contract_bwd_dw_bf16_tc_fdpa_sm90()}) {
    EXPECT_EQ(c->plan.step.tc.L, 16);
    EXPECT_EQ(c->plan.step.tc.F, 25);
    EXPECT_EQ(c->plan.step.tc.e_zero, -133);
  }
  EXPECT_EQ(contract_fwd_f32_fma_chain().plan.step.kind, StepKind::fma_rn);
  EXPECT_EQ(contract_fwd_f32_fma_chain().plan.output_dtypes, std::vector<DType>{DType::f32});
  EXPECT_TRUE(contract_fwd_bf16_tc_fdpa_sm90().plan.allows_output(DType::bf16));
  EXPECT_EQ(contract_bwd_dw_f32_fma_chain().plan.row_order, RowOrder::ascending_logical_key);
  EXPECT_EQ(contract_bwd_dw_f32_fma_chain().plan.bias_gradient, BiasGradient::add_rn_chain);
  EXPECT_EQ(contract_bwd_dx_f32_fma_chain().plan.bias, BiasPlacement::none);
}

TEST(ContractFile, EveryBuiltInRoundTripsThroughTheFileFormat) {
  for (const Contract* c : all_contracts()) {
    const Contract back = contract_from_text(contract_to_json(*c).dump(), "roundtrip");
    EXPECT_EQ(contract_to_json(back), contract_to_json(*c)) << c->id;
    EXPECT_EQ(back.kind, c->kind);
  }
}

TEST(ContractFile, TheShippedExamplesLoad) {
  const Contract seg = load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json");
  EXPECT_EQ(seg.plan.structure, KStructure::segments);
  EXPECT_EQ(seg.plan.segment_length, 256);
  EXPECT_EQ(seg.plan.combine, SegmentCombine::ascending_add_rn);
  const Contract tree = resolve_contract(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.bf16.sm90-seg64-pairwise.json");
  EXPECT_EQ(tree.plan.combine, SegmentCombine::pairwise_tree);
  EXPECT_EQ(tree.plan.padding_multiple(), 32);
  EXPECT_EQ(tree.plan.bias, BiasPlacement::initial_accumulator);
}

TEST(ContractFile, ValidTextParses) { EXPECT_EQ(error_of(with_field("summary", "\"ok\"")), ""); }

struct BadField {
  std::string field, value, message;
};

TEST(ContractFile, EachDefectGetsItsOwnLocatedError) {
  const BadField cases[] = {
      {"schema", "\"ordo.contract/2\"", "user.json: schema: must be \"ordo.contract/1\""},
      {"schema", "", "user.json: schema: required field missing"},
      {"id", "\"NoVersion\"", "user.json: id: must be NAME/VERSION"},
      {"id", "7", "user.json: id: must be a string, got number"},
      {"operation", "\"sideways\"", "user.json: operation: unknown value \"sideways\"; one of \"forward\""},
      {"operands", "\"f16\"", "user.json: operands: unknown value \"f16\""},
      {"step", "{\"kind\": \"fma\"}", "user.json: step.kind: unknown value \"fma\""},
      {"step", "{\"kind\": \"fma_rn\", \"L\": 16}", "user.json: step.L: unknown field"},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": 16, \"F\": 25, \"e_zero\": -133}", "user.json: step.k_width: required field missing"},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": 16.0, \"F\": 25, \"e_zero\": -133, \"k_width\": 16}",
       "user.json: step.L: must be an integer, got 16.0"},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": \"16\", \"F\": 25, \"e_zero\": -133, \"k_width\": 16}",
       "user.json: step.L: must be an integer, got \"16\""},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": 16, \"F\": 50, \"e_zero\": -133, \"k_width\": 16}",
       "user.json: step.F: must be in [23, 40], got 50"},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": 16, \"F\": 25, \"e_zero\": -133, \"k_width\": 24}",
       "step.k_width: must be a positive multiple of L = 16, got 24"},
      {"step", "{\"kind\": \"tc_fdpa\", \"L\": 16, \"F\": 25, \"e_zero\": -133, \"k_width\": 16}",
       "operands: the tc_fdpa step models bf16 operands only"},
      {"k_structure", "{\"kind\": \"segments\", \"length\": 0, \"combine\": \"pairwise_tree\"}",
       "user.json: k_structure.length: must be in [1, 1073741824], got 0"},
      {"k_structure", "{\"kind\": \"segments\", \"length\": 99999999999999999999, \"combine\": \"pairwise_tree\"}",
       "user.json: k_structure.length: must be an integer, got 1e+20"},
      {"k_structure", "{\"kind\": \"segments\", \"length\": 18446744073709551615, \"combine\": \"pairwise_tree\"}",
       "user.json: k_structure.length: must be in [1, 1073741824], got 18446744073709551615"},
      {"k_structure", "{\"kind\": \"segments\", \"length\": 64}", "user.json: k_structure.combine: required field missing"},
      {"k_structure", "{\"kind\": \"chain\", \"length\": 64}", "user.json: k_structure.length: unknown field"},
      {"bias", "\"before\"", "user.json: bias: unknown value \"before\""},
      {"bias", "\"none\"", "bias: a forward contract places its bias"},
      {"output", "[]", "user.json: output: must be a list of one or two"},
      {"output", "[\"f32\", \"f32\"]", "user.json: output[1]: \"f32\" listed twice"},
      {"output", "[\"f16\"]", "user.json: output[0]: must be \"f32\" or \"bf16\", got \"f16\""},
      {"nan_bits", "\"0x7fc00000 \"", "user.json: nan_bits: must be \"any\" or 0x and 8 hex digits"},
      {"nan_bits", "\"0x7fc0000\"", "user.json: nan_bits: must be \"any\" or 0x and 8 hex digits"},
      {"nan_bits", "\"0x7fc000000\"", "user.json: nan_bits: must be \"any\" or 0x and 8 hex digits"},
      {"nan_bits", "\"0x3f800000\"", "nan: the NaN bits must be a binary32 NaN"},
      {"start_value", "\"0\"", "user.json: start_value: unknown value \"0\""},
      {"k_padding_multiple", "0", "user.json: k_padding_multiple: must be in [1, 1048576], got 0"},
      {"row_order", "\"call_order\"", "user.json: row_order: unknown field"},
      {"colour", "\"red\"", "user.json: colour: unknown field"},
  };
  for (const BadField& c : cases) {
    const std::string e = error_of(with_field(c.field, c.value));
    EXPECT_NE(e.find(c.message), std::string::npos) << c.field << " = " << c.value << "\n  got: " << e;
  }
}

TEST(ContractFile, DuplicateFieldsAndBadJsonAreErrors) {
  EXPECT_NE(error_of("{\"schema\": \"ordo.contract/1\", \"schema\": \"ordo.contract/1\"}").find("user.json: schema: field given twice"),
            std::string::npos);
  EXPECT_NE(error_of("{\"schema\": ").find("user.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("user.json: must be a JSON object, got array"), std::string::npos);
}

TEST(ContractFile, SegmentsMustHoldWholeInstructions) {
  const std::string text = R"({"schema": "ordo.contract/1", "id": "user.x/1", "operation": "forward", "operands": "bf16",
    "step": {"kind": "tc_fdpa", "L": 8, "F": 24, "e_zero": -132, "k_width": 16},
    "k_structure": {"kind": "segments", "length": 40, "combine": "ascending_add_rn"},
    "bias": "after_chain_add_rn", "output": ["f32"]})";
  EXPECT_NE(error_of(text).find("k_structure.length: must be a multiple of the step's instruction width 16, got 40"),
            std::string::npos)
      << error_of(text);
}

TEST(ContractFile, BackwardFieldsBelongToBackwardContracts) {
  const std::string dw = R"({"schema": "ordo.contract/1", "id": "user.dw/1", "operation": "backward_weight",
    "operands": "f32", "step": {"kind": "fma_rn"}, "k_structure": {"kind": "chain"}, "output": ["f32"],
    "row_order": "call_order", "bias_gradient": "none"})";
  const Contract c = contract_from_text(dw, "dw.json");
  EXPECT_EQ(c.plan.row_order, RowOrder::call_order);
  EXPECT_EQ(c.plan.bias_gradient, BiasGradient::none);
  const std::string dx_bf16_out = R"({"schema": "ordo.contract/1", "id": "user.dx/1", "operation": "backward_data",
    "operands": "f32", "step": {"kind": "fma_rn"}, "k_structure": {"kind": "chain"}, "output": ["bf16"]})";
  EXPECT_NE(error_of(dx_bf16_out).find("output: backward outputs are f32 only"), std::string::npos);
}

TEST(ContractFile, UnknownIdsNameTheNearestBuiltIns) {
  try {
    resolve_contract("fwd.f32.fma-chian/1");
    FAIL() << "resolved a misspelt id";
  } catch (const ContractFileError& e) {
    EXPECT_NE(std::string(e.what()).find("nearest: fwd.f32.fma-chain/1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_contract("/no/such/file.json"), ContractFileError);
}

TEST(ContractFile, AFileMayNotReuseABuiltInIdForAnotherPlan) {
  const std::string path = ordo::testing::process_temp_path("reuse.json");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(with_field("id", "\"fwd.f32.fma-chain/1\"").replace(0, 1, "{\"k_padding_multiple\": 4, ").c_str(), f);
    std::fclose(f);
  }
  try {
    resolve_contract(path);
    FAIL() << "accepted another plan under a built-in id";
  } catch (const ContractFileError& e) {
    EXPECT_NE(std::string(e.what()).find("is a built-in contract with another plan"), std::string::npos) << e.what();
  }
}

TEST(ReductionPlan, PaddingIsTheLcmOfTheBlockAndTheInstruction) {
  ReductionPlan p = contract_fwd_bf16_tc_fdpa_sm90().plan;
  EXPECT_EQ(p.padded_terms(1), 16);
  EXPECT_EQ(p.padded_terms(16), 16);
  p.k_padding_multiple = 24;
  EXPECT_EQ(p.padding_multiple(), 48);
  EXPECT_EQ(p.padded_terms(49), 96);
  EXPECT_EQ(p.padded_terms(0), 0);
}

}  // namespace
}  // namespace ordo
