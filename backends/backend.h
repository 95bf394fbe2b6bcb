#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace ordo {

struct BackendResult {
  Status status;
  std::vector<float> y;  // [M, N] row-major when status is ok
};

// Runs a forward problem and returns the output bits. The properties are written once against this
// interface; a backend is the CUDA kernels, the host emulator, or anything else that claims a contract.
class ForwardBackend {
 public:
  virtual ~ForwardBackend() = default;
  virtual std::string name() const = 0;         // "emulator", "cuda"
  virtual std::string kernel_id() const = 0;    // the variant, or the emulator's own id
  virtual std::string contract_id() const = 0;
  virtual BackendResult forward(const ForwardProblem& p) = 0;
};

// The host emulator of a contract (oracle/), e.g. "fwd.f32.fma-chain/1".
std::unique_ptr<ForwardBackend> make_emulator_backend(const std::string& contract_id);
// The plain scalar host reference of the same contract (oracle/fma_chain_reference.cpp).
std::unique_ptr<ForwardBackend> make_scalar_reference_backend(const std::string& contract_id);
// A registered CUDA variant (kernels/), run on device 0.
std::unique_ptr<ForwardBackend> make_cuda_backend(const std::string& variant_id);

}  // namespace ordo
