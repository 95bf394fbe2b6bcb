// The BF16-output contracts on the host: Y is the FP32 chain result cast once to bfloat16 with
// round-to-nearest-even (NaN to 0x7fff), and the FP32 contract refuses a bf16 Y.
#include <gtest/gtest.h>

#include <cmath>

#include "subjects/forward_subject.h"
#include "core/contract.h"
#include "core/float_bits.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/forward_case.h"

namespace ordo {
namespace {

// The expected cast comes from MPFR's correct rounding of the FP32 value to bfloat16
// (oracle::mpfr_round_to_bf16, written independently of the emulator's bit trick round_to_bf16), so a
// wrong tie rule, truncation or a missing carry in the emulator fails here.
float independent_bf16(float f) {
  if (std::isnan(f)) return float_of(0x7FFF0000u);
  oracle::MpfrValue v(64);
  mpfr_set_flt(v.get(), f, MPFR_RNDN);
  return oracle::mpfr_round_to_bf16(v.get());
}

TEST(Bf16Output, EmulatorCastsTheFp32ResultOnceWithTiesToEven) {
  auto emulator = make_emulator_subject(contract_fwd_bf16_tc_fdpa_sm90());
  std::int64_t ties = 0;
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
      ASSERT_EQ(bits_of(b16.y[i]), bits_of(independent_bf16(f32.y[i]))) << properties::family_name(family) << " element " << i;
      ties += (bits_of(f32.y[i]) & 0xFFFFu) == 0x8000u;
    }
  }
  // Data with no rounding tie could not tell ties-to-even from ties-away.
  EXPECT_GT(ties, 0) << "no FP32 result was a bfloat16 tie";
}

// Known bits, written out by hand.
TEST(Bf16Output, TiesRoundToEvenAndCarryIntoTheExponent) {
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3F808000u))), 0x3F800000u);  // tie, even below
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3F818000u))), 0x3F820000u);  // tie, even above
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x3FFFFFFFu))), 0x40000000u);   // carry into the exponent
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x7F7FFFFFu))), 0x7F800000u);   // overflow to +Inf
  EXPECT_EQ(bits_of(oracle::round_to_bf16(float_of(0x80008000u))), 0x80000000u);   // subnormal tie to -0
}

TEST(Bf16Output, Fp32ContractRefusesABf16Y) {
  auto emulator = make_emulator_subject(contract_fwd_f32_fma_chain());
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
