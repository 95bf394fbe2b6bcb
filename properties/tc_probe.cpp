#include "properties/tc_probe.h"

#include <bit>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "core/float_bits.h"
#include "core/variant.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/value_families.h"

namespace ordo::properties {
namespace {

using oracle::TcFdpaParams;

struct Candidate {
  std::string name;
  TcFdpaParams params;
};

// The published sets and their nearest neighbours: the model is "sharp" only if the neighbours fail.
std::vector<Candidate> candidates() {
  return {{"sm80 (L=8, F=24, e_zero=-132)", oracle::tc_fdpa_params_sm80()},
          {"sm90 (L=16, F=25, e_zero=-133)", oracle::tc_fdpa_params_sm90()},
          {"L=16, F=24, e_zero=-132", {16, 24, -132}},
          {"L=8, F=25, e_zero=-133", {8, 25, -133}},
          {"L=16, F=26, e_zero=-133", {16, 26, -133}},
          {"L=4, F=24, e_zero=-132", {4, 24, -132}}};
}

std::optional<std::size_t> expected_candidate(int sm) {
  if (SmRange{80, 89}.contains(sm)) return 0;
  if (SmRange{90, 90}.contains(sm)) return 1;
  return std::nullopt;
}

// bfloat16 bits of a value (rounded to nearest even); a NaN keeps its own upper 16 bits (payload, sign).
std::uint16_t bf16_bits(float f) {
  return static_cast<std::uint16_t>((std::isnan(f) ? bits_of(f) : bits_of(oracle::round_to_bf16(f))) >> 16);
}
float bf16_value(std::uint16_t b) { return float_of(static_cast<std::uint32_t>(b) << 16); }

struct Tiles {
  int count = 0;
  std::vector<std::uint16_t> a, bt;
  std::vector<float> c;
  explicit Tiles(int n)
      : count(n),
        a(static_cast<std::size_t>(n) * 256, 0),
        bt(static_cast<std::size_t>(n) * 256, 0),
        c(static_cast<std::size_t>(n) * 256, 0.0f) {}
};

// The model's value of output (m, n) of tile t: the instruction's k = 0..15 as steps of L products.
float model_output(const TcFdpaParams& p, const Tiles& t, int tile, int m, int n) {
  float a[16], b[16];
  for (int k = 0; k < 16; ++k) {
    a[k] = bf16_value(t.a[tile * 256 + m * 16 + k]);
    b[k] = bf16_value(t.bt[tile * 256 + n * 16 + k]);
  }
  float c = t.c[tile * 256 + m * 16 + n];
  for (int k0 = 0; k0 < 16; k0 += p.L) c = oracle::tc_fdpa_step(p, a + k0, b + k0, std::min(p.L, 16 - k0), c);
  return c;
}

float random_bf16(Rng& rng, int min_exp, int max_exp) {
  const int e = rng.in_range(min_exp, max_exp);
  const float mant = 1.0f + static_cast<float>(rng.next() % 128) / 128.0f;
  return oracle::round_to_bf16(std::ldexp(rng.coin(2) ? -mant : mant, e));
}

// Random tiles in five families: everyday values, wide exponents, cancelling pairs, subnormal inputs,
// and accumulators far above or below the products (alignment truncation of C or of the products).
Tiles random_tiles(int count, std::uint64_t seed) {
  Tiles t(count);
  Rng rng(seed);
  for (int tile = 0; tile < count; ++tile) {
    const int family = tile % 5;
    for (int i = 0; i < 256; ++i) {
      float av, bv, cv;
      switch (family) {
        case 0: av = random_bf16(rng, -10, 10); bv = random_bf16(rng, -10, 10); cv = rng.coin(4) ? 0.0f : std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng.next())), -40); break;
        case 1: av = random_bf16(rng, -60, 60); bv = random_bf16(rng, -60, 60); cv = std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng.next())), rng.in_range(-100, 60)); break;
        case 2: av = random_bf16(rng, -4, 4); bv = random_bf16(rng, -4, 4); cv = rng.coin(2) ? 0.0f : std::ldexp(1.0f, rng.in_range(-30, 0)); break;
        case 3:
          av = rng.coin(2) ? bf16_value(static_cast<std::uint16_t>((rng.coin(2) ? 0x8000 : 0) | (1 + rng.next() % 127))) : random_bf16(rng, -126, -100);
          bv = rng.coin(3) ? random_bf16(rng, -126, -110) : random_bf16(rng, -2, 40);  // some sums far below 2^-149
          cv = rng.coin(2) ? 0.0f : std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng.next())), -160);
          break;
        default: av = random_bf16(rng, -3, 3); bv = random_bf16(rng, -3, 3); cv = std::ldexp(static_cast<float>(static_cast<std::int32_t>(rng.next())), rng.coin(2) ? -10 : -70); break;
      }
      t.a[tile * 256 + i] = bf16_bits(av);
      t.bt[tile * 256 + i] = bf16_bits(bv);
      t.c[tile * 256 + i] = cv;
    }
    if (family == 2)  // k pairs cancel: a[m][2j+1] = a[m][2j], b[2j+1][n] = -b[2j][n]
      for (int r = 0; r < 16; ++r)
        for (int k = 0; k < 16; k += 2) {
          t.a[tile * 256 + r * 16 + k + 1] = t.a[tile * 256 + r * 16 + k];
          t.bt[tile * 256 + r * 16 + k + 1] = static_cast<std::uint16_t>(t.bt[tile * 256 + r * 16 + k] ^ 0x8000);
        }
  }
  return t;
}

