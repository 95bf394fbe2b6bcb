#pragma once
// Launch API of the production fixed-order forward GEMMs: Y = X * W^T + b.
// Host code includes this header only; it has no CUDA types in it, so it compiles with a plain C++
// compiler. The kernels never include oracle code (and the oracle never includes this).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "core/variant.h"
#include "kernels/launch_options.h"

namespace ordo::kernels {

// A dense row-major matrix in device memory (a vector is rows = 1).
struct TensorRef {
  const void* data = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

struct ForwardArgs {
  TensorRef x;                // [M, K]
  TensorRef w;                // [N, K]
  TensorRef bias;             // [1, N], or data == nullptr for no bias
  void* y = nullptr;          // [M, N]
  DType y_dtype = DType::f32;
  std::int64_t y_rows = 0;
  std::int64_t y_cols = 0;
  void* stream = nullptr;     // cudaStream_t; nullptr = the legacy default stream
  LaunchOptions options;      // how the variant runs, never what it computes (the defaults: the production rules)
};

// Every registered variant, production tiles and mutants alike (mutants have is_mutant = true).
const std::vector<KernelVariant>& forward_variants();
const KernelVariant* find_forward_variant(std::string_view id);

// Validates everything first (fail-closed: on any error nothing is launched and y is not written),
// then launches the variant on args.stream. Returns once the launch is queued; errors raised by the
// kernel itself surface at the next synchronisation.
Status forward(std::string_view variant_id, const ForwardArgs& args);

// What the CUDA runtime reports about device `ordinal` (or the reason there is none).
struct DeviceInfo {
  bool present = false;
  std::string reason;  // why not present
  std::string name;
  int sm = 0;  // e.g. 90
  int sm_count = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;  // e.g. 13000
};
DeviceInfo device_info(int ordinal = 0);

}  // namespace ordo::kernels
