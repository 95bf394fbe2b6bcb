// The a-priori error bounds of oracle/error_bound.h: the FP32 structures' rounding counts and values,
// and the T-FDPA chain bound checked against the model and an exact MPFR sum on random BF16 data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/float_bits.h"
#include "oracle/error_bound.h"
#include "oracle/mpfr_value.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {
namespace {

constexpr long kExactBits = 640;  // BF16 products span 2^-266..2^256: 522 bits + log2 K, plus sign

void require_exact(int ternary) {
  if (ternary != 0) throw std::logic_error("the exact sum rounded");
}

double bound_of(void (*f)(std::int64_t, mpfr_srcptr, mpfr_ptr), std::int64_t n, double S) {
  MpfrValue s(kBoundPrecisionBits), out(kBoundPrecisionBits);
  mpfr_set_d(s.get(), S, MPFR_RNDN);
  f(n, s.get(), out.get());
  return mpfr_get_d(out.get(), MPFR_RNDU);
}

TEST(BlockedChain, RoundingCounts) {
  EXPECT_EQ(blocked_chain_roundings(1024, 32, false), 32 + 32 - 1);
  EXPECT_EQ(blocked_chain_roundings(1024, 32, true), 64);
  EXPECT_EQ(blocked_chain_roundings(1000, 32, false), 32 + 32 - 1);  // 31 full runs and a tail of 8
  EXPECT_EQ(blocked_chain_roundings(10, 32, false), 10);             // one short run: a plain chain
  EXPECT_EQ(blocked_chain_roundings(5, 1, false), 5);                // block 1: a chain of adds
  EXPECT_EQ(blocked_chain_roundings(0, 32, true), 1);
  EXPECT_EQ(blocked_chain_total_roundings(1024, 32, false), 1024 + 31);
  EXPECT_EQ(blocked_chain_total_roundings(1024, 32, true), 1024 + 32);
  EXPECT_THROW(blocked_chain_roundings(8, 0, false), std::invalid_argument);
}

TEST(FmaChainBound, UnchangedValues) {
  // n = 3, S = 2 + 2^-24 (exact_oracle_test's case), recomputed here at 1000 bits.
  MpfrValue want(1000), t(1000);
  mpfr_set_ui_2exp(t.get(), 1, -24, MPFR_RNDN);
  mpfr_add_ui(t.get(), t.get(), 1, MPFR_RNDN);
  mpfr_pow_ui(want.get(), t.get(), 3, MPFR_RNDN);
  mpfr_sub_ui(want.get(), want.get(), 1, MPFR_RNDN);
  mpfr_mul_d(want.get(), want.get(), 2.0 + std::ldexp(1.0, -24), MPFR_RNDN);
  mpfr_pow_ui(t.get(), t.get(), 2, MPFR_RNDN);
  mpfr_mul_ui(t.get(), t.get(), 3, MPFR_RNDN);
  mpfr_mul_2si(t.get(), t.get(), -150, MPFR_RNDN);
  mpfr_add(want.get(), want.get(), t.get(), MPFR_RNDN);
  MpfrValue s(kBoundPrecisionBits), got(kBoundPrecisionBits);
  mpfr_set_d(s.get(), 2.0 + std::ldexp(1.0, -24), MPFR_RNDN);
  fma_chain_error_bound(fma_chain_roundings(3, false), s.get(), got.get());
  EXPECT_GE(mpfr_cmp(got.get(), want.get()), 0);  // rounded up, never down
  mpfr_sub(t.get(), got.get(), want.get(), MPFR_RNDN);
  mpfr_div(t.get(), t.get(), want.get(), MPFR_RNDN);
  EXPECT_LT(mpfr_get_d(t.get(), MPFR_RNDU), std::ldexp(1.0, -100));
  // n = 1024, S = 1: ((1 + 2^-24)^1024 - 1) ~ 6.1037e-5.
  const double g1024 = std::expm1(1024 * std::log1p(std::ldexp(1.0, -24)));
  EXPECT_NEAR(bound_of(fma_chain_error_bound, 1024, 1.0) / g1024, 1.0, 1e-12);
}

// Blocked FP32 accumulation emulated with std::fma: runs of `block` from +0, partials added in order.
float blocked_sum(const std::vector<float>& x, const std::vector<float>& w, std::size_t block) {
  float total = 0.0f;
  for (std::size_t k0 = 0; k0 < x.size(); k0 += block) {
    float run = 0.0f;
    for (std::size_t k = k0; k < std::min(x.size(), k0 + block); ++k) run = std::fma(x[k], w[k], run);
    total += run;
  }
  return total;
}

TEST(BlockedChain, UnderflowTermsCountEveryFmaNotTheLongestPath) {
  // Each product is 2^-150 (1 + 2^-20), just above half the smallest subnormal: every FMA of a run
  // rounds up by ~2^-150. K = 1024, block 32: error ~1024 * 2^-151 = 2^-141 ... measured exactly below.
  // The longest path has only n = 63 roundings, and n * eta = 63 * 2^-150 is far too small: the
  // underflow part must count all N = 1055 roundings (error_bounds.md).
  const std::vector<float> x(1024, std::ldexp(1.0f, -75));
  const std::vector<float> w(1024, std::ldexp(1.0f + std::ldexp(1.0f, -20), -75));
  const float y_hat = blocked_sum(x, w, 32);
  MpfrValue exact(kExactBits), S(kExactBits), err(kExactBits), bound(kBoundPrecisionBits), naive(kBoundPrecisionBits);
  for (std::size_t k = 0; k < x.size(); ++k)
    require_exact(mpfr_add_d(exact.get(), exact.get(), double(x[k]) * double(w[k]), MPFR_RNDN));
  mpfr_set(S.get(), exact.get(), MPFR_RNDN);  // all products positive
  require_exact(mpfr_set_flt(err.get(), y_hat, MPFR_RNDN));
  require_exact(mpfr_sub(err.get(), err.get(), exact.get(), MPFR_RNDN));
  mpfr_abs(err.get(), err.get(), MPFR_RNDN);
  blocked_chain_error_bound(1024, 32, false, S.get(), bound.get());
  fma_chain_error_bound(blocked_chain_roundings(1024, 32, false), S.get(), naive.get());
  std::printf("blocked underflow: error %.4g, bound %.4g, n*eta-form %.4g\n", mpfr_get_d(err.get(), MPFR_RNDU),
              mpfr_get_d(bound.get(), MPFR_RNDU), mpfr_get_d(naive.get(), MPFR_RNDU));
  EXPECT_TRUE(mpfr_lessequal_p(err.get(), bound.get()));
  EXPECT_TRUE(mpfr_greater_p(err.get(), naive.get()));  // the n-only form is violated
}

// ---- T-FDPA chain bound ---------------------------------------------------------------------------

enum Family { kRandom, kWide, kCancel, kSubnormal, kAdversarial, kFamilies };
const char* const kFamilyName[kFamilies] = {"random", "wide-exponent", "cancellation", "subnormal", "adversarial"};

// A normal BF16 value with exponent in [emin, emax], random sign and 7-bit fraction.
float bf16_normal(std::mt19937_64& rng, int emin, int emax, bool positive = false) {
  const int e = std::uniform_int_distribution<int>(emin, emax)(rng);
  const auto frac = static_cast<std::uint32_t>(rng() & 0x7Fu);
  const std::uint32_t sign = positive ? 0u : static_cast<std::uint32_t>(rng() & 1u) << 31;
  return float_of(sign | static_cast<std::uint32_t>(e + 127) << 23 | frac << 16);
}
float bf16_subnormal(std::mt19937_64& rng) {
  const auto frac = static_cast<std::uint32_t>(1 + rng() % 0x7Fu);
  return float_of(static_cast<std::uint32_t>(rng() & 1u) << 31 | frac << 16);
}

void make_case(Family f, const TcFdpaParams& p, std::int64_t K, std::mt19937_64& rng, std::vector<float>& x,
               std::vector<float>& w) {
  x.assign(static_cast<std::size_t>(K), 0.0f), w.assign(static_cast<std::size_t>(K), 0.0f);
  for (std::size_t k = 0; k < x.size(); ++k) {
    switch (f) {
      case kRandom: x[k] = bf16_normal(rng, -8, 8), w[k] = bf16_normal(rng, -8, 8); break;
      case kWide: x[k] = bf16_normal(rng, -55, 55), w[k] = bf16_normal(rng, -55, 55); break;  // |sum| < 2^122
      case kCancel:
        if (k % 2 == 0) {
          x[k] = bf16_normal(rng, -20, 20), w[k] = bf16_normal(rng, -20, 20);
        } else {  // the negated pair, half the time with w one BF16 ulp away: near-total cancellation
          x[k] = -x[k - 1];
          w[k] = (rng() & 1u) ? w[k - 1] : float_of(bits_of(w[k - 1]) + 0x10000u);
        }
        break;
      case kSubnormal:  // subnormal factors times huge ones: products that set E with |p| << 2^E
        x[k] = (rng() & 1u) ? bf16_subnormal(rng) : bf16_normal(rng, -126, -110);
        w[k] = bf16_normal(rng, 80, 120);
        break;
      case kAdversarial:  // 1, then terms just below one unit 2^-F of E = 0, all truncated away
        x[k] = k == 0 ? 1.0f : 2.0f - std::ldexp(1.0f, -7), w[k] = k == 0 ? 1.0f : std::ldexp(1.0f, -p.F - 1);
        break;
      case kFamilies: break;
    }
  }
}

struct Sums {
  MpfrValue exact{kExactBits}, S{kExactBits}, V{kExactBits};
};
void exact_sums(const std::vector<float>& x, const std::vector<float>& w, Sums& s) {
  for (std::size_t k = 0; k < x.size(); ++k) {
    const double prod = double(x[k]) * double(w[k]);  // BF16 products: exact in double
    require_exact(mpfr_add_d(s.exact.get(), s.exact.get(), prod, MPFR_RNDN));
    require_exact(mpfr_add_d(s.S.get(), s.S.get(), std::fabs(prod), MPFR_RNDN));
    require_exact(mpfr_add_d(s.V.get(), s.V.get(), tc_fdpa_alignment_weight(x[k], w[k]), MPFR_RNDN));
  }
}

// |candidate - exact| against the bound, compared exactly; the ratio only for the report.
struct Outcome {
  bool within;
  double ratio;
};
Outcome judge(mpfr_srcptr candidate, mpfr_srcptr exact, const TcFdpaBoundQuery& q) {
  MpfrValue err(kExactBits + 64), bound(kBoundPrecisionBits);
  require_exact(mpfr_sub(err.get(), candidate, exact, MPFR_RNDN));
  mpfr_abs(err.get(), err.get(), MPFR_RNDN);
  tc_fdpa_chain_error_bound(q, bound.get());
  return {mpfr_lessequal_p(err.get(), bound.get()) != 0,
          mpfr_get_d(err.get(), MPFR_RNDU) / mpfr_get_d(bound.get(), MPFR_RNDU)};
}
Outcome judge(float candidate, mpfr_srcptr exact, const TcFdpaBoundQuery& q) {
  MpfrValue c(kExactBits);
  require_exact(mpfr_set_flt(c.get(), candidate, MPFR_RNDN));
  return judge(c.get(), exact, q);
}

TEST(TcFdpaBound, NeverExceededByTheModelOnRandomBf16Data) {
  std::mt19937_64 rng(20261130);
  std::vector<float> x, w;
  for (const TcFdpaParams& p : {tc_fdpa_params_sm80(), tc_fdpa_params_sm90()}) {
    std::printf("T-FDPA bound, L=%d F=%d: max error/bound [chain | +bias | bf16 out | bias+bf16]\n", p.L, p.F);
    for (int f = 0; f < kFamilies; ++f) {
      double worst[4] = {0, 0, 0, 0};
      for (int rep = 0; rep < 300; ++rep) {
        const std::int64_t K = 1 + static_cast<std::int64_t>(rng() % 300);
        make_case(static_cast<Family>(f), p, K, rng, x, w);
        Sums s;
        exact_sums(x, w, s);
        const float c = tc_fdpa_chain(p, x.data(), w.data(), K);
        ASSERT_TRUE(std::isfinite(c));
        TcFdpaBoundQuery q;
        q.params = p, q.K = K, q.sum_abs = s.S.get();
        // V = S is the caller's shortcut without subnormal inputs; check it is the same value then.
        if (f == kSubnormal) q.align_weight = s.V.get();
        else ASSERT_EQ(mpfr_cmp(s.V.get(), s.S.get()), 0);
        const Outcome plain = judge(c, s.exact.get(), q);
        // With a bias chosen to cancel most of the chain: y = RN(C + b).
        const auto b = static_cast<float>(-std::uniform_real_distribution<double>(0.5, 1.5)(rng) *
                                          mpfr_get_d(s.exact.get(), MPFR_RNDN));
        Sums sb;
        mpfr_add_d(sb.exact.get(), s.exact.get(), b, MPFR_RNDN);
        mpfr_add_d(sb.S.get(), s.S.get(), std::fabs(b), MPFR_RNDN);
        mpfr_add_d(sb.V.get(), s.V.get(), std::fabs(b), MPFR_RNDN);
        TcFdpaBoundQuery qb = q;
        qb.bias = true, qb.sum_abs = sb.S.get(), qb.align_weight = q.align_weight ? sb.V.get() : nullptr;
        const Outcome bias = judge(c + b, sb.exact.get(), qb);
        // BF16 output, with |y_hat| given and (with the bias) without.
        const float y16 = round_to_bf16(c);
        MpfrValue y16_abs(kBoundPrecisionBits);
        mpfr_set_flt(y16_abs.get(), std::fabs(y16), MPFR_RNDN);
        TcFdpaBoundQuery q16 = q;
        q16.bf16_output = true, q16.y_hat_abs = y16_abs.get();
        const Outcome out16 = judge(y16, s.exact.get(), q16);
        qb.bf16_output = true;
        const Outcome both = judge(round_to_bf16(c + b), sb.exact.get(), qb);
        const Outcome all[4] = {plain, bias, out16, both};
        for (int v = 0; v < 4; ++v) {
          ASSERT_TRUE(all[v].within) << "L=" << p.L << " family " << kFamilyName[f] << " K=" << K << " variant "
                                     << v << " ratio " << all[v].ratio;
          worst[v] = std::max(worst[v], all[v].ratio);
        }
      }
      std::printf("  %-14s %.3e | %.3e | %.3e | %.3e\n", kFamilyName[f], worst[0], worst[1], worst[2], worst[3]);
      // The adversarial family loses ~L units of 2^-F per step, the quantity a charges: the bound is
      // close to sharp there (about a / (a + u) = 0.8 for both parameter sets).
      if (f == kAdversarial) {
        EXPECT_GT(worst[0], 0.5);
      }
    }
  }
}

TEST(TcFdpaBound, SubnormalFactorsNeedTheAlignmentWeight) {
  // One sm_90 step: 2^-133 * 2^100 = 2^-33 sets E = -26 (model exponent), so the unit is 2^-51, and
  // fifteen products (2 - 2^-7) 2^-52 just below it are all lost: error ~15 * 2^-51, while S ~ 2^-33
  // charges only a S ~ 2^-54. V counts 2^E = 2^-26 for the first product and covers the loss.
  const TcFdpaParams p = tc_fdpa_params_sm90();
  std::vector<float> x(16, 2.0f - std::ldexp(1.0f, -7)), w(16, std::ldexp(1.0f, -52));
  x[0] = std::ldexp(1.0f, -133), w[0] = std::ldexp(1.0f, 100);
  Sums s;
  exact_sums(x, w, s);
  const float c = tc_fdpa_chain(p, x.data(), w.data(), 16);
  EXPECT_EQ(c, std::ldexp(1.0f, -33));
  EXPECT_EQ(tc_fdpa_alignment_weight(x[0], w[0]), std::ldexp(1.0, -26));
  TcFdpaBoundQuery q;
  q.params = p, q.K = 16, q.sum_abs = s.S.get();
  EXPECT_FALSE(judge(c, s.exact.get(), q).within);  // V = S: invalid with subnormal inputs
  q.align_weight = s.V.get();
  EXPECT_TRUE(judge(c, s.exact.get(), q).within);
}

TEST(TcFdpaBound, PlantedWrongCandidateIsCaught) {
  // The exact value times (1 + 2^-10) is far outside a bound of ~n 5 2^-23 S (n <= 19 here) for
  // same-sign data, where |y| = S: the check above can fail.
  std::mt19937_64 rng(7);
  std::vector<float> x, w;
  for (const TcFdpaParams& p : {tc_fdpa_params_sm80(), tc_fdpa_params_sm90()}) {
    for (int rep = 0; rep < 200; ++rep) {
      const std::int64_t K = 1 + static_cast<std::int64_t>(rng() % 300);
      x.resize(static_cast<std::size_t>(K)), w.resize(static_cast<std::size_t>(K));
      for (std::size_t k = 0; k < x.size(); ++k) x[k] = bf16_normal(rng, -8, 8, true), w[k] = bf16_normal(rng, -8, 8, true);
      Sums s;
      exact_sums(x, w, s);
      MpfrValue wrong(kExactBits + 16);
      mpfr_mul_2si(wrong.get(), s.exact.get(), -10, MPFR_RNDN);
      mpfr_add(wrong.get(), wrong.get(), s.exact.get(), MPFR_RNDN);
      TcFdpaBoundQuery q;
      q.params = p, q.K = K, q.sum_abs = s.S.get();
      EXPECT_FALSE(judge(wrong.get(), s.exact.get(), q).within) << "K=" << K;
      EXPECT_TRUE(judge(tc_fdpa_chain(p, x.data(), w.data(), K), s.exact.get(), q).within) << "K=" << K;
    }
  }
}

TEST(TcFdpaBound, ZeroStepsGiveZeroAndBadInputsThrow) {
  MpfrValue S(kBoundPrecisionBits), out(kBoundPrecisionBits);
  mpfr_set_ui(S.get(), 5, MPFR_RNDN);
  TcFdpaBoundQuery q;
  q.sum_abs = S.get();
  tc_fdpa_chain_error_bound(q, out.get());  // K = 0: C = +0 exactly
  EXPECT_EQ(mpfr_zero_p(out.get()), 1);
  q.sum_abs = nullptr;
  EXPECT_THROW(tc_fdpa_chain_error_bound(q, out.get()), std::invalid_argument);
  EXPECT_EQ(tc_fdpa_steps(tc_fdpa_params_sm90(), 300), 19);
  EXPECT_EQ(tc_fdpa_steps(tc_fdpa_params_sm80(), 16), 2);
}

}  // namespace
}  // namespace ordo::oracle
