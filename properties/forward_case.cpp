#include "properties/forward_case.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/mpfr_value.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::properties {
namespace {

// Columns whose products cancel: x[:,2i+1] = x[:,2i], w[:,2i+1] = -w[:,2i]; an odd K leaves one
// column uncancelled, and the bias is the small remainder.
void impose_cancellation(ForwardProblem& p) {
  for (std::int64_t k = 0; k + 1 < p.K; k += 2) {
    for (std::int64_t m = 0; m < p.M; ++m) p.x[m * p.K + k + 1] = p.x[m * p.K + k];
    for (std::int64_t n = 0; n < p.N; ++n) p.w[n * p.K + k + 1] = -p.w[n * p.K + k];
  }
}

// A large leading term (1 or 2^24 times 1) that the small terms after it must not be swamped by
// out of order.
void impose_swamping(ForwardProblem& p, Rng& rng) {
  const float lead = rng.coin(2) ? 1.0f : 16777216.0f;
  for (std::int64_t m = 0; m < p.M; ++m) p.x[m * p.K] = lead;
  for (std::int64_t n = 0; n < p.N; ++n) p.w[n * p.K] = rng.coin(2) ? 1.0f : -1.0f;
}

// Ogita-Rump-Oishi GenDot (SISC 2005, Algorithm 6.1) on row 0 of X and row 0 of W, in binary32: the
// first half of the terms has random exponents up to b/2, b = log2(condition); each later term is
// chosen to cancel the exact dot product so far, so the final sum is tiny against sum |x_k w_k|.
void impose_gendot(ForwardProblem& p, Rng& rng) {
  const std::int64_t K = p.K;
  if (K < 4) return;
  const double b = rng.in_range(0, 100);  // condition numbers up to 2^100, about 1e30
  auto uniform = [&] { return static_cast<float>(static_cast<double>(rng.next() >> 11) * 0x1p-53 * 2.0 - 1.0); };
  float* x = p.x.data();
  float* w = p.w.data();
  const std::int64_t half = K / 2;
  for (std::int64_t k = 0; k < half; ++k) {
    const int e = k == 0 ? static_cast<int>(b / 2) : rng.in_range(0, static_cast<int>(b / 2));
    x[k] = std::ldexp(uniform(), e);
    w[k] = std::ldexp(uniform(), e);
  }
  oracle::MpfrValue dot(oracle::kExactPrecisionBits);
  for (std::int64_t k = half; k < K; ++k) {
    const int e = static_cast<int>(std::lround(b / 2 * static_cast<double>(K - 1 - k) / static_cast<double>(K - half)));
    x[k] = std::ldexp(uniform(), e);
    if (x[k] == 0) x[k] = 1.0f;
    oracle::mpfr_exact_dot(x, w, k, std::nullopt, dot.get());
    const float so_far = oracle::mpfr_round_to_float(dot.get());
    w[k] = (std::ldexp(uniform(), e) - so_far) / x[k];
  }
  for (std::int64_t k = K - 1; k > 0; --k) {  // the same random permutation of both rows
    const auto j = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(k + 1));
    std::swap(x[k], x[j]);
    std::swap(w[k], w[j]);
  }
}

// Every product -0: X all -0, W all positive (from the family's sampler), bias -0; one time in four
// a single +0 product, which makes the exact sum +0.
void impose_negative_zero(ForwardProblem& p, Rng& rng) {
  for (float& v : p.x) v = -0.0f;
  if (p.bias)
    for (float& v : *p.bias) v = -0.0f;
  if (rng.coin(4)) p.x[rng.next() % p.x.size()] = 0.0f;
}