PropertyRun make_row(const std::string& name, const std::string& description, const std::string& kernel,
                     const std::string& contract) {
  return named_run(name, description, "cuda", kernel, contract);
}

// One targeted probe: D[0][0] of a tile whose row 0 of A, column 0 of B and C[0][0] are given.
struct Targeted {
  std::string name;
  std::string what;
  std::vector<float> a, b;  // k = 0.. (rest zero)
  float c;
};

std::vector<Targeted> targeted_probes() {
  const float u25 = std::ldexp(1.0f, -25);
  const float big = std::ldexp(1.5f, 127);
  return {
      {"probe.rounding_toward_zero", "1*1 + 1.5*2^-24 gives 1 (truncation) rather than 1 + 2^-23 (nearest)",
       {1.0f, 3 * u25}, {1.0f, 1.0f}, 0.0f},
      {"probe.accumulator_truncated_in_alignment", "C = 2^-30 with products 1 and -1 gives 0: C falls below 2^(E-F)",
       {1.0f, 1.0f}, {1.0f, -1.0f}, std::ldexp(1.0f, -30)},
      {"probe.nan_bits", "a NaN operand (bf16 0x7fc1) gives the NaN bits", {float_of(0x7FC10000u)}, {1.0f}, 0.0f},
      {"probe.inf_times_zero", "Inf * 0 gives NaN", {INFINITY}, {0.0f}, 0.0f},
      {"probe.inf_minus_inf", "+Inf and -Inf in one step give NaN", {INFINITY, INFINITY}, {1.0f, -1.0f}, 0.0f},
      {"probe.inf_propagates", "+Inf times 1 with finite others gives +Inf", {INFINITY, 1.0f}, {1.0f, 1.0f}, 0.0f},
      {"probe.exact_zero_sign_cancel", "1*1 + 1*(-1) with C = -0: the sign of an exact zero", {1.0f, 1.0f},
       {1.0f, -1.0f}, -0.0f},
      {"probe.exact_zero_sign_all_negative", "all products -0 and C = -0: the sign of an exact zero", {-0.0f},
       {1.0f}, -0.0f},
      {"probe.underflow_to_zero_sign", "-2^-133 * 2^-133 (a non-zero sum far below 2^-149) truncates to which zero",
       {-std::ldexp(1.0f, -133)}, {std::ldexp(1.0f, -133)}, 0.0f},
      {"probe.overflow", "1.5*2^127 * 1 twice: a sum >= 2^128", {big, big}, {1.0f, 1.0f}, 0.0f},
      {"probe.subnormal_input", "a subnormal bf16 (2^-133) times 2^100 is kept exactly (2^-33)",
       {std::ldexp(1.0f, -133)}, {std::ldexp(1.0f, 100)}, 0.0f},
      {"probe.subnormal_result", "2^-70 * 2^-70 plus C = 2^-140 gives a subnormal FP32 result", {std::ldexp(1.0f, -70)},
       {std::ldexp(1.0f, -70)}, std::ldexp(1.0f, -140)},
  };
}

}  // namespace

