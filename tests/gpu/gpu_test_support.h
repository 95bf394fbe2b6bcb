#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/forward_internal.h"

namespace ordo::testing {

// Skips the test, with the reason, when no CUDA device is usable. Every GPU test derives from this.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// The production (non-mutant) forward variants whose SM range includes device 0 (the others are
// named on stdout as not run), and the mutants.
std::vector<std::string> production_forward_variants();
std::vector<std::string> mutant_forward_variants();

// Throws std::runtime_error naming `what` when a CUDA call failed.
inline void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// One device allocation owned by a test (none for 0 bytes: the pointer is then null).
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ > 0) check_cuda(cudaMalloc(&p_, bytes_), "cudaMalloc");
  }
  template <class T>
  static DeviceArray from(const std::vector<T>& v) {
    DeviceArray a(v.size() * sizeof(T));
    if (a.p_) check_cuda(cudaMemcpy(a.p_, v.data(), a.bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
    return a;
  }
  ~DeviceArray() {
    if (p_) cudaFree(p_);
  }
  DeviceArray(DeviceArray&& o) noexcept : p_(std::exchange(o.p_, nullptr)), bytes_(o.bytes_) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }
  void fill(unsigned char byte) const {
    if (p_) check_cuda(cudaMemset(p_, byte, bytes_), "cudaMemset");
  }
  template <class T>
  std::vector<T> read() const {
    std::vector<T> v(bytes_ / sizeof(T));
    if (p_) check_cuda(cudaMemcpy(v.data(), p_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy to host");
    return v;
  }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// The batch sizes that probe a rule choosing a tile from the row count M: max_m, then M_s - 1 and M_s at every
// M_s in 2..max_m where choose(M_s) differs from choose(M_s - 1) (the by-shape variants' switch points).
// Adds the number of switch points to *switches.
template <class Choose>
std::vector<std::int64_t> switch_point_batches(const Choose& choose, std::int64_t max_m, int* switches) {
  std::vector<std::int64_t> batches{max_m};
  for (std::int64_t m = 2; m <= max_m; ++m)
    if (choose(m) != choose(m - 1)) {
      batches.push_back(m - 1);
      batches.push_back(m);
      ++*switches;
    }
  return batches;
}

// A by-shape plan (kernels::detail::plan_by_shape, plan_dx_by_shape) of M rows as one number for
// switch_point_batches: its tile, and up to kSplitRowsTested rows also its second tile and the row that tile
// starts at. 5376 columns split from M = 769 on; the splits of the first two waves (M up to 1152, and 1537 to
// 1920) take the batches to 11 M outputs. Past 2048 rows the number is the first tile alone, which still
// changes where a split starts or ends (a split's head runs the 4-warp tile), so those points are probed but
// not every change of the second tile, which would add seconds of batches of tens of millions of outputs for
// the same two launches.
inline constexpr std::int64_t kSplitRowsTested = 2048;
inline std::int64_t plan_code(const kernels::detail::ByShapePlan& p, std::int64_t M) {
  if (M > kSplitRowsTested) return p.tile;
  return p.tile + 64 * (p.tail_tile + 1) + 4096 * (p.tail_tile < 0 ? 0 : p.rows);
}

}  // namespace ordo::testing
