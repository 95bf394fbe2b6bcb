// The BF16-output contracts on the host: Y is the FP32 chain result cast once to bfloat16 with
// round-to-nearest-even (NaN to 0x7fff), and the FP32 contract refuses a bf16 Y.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/backend.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/forward_case.h"

namespace ordo {
namespace {

TEST(Bf16Output, EmulatorCastsTheFp32ResultOnceWithTiesToEven) {
  auto emulator = make_emulator_backend(contract_fwd_bf16_tc_fdpa_sm90().id);
  properties::ForwardCase c;
  c.M = 7;
  c.N = 9;
  c.K = 40;
  c.has_bias = true;
  c.bf16_operands = true;
  for (const auto family : properties::all_families()) {
    c.family = family;
    c.seed = 99 + static_cast<int>(family);
    ForwardProblem p = c.materialize();
    const BackendResult f32 = emulator->forward(p);
    p.bf16_output = true;
    const BackendResult b16 = emulator->forward(p);
    ASSERT_TRUE(f32.status.ok() && b16.status.ok());
    for (std::size_t i = 0; i < f32.y.size(); ++i) {
      const std::uint32_t want = std::isnan(f32.y[i]) ? 0x7FFF0000u : bits_of(oracle::round_to_bf16(f32.y[i]));
      ASSERT_EQ(bits_of(b16.y[i]), want) << properties::family_name(family) << " element " << i;
    }
  }
}

TEST(Bf16Output, TiesRoundToEvenAndCarryIntoTheExponent) {
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3F808000u))), 0x3F800000u);  // tie, even below
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3F818000u))), 0x3F820000u);  // tie, even above
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3FFFFFFFu))), 0x40000000u);   // carry into the exponent
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x7F7FFFFFu))), 0x7F800000u);   // overflow to +Inf
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x80008000u))), 0x80000000u);   // subnormal tie to -0
}

TEST(Bf16Output, Fp32ContractRefusesABf16Y) {
  auto emulator = make_emulator_backend(contract_fwd_f32_fma_chain().id);
  properties::ForwardCase c;
  c.M = 2;
  c.N = 3;
  c.K = 4;
  ForwardProblem p = c.materialize();
  p.bf16_output = true;
  EXPECT_EQ(emulator->forward(p).status.code, StatusCode::wrong_dtype);
}

}  // namespace
}  // namespace ordo