std::vector<PropertyRun> run_tc_probe(const TileRunner& run_tiles, const ProbeOptions& o) {
  std::vector<PropertyRun> rows;
  const auto cands = candidates();
  const std::optional<std::size_t> expected = expected_candidate(o.device_sm);
  const std::string kernel = o.instruction + " on sm_" + std::to_string(o.device_sm);
  const std::string contract = expected ? "model.tc-fdpa." + cands[*expected].name.substr(0, 4) : "model.tc-fdpa.unknown";
  const auto start = std::chrono::steady_clock::now();

  // 1. Random differential test against every candidate set.
  const Tiles tiles = random_tiles(o.random_tiles, o.seed);
  std::vector<float> d;
  Status s = run_tiles(tiles.a, tiles.bt, tiles.c, d, tiles.count);
  if (!s.ok()) {
    PropertyRun r = make_row("probe.random_vs_model", "tensor-core outputs vs the T-FDPA model", kernel, contract);
    r.tool_errors = 1;
    r.failures.push_back({"ordo probe", "could not run the probe kernel: " + s.to_string(), "", "", 0});
    rows.push_back(r);
    return rows;
  }
  std::vector<std::int64_t> mismatches(cands.size(), 0);
  std::string first_mismatch;
  for (int tile = 0; tile < tiles.count; ++tile)
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 16; ++n) {
        const float got = d[tile * 256 + m * 16 + n];
        for (std::size_t ci = 0; ci < cands.size(); ++ci) {
          const float want = model_output(cands[ci].params, tiles, tile, m, n);
          if (bits_of(got) == bits_of(want)) continue;
          ++mismatches[ci];
          if (expected && ci == *expected && first_mismatch.empty())
            first_mismatch = "tile " + std::to_string(tile) + " (family " + std::to_string(tile % 5) + ") [" +
                             std::to_string(m) + "," + std::to_string(n) + "]: GPU " + describe_float(got) +
                             ", model " + describe_float(want) + ", C " + describe_float(tiles.c[tile * 256 + m * 16 + n]);
        }
      }
  const std::int64_t outputs = static_cast<std::int64_t>(tiles.count) * 256;
  {
    PropertyRun r = make_row("probe.random_vs_model",
                             "every output of random BF16 tensor-core products equals the T-FDPA model bit for bit "
                             "(expected parameter set for this SM)",
                             kernel, contract);
    r.cases = outputs;
    r.elements = outputs;
    r.families = {{"everyday", outputs / 5}, {"wide_exponent", outputs / 5}, {"cancellation", outputs / 5},
                  {"subnormal", outputs / 5}, {"accumulator_scale", outputs / 5}};
    if (!expected) {
      r.failed = outputs;
      r.failures.push_back({"ordo probe", "no known T-FDPA parameter set for sm_" + std::to_string(o.device_sm), "", "", 0});
    } else if (mismatches[*expected] > 0) {
      r.failed = mismatches[*expected];
      r.failures.push_back({"ordo probe --seed " + std::to_string(o.seed), first_mismatch, "", "", 0});
    }
    rows.push_back(r);
  }
  {
    PropertyRun r = make_row("probe.parameter_identification",
                             "exactly one known parameter set reproduces every output, and it is the one expected for "
                             "this SM; its neighbours do not",
                             kernel, contract);
    std::string detail;
    int matching = 0;
    for (std::size_t ci = 0; ci < cands.size(); ++ci) {
      detail += cands[ci].name + ": " + std::to_string(mismatches[ci]) + " of " + std::to_string(outputs) + " differ; ";
      matching += mismatches[ci] == 0;
    }
    r.cases = static_cast<std::int64_t>(cands.size());
    const bool ok = expected && mismatches[*expected] == 0 && matching == 1;
    r.failed = ok ? 0 : 1;
    r.failures.push_back({"ordo probe", (ok ? "identified: " : matching == 0 ? "MATCHES NO KNOWN PARAMETER SET: " : "not identified: ") + detail, "", "", 0});
    if (ok) r.failures.clear(), r.description += ". " + detail;
    rows.push_back(r);
  }

  // 2. Targeted probes, one tile each.
  const auto probes = targeted_probes();
  Tiles t(static_cast<int>(probes.size()));
  for (std::size_t i = 0; i < probes.size(); ++i) {
    for (std::size_t k = 0; k < probes[i].a.size(); ++k) {
      t.a[i * 256 + k] = bf16_bits(probes[i].a[k]);
      t.bt[i * 256 + k] = bf16_bits(probes[i].b[k]);
    }
    t.c[i * 256] = probes[i].c;
  }
  s = run_tiles(t.a, t.bt, t.c, d, t.count);
  const TcFdpaParams model = cands[expected.value_or(1)].params;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    PropertyRun r = make_row(probes[i].name, probes[i].what, kernel, contract);
    r.cases = 1;
    r.elements = 1;
    if (!s.ok()) {
      r.tool_errors = 1;
      r.failures.push_back({"ordo probe", s.to_string(), "", "", 0});
    } else {
      const float got = d[i * 256], want = model_output(model, t, static_cast<int>(i), 0, 0);
      const std::string measured = "measured " + describe_float(got) + ", model " + describe_float(want);
      r.description += " (" + measured + ")";
      if (bits_of(got) != bits_of(want) || !expected) {
        r.failed = 1;
        r.failures.push_back({"ordo probe", measured, "", "", 0});
      }
    }
    rows.push_back(r);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (PropertyRun& r : rows) r.seconds = seconds / static_cast<double>(rows.size());
  return rows;
}

