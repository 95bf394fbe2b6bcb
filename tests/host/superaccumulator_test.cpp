// The superaccumulator and the batched exact engine (exact_dots.h) on hand-derived values, and against
// each other and MPFR as RapidCheck properties.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "core/float_bits.h"
#include "oracle/dot_kernel.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/exact_dots.h"
#include "oracle/exact_gemm.h"
#include "oracle/mpfr_value.h"
#include "oracle/superaccumulator.h"
#include "properties/exact_checks.h"
#include "properties/suite.h"
#include "test_support.h"

namespace ordo {
namespace {

using oracle::ExactSum;
using oracle::Superaccumulator;

Superaccumulator dot(std::initializer_list<std::pair<float, float>> terms) {
  Superaccumulator acc;
  for (auto [a, b] : terms) acc.add_product(a, b);
  return acc;
}

TEST(Superaccumulator, ExactAcrossTheWholeRange) {
  const float big = std::ldexp(1.0f, 127), tiny = std::ldexp(1.0f, -149);
  // 2^254 - 2^254 + 2^-298: only the product of two smallest subnormals is left.
  const Superaccumulator acc = dot({{big, big}, {big, -big}, {tiny, tiny}});
  EXPECT_EQ(acc.to_double(), std::ldexp(1.0, -298));
  EXPECT_EQ(bits_of(acc.to_float()), 0u);  // far below half the smallest binary32 subnormal
}

TEST(Superaccumulator, RoundsOnceToNearestEven) {
  const float u = std::ldexp(1.0f, -24);
  EXPECT_EQ(dot({{1, 1}, {u, 1}}).to_float(), 1.0f);                                   // tie -> even
  EXPECT_EQ(dot({{1, 1}, {u, 1}, {std::ldexp(1.0f, -48), 1}}).to_float(), 1.0f + 2 * u);  // above the tie
  EXPECT_EQ(dot({{1, 1}, {3 * u, 1}}).to_float(), 1.0f + 4 * u);                        // tie -> even (up)
  // bfloat16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1; 1 + 3*2^-8 -> 1 + 2^-6.
  EXPECT_EQ(dot({{1, 1}, {std::ldexp(1.0f, -8), 1}}).to_bf16(), 1.0f);
  EXPECT_EQ(dot({{1, 1}, {std::ldexp(3.0f, -8), 1}}).to_bf16(), 1.0f + std::ldexp(1.0f, -6));
}

TEST(Superaccumulator, SubnormalResults) {
  // 3 * 2^-150 is halfway between 2^-149 and 2^-148: even is 2^-148.
  EXPECT_EQ(bits_of(dot({{std::ldexp(1.5f, -75), std::ldexp(1.0f, -74)}}).to_float()), 2u);
  // bfloat16's smallest subnormal is 2^-133; 2^-134 exactly is a tie with 0 -> 0; a bit more -> 2^-133.
  EXPECT_EQ(dot({{std::ldexp(1.0f, -67), std::ldexp(1.0f, -67)}}).to_bf16(), 0.0f);
  Superaccumulator above = dot({{std::ldexp(1.0f, -67), std::ldexp(1.0f, -67)}});
  above.add_product(std::ldexp(1.0f, -149), std::ldexp(1.0f, -149));
  EXPECT_EQ(above.to_bf16(), std::ldexp(1.0f, -133));
}

TEST(Superaccumulator, OverflowAndSpecialValues) {
  EXPECT_EQ(dot({{FLT_MAX, 1}, {FLT_MAX, 1}, {-FLT_MAX, 1}}).to_float(), FLT_MAX);  // exact, no overflow
  EXPECT_EQ(dot({{FLT_MAX, 2}}).to_float(), INFINITY);
  EXPECT_EQ(dot({{-FLT_MAX, 2}}).to_bf16(), -INFINITY);
  EXPECT_EQ(bits_of(dot({{INFINITY, 0}}).to_float()), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(dot({{INFINITY, 1}, {-INFINITY, 1}}).to_float()), kCanonicalNaNBits);
  EXPECT_EQ(dot({{INFINITY, 1}, {FLT_MAX, FLT_MAX}}).to_float(), INFINITY);
  EXPECT_TRUE(std::isnan(dot({{NAN, 1}}).to_double()));
}

TEST(Superaccumulator, SignOfAnExactZero) {
  EXPECT_EQ(bits_of(dot({{-0.0f, 1}, {0.0f, -1}}).to_float()), 0x80000000u);  // all terms -0
  EXPECT_EQ(bits_of(dot({{-0.0f, 1}, {0.0f, 1}}).to_float()), 0u);            // one +0
  EXPECT_EQ(bits_of(dot({{1, 1}, {-1, 1}}).to_float()), 0u);                  // cancellation
  Superaccumulator with_bias = dot({{-0.0f, 1}});
  with_bias.add(-0.0f);
  EXPECT_TRUE(std::signbit(with_bias.to_double()));
}

TEST(Superaccumulator, ManyTermsPastTheCarryInterval) {
  // 2^29 + 5 additions force a carry pass between them (every 2^29 additions).
  Superaccumulator acc;
  const float a = 16777216.0f;  // 2^24
  const std::int64_t n = (std::int64_t(1) << 29) + 5;
  for (std::int64_t i = 0; i < n; ++i) acc.add_product(a, a);
  EXPECT_EQ(acc.to_double(), std::ldexp(static_cast<double>(n), 48));
}

TEST(ExactGemm, MatchesMpfrAndReportsErrors) {
  ForwardProblem p;
  p.M = 2;
  p.N = 3;
  p.K = 3;
  const float u = testing::kTwoM24;
  p.x = {1, u, -1, 2, 3, 4};
  p.w = {1, 1, 1, 1, 0, 0, 0, 0, 1};
  p.bias = std::vector<float>{0, 0, 0.5f};
  const oracle::ExactForward e = oracle::exact_forward(p);
  EXPECT_EQ(e.f32, (std::vector<float>{u, 1, -0.5f, 9, 2, 4.5f}));
  std::vector<float> got = e.f32;
  got[0] = 0;  // what the FMA chain gives for 1 + 2^-24 - 1
  const oracle::ErrorSummary s = oracle::summarize_errors(got, e);
  EXPECT_EQ(s.compared, 6);
  EXPECT_EQ(s.max_relative_error, 1.0);
  EXPECT_EQ(s.max_abs_error, static_cast<double>(u));
}

RC_GTEST_PROP(SuperaccumulatorProperties, AgreesWithMpfrExactlyAndWhenRounded, ()) {
  using namespace properties;
  const ForwardCase c = *gen_forward_case({.max_m = 3, .max_n = 3, .max_k = 4096, .max_volume = 1 << 14}, all_families());
  RC_TAG(std::string(family_name(c.family)));
  const CheckResult r = check_superacc_equals_mpfr(c);
  if (!r.passed) RC_FAIL(r.detail);
}

// ---- The batched engine (exact_dots.h) ----

// The per-term path of Superaccumulator (add_product, add): independent of the batched engine's kernel.
Superaccumulator reference_dot(const float* a, const float* b, std::int64_t K, std::optional<float> bias) {
  Superaccumulator acc;
  for (std::int64_t k = 0; k < K; ++k) acc.add_product(a[k], b[k]);
  if (bias) acc.add(*bias);
  return acc;
}

std::uint64_t double_bits(double d) { return std::isnan(d) ? 0x7FF8000000000000ull : std::bit_cast<std::uint64_t>(d); }

bool same_exact_value(mpfr_srcptr a, mpfr_srcptr b) {
  if (mpfr_nan_p(a) || mpfr_nan_p(b)) return mpfr_nan_p(a) && mpfr_nan_p(b);
  return mpfr_equal_p(a, b) && mpfr_signbit(a) == mpfr_signbit(b);
}

// "" if `s` is the exact value MPFR finds (NaN, Inf and the sign of zero included) and rounds, in all
// three formats, to the bits of the per-term superaccumulator and of MPFR's own rounding; else what differs.
std::string disagreement(const ExactSum& s, const float* a, const float* b, std::int64_t K, std::optional<float> bias) {
  oracle::MpfrValue judge(oracle::kExactPrecisionBits), got(oracle::kExactPrecisionBits + 64);
  oracle::mpfr_exact_dot(a, b, K, bias, judge.get());
  s.to_mpfr(got.get());
  const Superaccumulator ref = reference_dot(a, b, K, bias);
  std::ostringstream why;
  if (!same_exact_value(got.get(), judge.get()))
    why << "exact value " << std::hexfloat << mpfr_get_d(got.get(), MPFR_RNDN) << " != MPFR "
        << mpfr_get_d(judge.get(), MPFR_RNDN) << std::defaultfloat << "; ";
  auto compare = [&](const char* format, std::uint64_t engine, std::uint64_t reference, std::uint64_t mpfr) {
    if (engine != reference || engine != mpfr)
      why << format << " bits 0x" << std::hex << engine << ", superaccumulator 0x" << reference << ", MPFR 0x" << mpfr
          << std::dec << "; ";
  };
  compare("binary32", bits_of(s.to_float()), bits_of(ref.to_float()),
          bits_of(oracle::mpfr_round_to_float(judge.get())));
  compare("bfloat16", bits_of(s.to_bf16()), bits_of(ref.to_bf16()),
          bits_of(oracle::mpfr_round_to_bf16(judge.get())));
  compare("binary64", double_bits(s.to_double()), double_bits(ref.to_double()),
          double_bits(mpfr_get_d(judge.get(), MPFR_RNDN)));
  return why.str();
}

// One dot product through the batched engine, checked against the superaccumulator and MPFR on the way.
ExactSum checked_dot(const std::vector<float>& a, const std::vector<float>& b, std::optional<float> bias = {}) {
  const auto K = static_cast<std::int64_t>(a.size());
  const ExactSum s = oracle::exact_dot(a.data(), b.data(), K, bias);
  const std::string why = disagreement(s, a.data(), b.data(), K, bias);
  if (!why.empty()) ADD_FAILURE() << "K = " << K << ": " << why;
  return s;
}

ExactSum checked_dot(std::initializer_list<std::pair<float, float>> terms, std::optional<float> bias = {}) {
  std::vector<float> a, b;
  for (auto [x, y] : terms) {
    a.push_back(x);
    b.push_back(y);
  }
  return checked_dot(a, b, bias);
}

TEST(ExactDots, HandDerivedValues) {
  const float big = std::ldexp(1.0f, 127), tiny = std::ldexp(1.0f, -149), u = testing::kTwoM24;
  // 2^254 - 2^254 + 2^-298 needs all 8 windows: only the product of two smallest subnormals is left.
  EXPECT_EQ(checked_dot({{big, big}, {big, -big}, {tiny, tiny}}).to_double(), std::ldexp(1.0, -298));
  EXPECT_EQ(bits_of(checked_dot({{-tiny, tiny}}).to_float()), 0x80000000u);  // -2^-298 rounds to -0
  EXPECT_EQ(checked_dot({{1, 1}, {u, 1}}).to_float(), 1.0f);                  // tie -> even
  EXPECT_EQ(checked_dot({{1, 1}, {u, 1}, {std::ldexp(1.0f, -48), 1}}).to_float(), 1.0f + 2 * u);
  EXPECT_EQ(checked_dot({{1, 1}, {3 * u, 1}}).to_float(), 1.0f + 4 * u);      // tie -> even (up)
  EXPECT_EQ(checked_dot({{1, 1}, {std::ldexp(1.0f, -8), 1}}).to_bf16(), 1.0f);
  EXPECT_EQ(checked_dot({{1, 1}, {std::ldexp(3.0f, -8), 1}}).to_bf16(), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(bits_of(checked_dot({{std::ldexp(1.5f, -75), std::ldexp(1.0f, -74)}}).to_float()), 2u);  // 3*2^-150
  EXPECT_EQ(checked_dot({{std::ldexp(1.0f, -67), std::ldexp(1.0f, -67)}}).to_bf16(), 0.0f);  // 2^-134: tie with 0
  EXPECT_EQ(checked_dot({{FLT_MAX, 1}, {FLT_MAX, 1}, {-FLT_MAX, 1}}).to_float(), FLT_MAX);   // exact, no overflow
  EXPECT_EQ(checked_dot({{FLT_MAX, 2}}).to_float(), INFINITY);
  EXPECT_EQ(checked_dot({{-FLT_MAX, 2}}).to_bf16(), -INFINITY);
  EXPECT_EQ(checked_dot({{FLT_MAX, 2}}).to_double(), 2.0 * static_cast<double>(FLT_MAX));
}

TEST(ExactDots, AnAddendFarAboveOrBelowTheProductsStaysExact) {
  const float tiny = std::ldexp(1.0f, -149);
  oracle::MpfrValue got(oracle::kExactPrecisionBits + 64), want(oracle::kExactPrecisionBits + 64);
  // 1 - 2^-149: the bias lies 149 bits below the only product, so the sum is moved up to hold it.
  checked_dot({{1, 1}}, -tiny).to_mpfr(got.get());
  mpfr_set_si_2exp(want.get(), -1, -149, MPFR_RNDN);
  mpfr_add_ui(want.get(), want.get(), 1, MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(got.get(), want.get()));
  EXPECT_EQ(checked_dot({{1, 1}}, -tiny).to_float(), 1.0f);
  // 2^127 + 2^-298: the bias lies 425 bits above.
  checked_dot({{tiny, tiny}}, std::ldexp(1.0f, 127)).to_mpfr(got.get());
  mpfr_set_ui_2exp(want.get(), 1, -298, MPFR_RNDN);
  oracle::MpfrValue big(64);
  mpfr_set_ui_2exp(big.get(), 1, 127, MPFR_RNDN);
  mpfr_add(want.get(), want.get(), big.get(), MPFR_RNDN);
  EXPECT_TRUE(mpfr_equal_p(got.get(), want.get()));
}

TEST(ExactDots, SignOfAnExactZero) {
  auto bits = [](std::vector<float> a, std::vector<float> b, std::optional<float> bias) {
    return bits_of(checked_dot(a, b, bias).to_float());
  };
  EXPECT_EQ(bits({-0.0f, 0.0f}, {1, -1}, {}), 0x80000000u);  // every term -0
  EXPECT_EQ(bits({-0.0f, 0.0f}, {1, 1}, {}), 0u);             // one +0
  EXPECT_EQ(bits({1, -1}, {1, 1}, {}), 0u);                   // cancellation
  EXPECT_EQ(bits({-0.0f}, {1}, -0.0f), 0x80000000u);          // and a -0 bias
  EXPECT_EQ(bits({-0.0f}, {1}, 0.0f), 0u);
  EXPECT_EQ(bits({1, -1}, {1, 1}, -0.0f), 0u);
  EXPECT_EQ(bits({}, {}, std::nullopt), 0u);  // no term at all
  EXPECT_EQ(bits({}, {}, -0.0f), 0x80000000u);
}

TEST(ExactDots, SpecialValuesFollowThePolicy) {
  EXPECT_EQ(bits_of(checked_dot({{INFINITY, 0}}).to_float()), kCanonicalNaNBits);  // Inf * 0
  EXPECT_EQ(bits_of(checked_dot({{INFINITY, 1}, {-INFINITY, 1}}).to_bf16()), kCanonicalNaNBits);
  EXPECT_EQ(checked_dot({{INFINITY, 1}, {FLT_MAX, FLT_MAX}}).to_float(), INFINITY);
  EXPECT_EQ(checked_dot({{-INFINITY, 1}, {1, 1}}).to_double(), -INFINITY);
  EXPECT_TRUE(std::isnan(checked_dot({{NAN, 1}, {1, 1}}).to_double()));
  EXPECT_EQ(checked_dot({{1, 1}}, INFINITY).to_float(), INFINITY);  // a special bias, finite products
  EXPECT_EQ(bits_of(checked_dot({{INFINITY, 1}}, -INFINITY).to_float()), kCanonicalNaNBits);
  EXPECT_EQ(bits_of(checked_dot({{1, 1}}, NAN).to_float()), kCanonicalNaNBits);
}

// Every lane sum at its largest, over several kernel blocks: all products of one sign and the largest
// significand, 63 bits into window 0 (the high part near 2^47 per term) or in the top window (7).
TEST(ExactDots, LongVectorsAcrossBlocksWithEveryLaneSumAtItsLimit) {
  const std::int64_t K = 3 * oracle::dot_kernel::kBlock + 13;
  const float m = std::bit_cast<float>(0x3FFFFFFFu);  // 2 - 2^-23
  for (const bool top_window : {false, true})
    for (const float sign : {1.0f, -1.0f}) {
      std::vector<float> a(static_cast<std::size_t>(K)), b(a.size());
      for (std::size_t k = 0; k < a.size(); ++k) {
        a[k] = sign * (top_window ? std::ldexp(m, 127) : std::ldexp(m, 3));
        b[k] = top_window ? std::ldexp(m, 127) : m;
      }
      a[0] = top_window ? std::ldexp(1.0f, -149) : std::ldexp(1.0f, -60);  // the rows' lowest exponents
      b[0] = top_window ? std::ldexp(1.0f, -149) : m;
      const ExactSum s = checked_dot(a, b);
      EXPECT_EQ(std::signbit(s.to_double()), sign < 0);
      // The single-vector engine uses the same kernel, folding its windows into 32-bit chunks.
      Superaccumulator acc;
      acc.add_products(a.data(), b.data(), K);
      const Superaccumulator ref = reference_dot(a.data(), b.data(), K, std::nullopt);
      oracle::MpfrValue x(oracle::kExactPrecisionBits + 64), y(oracle::kExactPrecisionBits + 64);
      acc.to_mpfr(x.get());
      ref.to_mpfr(y.get());
      EXPECT_TRUE(mpfr_equal_p(x.get(), y.get())) << "top window " << top_window << ", sign " << sign;
    }
}

// The AVX-512 loop and the portable one give the same window sums (the portable one is what a CPU
// without AVX-512 runs, and a plain statement of what the sums are).
TEST(ExactDots, SimdKernelEqualsPortableKernel) {
  if (!oracle::dot_kernel::have_simd_kernel()) GTEST_SKIP() << "no AVX-512 on this CPU";
  properties::Rng rng(20261130);
  const auto& families = properties::all_families();
  for (int trial = 0; trial < 3000; ++trial) {
    const std::int64_t K = rng.in_range(1, 300);
    std::vector<float> a(static_cast<std::size_t>(K)), b(a.size());
    const int pick = rng.in_range(0, static_cast<int>(families.size()) - 1);
    const properties::ValueFamily fa = families[static_cast<std::size_t>(pick)];
    const properties::ValueFamily fb = rng.coin(2) ? fa : properties::ValueFamily::wide_exponent;
    for (float& v : a) v = properties::sample_value(fa, rng);
    for (float& v : b) v = properties::sample_value(fb, rng);
    oracle::dot_kernel::DecodedRows da, db;
    da.decode(a.data(), 1, K);
    db.decode(b.data(), 1, K);
    const oracle::dot_kernel::DecodedRow ra = da.row(0), rb = db.row(0);
    if (ra.special || rb.special) continue;
    oracle::dot_kernel::WindowSums simd, portable;
    oracle::dot_kernel::dot_windows(ra, rb, 0, ra.padded_length, simd);
    oracle::dot_kernel::dot_windows_portable(ra, rb, 0, ra.padded_length, portable);
    ASSERT_EQ(simd.windows, portable.windows);
    for (int j = 0; j < simd.windows; ++j) {
      ASSERT_EQ(simd.low[j], portable.low[j]) << "trial " << trial << " window " << j;
      ASSERT_EQ(simd.mid[j], portable.mid[j]) << "trial " << trial << " window " << j;
      ASSERT_EQ(simd.high[j], portable.high[j]) << "trial " << trial << " window " << j;
    }
  }
}

RC_GTEST_PROP(ExactDotsProperties, EqualsTheSuperaccumulatorAndMpfrOnEveryFamily, ()) {
  using namespace properties;
  const ForwardCase c =
      *gen_forward_case({.max_m = 3, .max_n = 12, .max_k = 2000, .max_volume = 1 << 15}, all_families());
  RC_TAG(std::string(family_name(c.family)));
  const ForwardProblem p = c.materialize();
  const auto size = static_cast<std::size_t>(p.M * p.N);
  std::vector<ExactSum> exact(size);
  std::vector<float> f32(size), bf16(size);
  std::vector<double> f64(size);
  oracle::ExactDotsOutput out{f32.data(), bf16.data(), f64.data(), exact.data()};
  oracle::exact_dots(p.x.data(), p.w.data(), p.bias ? p.bias->data() : nullptr, p.M, p.N, p.K, out, 2);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const auto i = static_cast<std::size_t>(m * p.N + n);
      const std::string why = disagreement(exact[i], p.x_row(m), p.w_row(n), p.K, p.bias_at(n));
      if (!why.empty()) RC_FAIL("output [" + std::to_string(m) + "," + std::to_string(n) + "]: " + why);
      RC_ASSERT(bits_of(f32[i]) == bits_of(exact[i].to_float()));
      RC_ASSERT(bits_of(bf16[i]) == bits_of(exact[i].to_bf16()));
      RC_ASSERT(double_bits(f64[i]) == double_bits(exact[i].to_double()));
      const ExactSum one = oracle::exact_dot(p.x_row(m), p.w_row(n), p.K, p.bias_at(n));
      oracle::MpfrValue x(oracle::kExactPrecisionBits + 64), y(oracle::kExactPrecisionBits + 64);
      one.to_mpfr(x.get());
      exact[i].to_mpfr(y.get());
      RC_ASSERT(same_exact_value(x.get(), y.get()));
    }
}

// Exponents at and around the kernels' 64-bit window edges (row minimum + 0, 63, 64, 127, ...), at the ends
// of the range (subnormals, 2^127) and zeros of both signs, with random significands and signs: a 2 x 9
// block (nine columns: one full lane group and a partial one) through exact_dots, so that both the lane
// path (the rounded outputs) and the per-output path (the exact values) meet them.
RC_GTEST_PROP(ExactDotsProperties, WindowEdgesAndExtremeSpans, ()) {
  constexpr std::int64_t M = 2, N = 9;
  const int K = *rc::gen::inRange(1, 80);
  const int base = *rc::gen::element(1, 2, 64, 100, 191);  // biased exponent of a row's nonzero minimum
  const std::vector<int> offsets{0, 1, 31, 32, 33, 62, 63, 64, 65, 127, 128, 129, 191, 192, 253};
  auto value = [&] {
    const std::uint32_t sign = *rc::gen::element(0u, 0x80000000u);
    const std::uint32_t fraction = *rc::gen::inRange<std::uint32_t>(0, 0x800000u);
    switch (*rc::gen::inRange(0, 8)) {
      case 0: return std::bit_cast<float>(sign | std::max(fraction, 1u));  // subnormal
      case 1: return std::bit_cast<float>(sign);                           // +-0
      default: {
        const int e = std::min(254, base + offsets[static_cast<std::size_t>(*rc::gen::inRange(0, 15))]);
        return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(e) << 23) | fraction);
      }
    }
  };
  std::vector<float> x(static_cast<std::size_t>(M * K)), w(static_cast<std::size_t>(N * K)), bias(N);
  for (float& v : x) v = value();
  for (float& v : w) v = value();
  for (float& v : bias) v = value();
  const bool with_bias = *rc::gen::arbitrary<bool>();
  std::vector<ExactSum> exact(M * N);
  std::vector<float> f32(M * N), bf16(M * N);
  std::vector<double> f64(M * N);
  oracle::ExactDotsOutput out{f32.data(), bf16.data(), f64.data(), exact.data()};
  oracle::exact_dots(x.data(), w.data(), with_bias ? bias.data() : nullptr, M, N, K, out, 1);
  for (std::int64_t m = 0; m < M; ++m)
    for (std::int64_t n = 0; n < N; ++n) {
      const auto i = static_cast<std::size_t>(m * N + n);
      const float* a = x.data() + m * K;
      const float* b = w.data() + n * K;
      const auto bn = with_bias ? std::optional<float>(bias[static_cast<std::size_t>(n)]) : std::nullopt;
      const std::string why = disagreement(exact[i], a, b, K, bn);
      if (!why.empty()) RC_FAIL("output [" + std::to_string(m) + "," + std::to_string(n) + "]: " + why);
      const Superaccumulator ref = reference_dot(a, b, K, bn);
      RC_ASSERT(bits_of(f32[i]) == bits_of(ref.to_float()));
      RC_ASSERT(bits_of(bf16[i]) == bits_of(ref.to_bf16()));
      RC_ASSERT(double_bits(f64[i]) == double_bits(ref.to_double()));
    }
}

RC_GTEST_PROP(ExactGemmProperties, EqualsTheSuperaccumulatorPerElement, ()) {
  using namespace properties;
  // N past one task's 64 columns and M past one task's rows, so that the tiling is exercised.
  const ForwardCase c =
      *gen_forward_case({.max_m = 40, .max_n = 70, .max_k = 160, .max_volume = 1 << 15}, all_families());
  RC_TAG(std::string(family_name(c.family)));
  const ForwardProblem p = c.materialize();
  const oracle::ExactForward e = oracle::exact_forward(p, 2);
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n) {
      const auto i = static_cast<std::size_t>(m * p.N + n);
      const Superaccumulator ref = reference_dot(p.x_row(m), p.w_row(n), p.K, p.bias_at(n));
      RC_ASSERT(bits_of(e.f32[i]) == bits_of(ref.to_float()));
      RC_ASSERT(double_bits(e.f64[i]) == double_bits(ref.to_double()));
    }
}

}  // namespace
}  // namespace ordo
