#pragma once
// Plain helpers shared by the files of ordo_bench_forward: the shape type, fatal errors with the
// bench's exit codes, a device allocation that frees itself, and the statistics of a row.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ordo::bench {

struct Shape {
  std::int64_t M = 0, N = 0, K = 0;
};

// Exit codes of the bench (--help lists them).
inline constexpr int kExitError = 1;  // error, or a kernel output that does not match cuBLAS
inline constexpr int kExitNoGpu = 2;

// Prints "ordo_bench_forward: msg" on stderr and exits with `code`.
[[noreturn]] void die(const std::string& msg, int code = kExitError);
void check_cuda(cudaError_t e, const char* what);
// For the int status of the helpers in bench_kernels.h (a cudaError_t value).
void check_int(int e, const char* what);

// One cudaMalloc of at least one byte, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

double median(std::vector<double> v);
// 2*M*N*K / time, in TFLOP/s (time in milliseconds).
double tflops(const Shape& s, double ms);
std::string json_escape(const std::string& s);
// "1.23 GiB" style, for the allocation summary.
std::string human_bytes(std::size_t bytes);

}  // namespace ordo::bench