PropertyRun run_accumulator_disabled_probe(const TileRunner& with_c, const TileRunner& disabled,
                                           const ProbeOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const auto cands = candidates();
  const TcFdpaParams model = cands[expected_candidate(o.device_sm).value_or(1)].params;
  PropertyRun r = make_row("probe.accumulator_disabled_equals_c_plus_zero",
                           "the instruction with its accumulator disabled (scale-d = 0, C poisoned with NaN) equals "
                           "the instruction with C = +0, bit for bit, and both equal the model at C = +0",
                           o.instruction + " on sm_" + std::to_string(o.device_sm),
                           "model.tc-fdpa." + cands[expected_candidate(o.device_sm).value_or(1)].name.substr(0, 4));
  // Random tiles, then the targeted ones (exact zeros of either sign among them), all with C = +0.
  Tiles tiles = random_tiles(std::max(1, o.random_tiles / 4), o.seed + 7);
  const auto probes = targeted_probes();
  const int random_count = tiles.count;
  Tiles all(random_count + static_cast<int>(probes.size()));
  std::copy(tiles.a.begin(), tiles.a.end(), all.a.begin());
  std::copy(tiles.bt.begin(), tiles.bt.end(), all.bt.begin());
  for (std::size_t i = 0; i < probes.size(); ++i)
    for (std::size_t k = 0; k < probes[i].a.size(); ++k) {
      all.a[(random_count + i) * 256 + k] = bf16_bits(probes[i].a[k]);
      all.bt[(random_count + i) * 256 + k] = bf16_bits(probes[i].b[k]);
    }
  std::fill(all.c.begin(), all.c.end(), 0.0f);
  const std::vector<float> poisoned(all.c.size(), float_of(0x7FC00000u));
  std::vector<float> d_c, d_off;
  Status s = with_c(all.a, all.bt, all.c, d_c, all.count);
  if (s.ok()) s = disabled(all.a, all.bt, poisoned, d_off, all.count);
  if (!s.ok()) {
    r.tool_errors = 1;
    r.failures.push_back({"ordo probe", "could not run the probe kernel: " + s.to_string(), "", "", 0});
    return r;
  }
  const std::int64_t outputs = static_cast<std::int64_t>(all.count) * 256;
  r.cases = all.count;
  r.elements = outputs;
  for (int tile = 0; tile < all.count; ++tile)
    for (int i = 0; i < 256; ++i) {
      const float a = d_c[tile * 256 + i], b = d_off[tile * 256 + i];
      const float want = model_output(model, all, tile, i / 16, i % 16);
      if (bits_of(a) == bits_of(b) && bits_of(a) == bits_of(want)) continue;
      if (r.failed++ == 0)
        r.failures.push_back({"ordo probe --seed " + std::to_string(o.seed),
                              "tile " + std::to_string(tile) + (tile >= random_count ? " (targeted)" : "") + " [" +
                                  std::to_string(i / 16) + "," + std::to_string(i % 16) + "]: C = +0 gives " +
                                  describe_float(a) + ", accumulator disabled gives " + describe_float(b) +
                                  ", model " + describe_float(want),
                              "", "", 0});
    }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace ordo::properties
