#pragma once
// Device-side helpers of the backward GPU tests (backward_kernels_test.cpp, backward_session_test.cpp).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "core/dtype.h"
#include "core/float_bits.h"
#include "core/variant.h"
#include "gpu_test_support.h"
#include "kernels/backward_api.h"

namespace ordo::testing {

inline DType operand_dtype(bool bf16) { return bf16 ? DType::bf16 : DType::f32; }

// An operand as the kernels take it: f32 as it is, or bfloat16 bit patterns (every value must be a
// bfloat16 exactly; throws otherwise).
inline DeviceArray upload_operand(const std::vector<float>& v, bool bf16) {
  if (!bf16) return DeviceArray::from(v);
  std::vector<std::uint16_t> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t u = bits_of(v[i]);
    if ((u & 0xFFFFu) != 0) throw std::runtime_error("operand value " + describe_float(v[i]) + " is not a bfloat16");
    h[i] = static_cast<std::uint16_t>(u >> 16);
  }
  return DeviceArray::from(h);
}

// Poison for outputs: an element nobody writes shows as a NaN with a payload the kernels never produce.
inline constexpr unsigned char kPoison = 0xA5;

// dW [N, K] and db [N] on the device, poisoned, kept across calls (microbatches, sessions).
struct DeviceWeightGrad {
  std::int64_t N, K;
  bool with_db;
  DeviceArray dw, db;
  DeviceWeightGrad(std::int64_t n, std::int64_t k, bool bias)
      : N(n),
        K(k),
        with_db(bias),
        dw(static_cast<std::size_t>(n * k) * sizeof(float)),
        db(bias ? static_cast<std::size_t>(n) * sizeof(float) : 0) {
    dw.fill(kPoison);
    db.fill(kPoison);
  }
  kernels::OutputRef dw_ref() const { return {dw.get(), DType::f32, N, K}; }
  kernels::OutputRef db_ref() const {
    return with_db ? kernels::OutputRef{db.get(), DType::f32, 1, N} : kernels::OutputRef{};
  }
  // Waits for the queued work, then reads both back.
  BackwardWeightResult read() const {
    check_cuda(cudaDeviceSynchronize(), "backward work");
    BackwardWeightResult r;
    r.dw = dw.read<float>();
    if (with_db) r.db = db.read<float>();
    return r;
  }
};

// "" when variant v runs on device 0, else why not.
inline std::string outside_sm_range(const KernelVariant& v) {
  const int sm = kernels::device_info(0).sm;
  if (v.runs_on(sm)) return "";
  return v.id + " claims " + v.contract_id + " on " + v.sm.text() + ", this GPU is sm_" + std::to_string(sm);
}

}  // namespace ordo::testing
