#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/backward_problem.h"
#include "core/status.h"

namespace ordo {

struct BackwardWeightRun {
  Status status;
  BackwardWeightResult result;  // when status is ok
};

// Runs backward problems and returns the output bits; the backward properties are written once
// against this interface. A backend is a registered CUDA variant or the host emulator of a contract.
class BackwardBackend {
 public:
  virtual ~BackwardBackend() = default;
  virtual std::string name() const = 0;       // "emulator", "cuda"
  virtual std::string kernel_id() const = 0;  // the variant, or the emulator's own id
  virtual std::string contract_id() const = 0;
  // dX (data variants and bwd.dx.* emulators); the result's y holds dX [M, K].
  virtual BackendResult data(const BackwardDataProblem& p) = 0;
  // dW and db of the microbatches, one call each, the first from +0 and each later one continuing the
  // chains (the kernels' accumulate; the emulator's in-order session). One microbatch: a whole-batch call.
  virtual BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) = 0;
};

// The host emulator of a backward contract, e.g. "bwd.dw.f32.fma-chain/1".
std::unique_ptr<BackwardBackend> make_backward_emulator_backend(const std::string& contract_id);
// A registered backward CUDA variant, run on device 0.
std::unique_ptr<BackwardBackend> make_backward_cuda_backend(const std::string& variant_id);

}  // namespace ordo