// Output (0, 0) is made a binary32 rounding tie, 2^e (1 + (2j+1) 2^-24), or, one time in two, that tie
// plus or minus 2^(e-60), a sticky term below binary64's last bit, so that rounding the exact value once
// and rounding it through binary64 differ: three products of row 0 of X and row 0 of W at random k, the
// other products of that pair zero (W's other entries +0), no bias. The family's random values make ties
// by chance only, and rarely beside a sticky term (a double-rounding read-out survived 1,700 cases).
void impose_near_tie(ForwardProblem& p, Rng& rng) {
  if (p.K < 3) return;
  const int e = rng.in_range(-20, 20);
  const float odd = static_cast<float>(2 * rng.in_range(0, 3) + 1);
  const float terms[3] = {std::ldexp(1.0f, e), std::ldexp(odd, e - 24),
                          rng.coin(2) ? 0.0f : (rng.coin(2) ? 1.0f : -1.0f) * std::ldexp(1.0f, e - 60)};
  for (std::int64_t k = 0; k < p.K; ++k) p.w[static_cast<std::size_t>(k)] = 0.0f;
  std::int64_t at[3];
  for (int i = 0; i < 3; ++i) {
    bool taken;
    do {
      at[i] = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(p.K));
      taken = false;
      for (int j = 0; j < i; ++j) taken = taken || at[j] == at[i];
    } while (taken);
    p.x[static_cast<std::size_t>(at[i])] = terms[i];
    p.w[static_cast<std::size_t>(at[i])] = 1.0f;
  }
  if (p.bias) (*p.bias)[0] = 0.0f;
}

}  // namespace

ForwardProblem ForwardCase::materialize() const {
  if (explicit_values) return *explicit_values;
  ForwardProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  Rng rng(seed);
  p.x.resize(static_cast<std::size_t>(M * K));
  p.w.resize(static_cast<std::size_t>(N * K));
  for (float& v : p.x) v = sample_value(family, rng);
  for (float& v : p.w) v = sample_value(family, rng);
  if (has_bias) {
    p.bias.emplace(static_cast<std::size_t>(N));
    for (float& v : *p.bias) v = sample_value(family, rng);
  }
  if (family == ValueFamily::cancellation) impose_cancellation(p);
  if (family == ValueFamily::swamping) impose_swamping(p, rng);
  if (family == ValueFamily::gendot) impose_gendot(p, rng);
  if (family == ValueFamily::negative_zero) impose_negative_zero(p, rng);
  if (family == ValueFamily::ties) impose_near_tie(p, rng);
  if (bf16_operands) {
    for (float& v : p.x) v = oracle::round_to_bf16(v);
    for (float& v : p.w) v = oracle::round_to_bf16(v);
  }
  p.bf16_output = bf16_output;
  return p;
}

std::string ForwardCase::summary() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "M=%lld N=%lld K=%lld %s family=%s seed=0x%016llx%s%s", static_cast<long long>(M),
                static_cast<long long>(N), static_cast<long long>(K), has_bias ? "bias" : "no-bias",
                std::string(family_name(family)).c_str(), static_cast<unsigned long long>(seed),
                explicit_values ? " (values minimised)" : bf16_operands ? " bf16" : "",
                bf16_output ? " y=bf16" : "");
  return buf;
}

rc::Gen<std::int64_t> gen_dimension(std::int64_t max) {
  std::vector<std::int64_t> edges;
  for (std::int64_t e : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 383,
                         384, 385, 1023, 1024, 1025, 4095, 4096, 4097, 5376, 6000})
    if (e <= max) edges.push_back(e);
  // Log-uniform: small and large sizes equally likely per octave. Shrinks towards 1.
  auto log_uniform = rc::gen::map(rc::gen::inRange(0, 1 << 20), [max](int r) {
    const double t = r / double(1 << 20);
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::exp(t * std::log(double(max)))), 1, max);
  });
  return rc::gen::weightedOneOf<std::int64_t>({{2, rc::gen::elementOf(edges)}, {3, log_uniform}});
}

namespace {
// A case from drawn values: the shape rounded up to the subject's multiples, the output BF16 when the options
// allow it and the draw says so.
ForwardCase drawn_case(const CaseOptions& o, std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily f, bool bias,
                       std::uint64_t seed, int out_choice) {
  const std::int64_t km = std::max(1, o.k_multiple), nm = std::max(1, o.n_multiple), mm = std::max(1, o.m_multiple);
  ForwardCase c;
  c.M = (M + mm - 1) / mm * mm;
  c.N = (N + nm - 1) / nm * nm;
  c.K = (K + km - 1) / km * km;
  c.family = f;
  c.has_bias = bias;
  c.seed = seed;
  c.bf16_operands = o.bf16_operands;
  c.bf16_output = o.bf16_output_sometimes && out_choice == 1;
  return c;
}
}  // namespace

