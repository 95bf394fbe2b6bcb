// Helpers shared by the files of ordo_bench_forward and ordo_bench_tiles (bench_common.h).
#include "bench/bench_common.h"

#include <algorithm>
#include <cerrno>  // program_invocation_short_name (GNU)
#include <cstdio>
#include <cstdlib>

namespace ordo::bench {

void die(const std::string& msg, int code) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, msg.c_str());  // the bench that failed
  std::exit(code);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check_int(int e, const char* what) { check_cuda(static_cast<cudaError_t>(e), what); }

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 1)) {
  const cudaError_t e = cudaMalloc(&p_, bytes_);
  if (e != cudaSuccess) {
    p_ = nullptr;
    size_t free_b = 0, total_b = 0;
    (void)cudaMemGetInfo(&free_b, &total_b);
    die("cudaMalloc(" + human_bytes(bytes_) + "): " + cudaGetErrorName(e) + " (device memory free " +
        human_bytes(free_b) + " of " + human_bytes(total_b) + ")");
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (p_) cudaFree(p_);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tflops(const Shape& s, double ms) {
  if (ms <= 0) return 0.0;
  return 2.0 * static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K) / (ms * 1e-3) / 1e12;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

std::string human_bytes(std::size_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  return buf;
}

}  // namespace ordo::bench
