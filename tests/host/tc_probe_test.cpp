// The probe's logic, with the host T-FDPA model standing in for the GPU: it must identify the set the
// "hardware" uses, and refuse to pass hardware that matches no known set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/float_bits.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/tc_probe.h"

namespace ordo::properties {
namespace {

// "Hardware" that computes every tile with the model and the given parameters; `perturb` changes
// one output bit pattern in every tile (a planted defect).
TileRunner model_hardware(oracle::TcFdpaParams p, bool perturb = false) {
  return [p, perturb](const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                      const std::vector<float>& c, std::vector<float>& d, int tiles) {
    d.assign(static_cast<std::size_t>(tiles) * 256, 0.0f);
    for (int t = 0; t < tiles; ++t)
      for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 16; ++n) {
          float av[16], bv[16];
          for (int k = 0; k < 16; ++k) {
            av[k] = float_of(static_cast<std::uint32_t>(a[t * 256 + m * 16 + k]) << 16);
            bv[k] = float_of(static_cast<std::uint32_t>(bt[t * 256 + n * 16 + k]) << 16);
          }
          float acc = c[t * 256 + m * 16 + n];
          for (int k0 = 0; k0 < 16; k0 += p.L) acc = oracle::tc_fdpa_step(p, av + k0, bv + k0, std::min(p.L, 16 - k0), acc);
          if (perturb && m == 3 && n == 5) acc = float_of(bits_of(acc) ^ 1u);
          d[t * 256 + m * 16 + n] = acc;
        }
    return Status::success();
  };
}

const PropertyRun& row(const std::vector<PropertyRun>& rows, const std::string& name) {
  for (const PropertyRun& r : rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

ProbeOptions options(int sm) {
  ProbeOptions o;
  o.random_tiles = 200;
  o.device_sm = sm;
  return o;
}

TEST(TcProbe, IdentifiesTheSm90SetAndOnlyIt) {
  const auto rows = run_tc_probe(model_hardware(oracle::tc_fdpa_params_sm90()), options(90));
  for (const PropertyRun& r : rows) EXPECT_TRUE(r.passed()) << r.name << ": " << (r.failures.empty() ? "" : r.failures[0].detail);
  EXPECT_EQ(row(rows, "probe.random_vs_model").cases, 200 * 256);
}

// "Hardware" whose disabled accumulator ignores C (as scale-d = 0 must), optionally returning -0 where
// the model's exact zero is +0 (a planted defect the accumulator-disabled probe must catch).
TileRunner disabled_accumulator(oracle::TcFdpaParams p, bool negative_zero) {
  return [p, negative_zero](const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                            const std::vector<float>& c, std::vector<float>& d, int tiles) {
    const std::vector<float> zeros(c.size(), 0.0f);
    Status s = model_hardware(p)(a, bt, zeros, d, tiles);
    if (negative_zero)
      for (float& v : d)
        if (v == 0.0f) v = -0.0f;
    return s;
  };
}

TEST(TcProbe, AccumulatorDisabledProbePassesWhenItEqualsCPlusZero) {
  const auto p = oracle::tc_fdpa_params_sm90();
  const PropertyRun r = run_accumulator_disabled_probe(model_hardware(p), disabled_accumulator(p, false), options(90));
  EXPECT_TRUE(r.passed()) << (r.failures.empty() ? "" : r.failures[0].detail);
  EXPECT_GT(r.elements, 50 * 256);
}

TEST(TcProbe, AccumulatorDisabledProbeCatchesADifferentZeroSign) {
  const auto p = oracle::tc_fdpa_params_sm90();
  const PropertyRun r = run_accumulator_disabled_probe(model_hardware(p), disabled_accumulator(p, true), options(90));
  EXPECT_FALSE(r.passed());
}

TEST(TcProbe, AccumulatorDisabledProbeCatchesAnAccumulatorThatIsRead) {
  // Passing the poisoned C through (scale-d ignored) turns every output into NaN.
  const auto p = oracle::tc_fdpa_params_sm90();
  const PropertyRun r = run_accumulator_disabled_probe(model_hardware(p), model_hardware(p), options(90));
  EXPECT_FALSE(r.passed());
}

TEST(TcProbe, IdentifiesTheSm80Set) {
  const auto rows = run_tc_probe(model_hardware(oracle::tc_fdpa_params_sm80()), options(86));
  EXPECT_TRUE(row(rows, "probe.parameter_identification").passed());
}

TEST(TcProbe, WrongSetForTheSmFails) {
  const auto rows = run_tc_probe(model_hardware(oracle::tc_fdpa_params_sm80()), options(90));
  EXPECT_FALSE(row(rows, "probe.random_vs_model").passed());
  EXPECT_FALSE(row(rows, "probe.parameter_identification").passed());
}

TEST(TcProbe, HardwareMatchingNoKnownSetIsNeverPassed) {
  const auto rows = run_tc_probe(model_hardware({16, 27, -133}), options(90));
  const PropertyRun& id = row(rows, "probe.parameter_identification");
  ASSERT_FALSE(id.passed());
  EXPECT_NE(id.failures[0].detail.find("MATCHES NO KNOWN PARAMETER SET"), std::string::npos) << id.failures[0].detail;
}

TEST(TcProbe, OneWrongBitPerTileIsCaught) {
  const auto rows = run_tc_probe(model_hardware(oracle::tc_fdpa_params_sm90(), true), options(90));
  EXPECT_EQ(row(rows, "probe.random_vs_model").failed, 200);
}

TEST(TcProbe, UnknownArchitectureIsNotPassed) {
  const auto rows = run_tc_probe(model_hardware(oracle::tc_fdpa_params_sm90()), options(100));
  EXPECT_FALSE(row(rows, "probe.random_vs_model").passed());
}

}  // namespace
}  // namespace ordo::properties