rc::Gen<ForwardCase> gen_forward_case(ShapeLimits limits, std::vector<ValueFamily> families, CaseOptions o) {
  return rc::gen::apply(
      [limits, o](std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily f, bool bias, std::uint64_t seed,
                  int out_choice) {
        // Halve the largest dimension until the volume fits: keeps edge sizes in the other two.
        while (M * N * K > limits.max_volume) {
          std::int64_t& largest = (M >= N && M >= K) ? M : (N >= K ? N : K);
          largest = (largest + 1) / 2;
        }
        return drawn_case(o, M, N, K, f, bias, seed, out_choice);
      },
      gen_dimension(limits.max_m), gen_dimension(limits.max_n), gen_dimension(limits.max_k),
      rc::gen::elementOf(families), rc::gen::arbitrary<bool>(), rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::inRange(0, 2));
}

namespace {
rc::Gen<ForwardCase> gen_grid_case(std::vector<ValueFamily> families, CaseOptions o, std::int64_t min_m,
                                   std::int64_t max_m, std::int64_t min_n, std::int64_t max_n, std::int64_t min_k,
                                   std::int64_t max_k) {
  return rc::gen::apply(
      [o](std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily f, bool bias, std::uint64_t seed,
          int out_choice) { return drawn_case(o, M, N, K, f, bias, seed, out_choice); },
      rc::gen::inRange<std::int64_t>(min_m, max_m + 1), rc::gen::inRange<std::int64_t>(min_n, max_n + 1),
      rc::gen::inRange<std::int64_t>(min_k, max_k + 1), rc::gen::elementOf(families), rc::gen::arbitrary<bool>(),
      rc::gen::arbitrary<std::uint64_t>(), rc::gen::inRange(0, 2));
}
}  // namespace

rc::Gen<ForwardCase> gen_large_grid_case(std::vector<ValueFamily> families, CaseOptions o) {
  // K >= 256: the FP32 by-shape variants split a grid's rows only over reductions of 256 steps or more.
  return gen_grid_case(std::move(families), o, 1024, 4096, 1024, 6000, 256, 300);
}

rc::Gen<ForwardCase> gen_wide_rows_case(std::vector<ValueFamily> families, CaseOptions o) {
  return gen_grid_case(std::move(families), o, 1, 128, 16000, 22000, 1, 64);
}

rc::Gen<ForwardCase> gen_weight_grid_case(std::vector<ValueFamily> families, CaseOptions o) {
  return gen_grid_case(std::move(families), o, 512, 1800, 2048, 3000, 1, 100);
}

rc::Gen<ForwardCase> gen_forward_case(ShapeLimits limits, std::vector<ValueFamily> families, bool bf16_operands) {
  return gen_forward_case(limits, std::move(families), CaseOptions{.bf16_operands = bf16_operands});
}

void showValue(const ForwardCase& c, std::ostream& os) {
  os << c.summary();
  if (c.explicit_values) os << "\n" << dump_problem(*c.explicit_values);
}

std::string dump_problem(const ForwardProblem& p, std::size_t max_values) {
  std::ostringstream os;
  auto dump = [&](const char* name, const std::vector<float>& v) {
    os << name << " = [";
    for (std::size_t i = 0; i < v.size() && i < max_values; ++i) os << (i ? ", " : "") << hex_bits(v[i]);
    if (v.size() > max_values) os << ", ... (" << v.size() << " values)";
    os << "]\n";
  };
  os << "M=" << p.M << " N=" << p.N << " K=" << p.K << "\n";
  dump("x", p.x);
  dump("w", p.w);
  if (p.bias) dump("b", *p.bias);
  return os.str();
}

}  // namespace ordo::properties
