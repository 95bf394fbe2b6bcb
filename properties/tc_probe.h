#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/status.h"
#include "properties/property_runner.h"

namespace ordo::properties {

// Runs `tiles` 16x16x16 BF16 tensor-core products D = A*B + C (layout of kernels/probe_api.h). On a GPU
// this is the wmma/mma.sync micro-kernel; in tests, the host model stands in for it.
using TileRunner = std::function<Status(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                                        const std::vector<float>& c, std::vector<float>& d, int tiles)>;

struct ProbeOptions {
  int random_tiles = 4000;  // x 256 outputs
  std::uint64_t seed = 1;
  int device_sm = 0;        // selects the parameter set the model is expected to match (80-89, 90)
  std::string instruction = "mma.sync.m16n8k16.bf16 (via wmma 16x16x16)";
};

// Measures the tensor-core arithmetic against the T-FDPA model (numerics §2): a random differential
// test against every candidate parameter set (which one matches, and that only one does), and
// targeted probes of rounding, accumulator truncation, NaN bits, Inf rules, the sign of an exact zero,
// overflow and subnormal inputs. One row per measurement, named probe.*.
std::vector<PropertyRun> run_tc_probe(const TileRunner& run_tiles, const ProbeOptions& options);

// wgmma can disable its accumulator (scale-d = 0) instead of reading C. One row,
// probe.accumulator_disabled_equals_c_plus_zero: random and targeted tiles run once with C = +0 read
// as the accumulator (`with_c`) and once with the accumulator disabled and C poisoned with NaN
// (`disabled`); every output must agree bit for bit (and with the model at C = +0), so that a kernel
// may start its chain either way.
PropertyRun run_accumulator_disabled_probe(const TileRunner& with_c, const TileRunner& disabled,
                                           const ProbeOptions& options);

}  // namespace ordo::properties
