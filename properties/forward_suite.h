#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/backward_backend.h"
#include "properties/property_runner.h"

namespace ordo::properties {

// The suite `ordo verify` runs, by level:
//   level 1 (default; CI): every host property at 500 cases; GPU properties at 200-1,000 cases.
//   level 2 (qualifying a kernel on a GPU): host properties at 2,000 cases; kernel == emulator at 10,000
//            cases per variant, the other GPU properties at 1,000; shapes up to M = 4096, K, N = 6000.
struct SuiteOptions {
  int level = 1;
  bool gpu = false;                        // the GPU properties are added only when a device is present
  std::vector<std::string> gpu_variants;   // production variants to qualify
  std::vector<std::string> mutant_variants;  // deliberately broken variants the suite must catch
  int device_sm = 0;  // the GPU's SM (0: unknown); variants outside their SM range are not run
  std::vector<std::string> backward_variants;  // production dX and dW variants (kernels/backward_api.h)
  std::vector<std::string> backward_mutants;   // deliberately broken backward variants
};

// Backends live as long as the suite that refers to them.
struct Suite {
  std::vector<std::unique_ptr<ForwardBackend>> backends;
  std::vector<std::unique_ptr<BackwardBackend>> backward_backends;
  std::vector<PropertySpec> properties;
};

Suite build_forward_suite(const SuiteOptions& options);

// The backward properties (properties/backward_suite.cpp): on the host emulators of every backward
// contract, and, when options.gpu, on options.backward_variants and backward_mutants.
void add_backward_properties(Suite& suite, const SuiteOptions& options);

ShapeLimits host_shape_limits();
ShapeLimits gpu_shape_limits(int level);

}  // namespace ordo::properties
