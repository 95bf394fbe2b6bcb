// ordo_bench_forward: times a forward variant (default: the production tile) against cuBLAS SGEMM in
// one process, on the same inputs, with CUDA events.
//
// Method, per shape:
//   * X [M,K], W [N,K] uniform random in [-1,1) (generated on the device; no bias, since cuBLAS has none).
//   * One correctness check: the kernel's Y against cuBLAS's Y, max|diff| / max|y_cublas| < 1e-4, so that
//     a broken kernel is never reported as a fast one (a WARNING line is printed otherwise, and the row
//     is marked in the JSON).
//   * --warmup untimed calls of each, then --reps timed calls of each, interleaved. Before every timed
//     call a spin kernel keeps the GPU busy for ~50 us, so the host time of the call (the kernel's
//     fail-closed validation, cuBLAS's heuristics, the launch) is hidden and the two events bracket GPU
//     time only. The median is reported.
//   * The same buffers are used for every rep, so inputs whose total size fits in L2 are L2-resident
//     (warm) after the first rep; larger ones are not. The table says which.
// cuBLAS: cublasSgemm with CUBLAS_DEFAULT_MATH, which never uses TF32 for SGEMM; the process refuses to
// run if NVIDIA_TF32_OVERRIDE is set to anything but "0".
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_kernels.h"
#include "kernels/forward_api.h"

namespace {

constexpr const char* kDefaultVariant = "sm80.fwd.f32.fma.simt.128x128x16";
constexpr double kTolerance = 1e-4;
constexpr std::uint64_t kSpinNs = 50'000;

struct Shape {
  std::int64_t M, N, K;
};

struct Row {
  Shape s;
  double ms = 0, cublas_ms = 0;
  double rel_diff = 0;
  bool matches = false;
  bool l2_resident = false;
};

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: ordo_bench_forward [options]\n"
               "Times a fixed-order forward variant against cuBLAS SGEMM (FP32, no TF32) on the current GPU.\n"
               "  --variant ID        variant to time (default %s)\n"
               "  --shapes \"M,N,K;..\"  shapes to run (default: M in {64,1024,4096,16384} x\n"
               "                      (K,N) in {(32,5376),(5376,32),(5376,5376)})\n"
               "  --reps N            timed runs per shape and implementation (default 20); median reported\n"
               "  --warmup N          untimed runs before timing (default 3)\n"
               "  --json PATH         also write the results as JSON\n"
               "  --help              this text\n"
               "Exit codes: 0 ok, 1 error or a kernel output that does not match cuBLAS, 2 no GPU.\n",
               kDefaultVariant);
}

[[noreturn]] void die(const std::string& msg, int code = 1) {
  std::fprintf(stderr, "ordo_bench_forward: %s\n", msg.c_str());
  std::exit(code);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
void check_int(int e, const char* what) { check_cuda(static_cast<cudaError_t>(e), what); }
void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) die(std::string(what) + ": cuBLAS status " + std::to_string(static_cast<int>(s)));
}

std::int64_t parse_int(const std::string& s, const char* what) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v <= 0) die(std::string("bad ") + what + ": \"" + s + "\"");
  return v;
}

std::vector<Shape> parse_shapes(const std::string& spec) {
  std::vector<Shape> out;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t semi = std::min(spec.find(';', pos), spec.size());
    const std::string item = spec.substr(pos, semi - pos);
    pos = semi + 1;
    if (item.empty()) continue;
    const std::size_t c1 = item.find(','), c2 = c1 == std::string::npos ? c1 : item.find(',', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos || item.find(',', c2 + 1) != std::string::npos)
      die("bad shape \"" + item + "\" (want M,N,K)");
    out.push_back({parse_int(item.substr(0, c1), "M"), parse_int(item.substr(c1 + 1, c2 - c1 - 1), "N"),
                   parse_int(item.substr(c2 + 1), "K")});
  }
  if (out.empty()) die("--shapes has no shape");
  return out;
}

std::vector<Shape> default_shapes() {
  std::vector<Shape> out;
  for (std::int64_t M : {64, 1024, 4096, 16384})
    for (auto [K, N] : {std::pair<std::int64_t, std::int64_t>{32, 5376}, {5376, 32}, {5376, 5376}})
      out.push_back({M, N, K});
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tflops(const Shape& s, double ms) {
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

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t floats) {
    check_cuda(cudaMalloc(&p_, std::max<std::size_t>(floats, 1) * sizeof(float)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  float* get() const { return static_cast<float*>(p_); }

 private:
  void* p_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  std::string variant = kDefaultVariant, json_path;
  std::vector<Shape> shapes = default_shapes();
  int reps = 20, warmup = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--variant") {
      variant = value();
    } else if (a == "--shapes") {
      shapes = parse_shapes(value());
    } else if (a == "--reps") {
      reps = static_cast<int>(std::min<std::int64_t>(parse_int(value(), "--reps"), 100000));
    } else if (a == "--warmup") {
      const std::string v = value();
      warmup = v == "0" ? 0 : static_cast<int>(std::min<std::int64_t>(parse_int(v, "--warmup"), 100000));
    } else if (a == "--json") {
      json_path = value();
    } else {
      usage(stderr);
      die("unknown argument \"" + a + "\"");
    }
  }

  const char* tf32_env = std::getenv("NVIDIA_TF32_OVERRIDE");
  const std::string tf32 = tf32_env ? tf32_env : "(unset)";
  std::printf("NVIDIA_TF32_OVERRIDE=%s\n", tf32.c_str());
  if (tf32_env && std::strcmp(tf32_env, "0") != 0)
    die("NVIDIA_TF32_OVERRIDE must be unset or \"0\": cuBLAS SGEMM must run in full FP32");

  const ordo::KernelVariant* v = ordo::kernels::find_forward_variant(variant);
  if (!v) die("unknown variant \"" + variant + "\"");

  const ordo::kernels::DeviceInfo dev = ordo::kernels::device_info(0);
  if (!dev.present) die("no CUDA GPU: " + dev.reason, 2);
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  int l2_bytes = 0;
  check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute(L2)");

  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  check_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  int cublas_version = 0;
  check_cublas(cublasGetVersion(handle, &cublas_version), "cublasGetVersion");

  std::printf("GPU: %s (sm_%d, %d SMs, L2 %d MiB), driver %d, runtime %d, cuBLAS %d\n", dev.name.c_str(), dev.sm,
              dev.sm_count, l2_bytes >> 20, dev.driver_version, dev.runtime_version, cublas_version);
  std::printf("variant: %s%s\n", v->id.c_str(), v->is_mutant ? " (MUTANT)" : "");
  std::printf("reps %d (median), warmup %d; cuBLAS: cublasSgemm, CUBLAS_DEFAULT_MATH (no TF32)\n\n", reps, warmup);

  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
  check_cuda(cudaEventCreate(&e1), "cudaEventCreate");

  std::vector<Row> rows;
  std::printf("%7s %7s %7s %11s %11s %7s %10s %10s  %s\n", "M", "N", "K", "kernel_ms", "cublas_ms", "ratio",
              "kern_TF/s", "cubl_TF/s", "data");
  for (const Shape& s : shapes) {
    const auto xs = static_cast<std::size_t>(s.M * s.K), ws = static_cast<std::size_t>(s.N * s.K),
               ys = static_cast<std::size_t>(s.M * s.N);
    DeviceBuffer x(xs), w(ws), yk(ys), yc(ys);
    check_int(ordo::bench::fill_uniform(x.get(), xs, 0x5eed0001ull, stream), "fill x");
    check_int(ordo::bench::fill_uniform(w.get(), ws, 0x5eed0002ull, stream), "fill w");
    check_cuda(cudaMemsetAsync(yk.get(), 0xff, ys * sizeof(float), stream), "cudaMemset");  // NaN poison
    check_cuda(cudaMemsetAsync(yc.get(), 0, ys * sizeof(float), stream), "cudaMemset");

    ordo::kernels::ForwardArgs args;
    args.x = {x.get(), ordo::DType::f32, s.M, s.K};
    args.w = {w.get(), ordo::DType::f32, s.N, s.K};
    args.y = yk.get();
    args.y_rows = s.M;
    args.y_cols = s.N;
    args.stream = stream;
    auto run_kernel = [&] {
      const ordo::Status st = ordo::kernels::forward(v->id, args);
      if (!st.ok()) die("forward(" + v->id + "): " + st.to_string());
    };
    const float one = 1.0f, zero = 0.0f;
    const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
    // cuBLAS is column-major. Row-major Y [M,N] is column-major C = Y^T [N,M] (ldc N); row-major
    // W [N,K] is column-major A = W^T [K,N] (lda K), so op(A) = A^T = W; row-major X [M,K] is
    // column-major B = X^T [K,M] (ldb K). C = W * X^T = (X * W^T)^T = Y^T.
    auto run_cublas = [&] {
      check_cublas(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w.get(), K, x.get(), K, &zero,
                               yc.get(), N),
                   "cublasSgemm");
    };

    Row r;
    r.s = s;
    r.l2_resident = (xs + ws + 2 * ys) * sizeof(float) <= static_cast<std::size_t>(l2_bytes);

    // Correctness check, once.
    run_kernel();
    run_cublas();
    check_cuda(cudaStreamSynchronize(stream), "kernel/cuBLAS execution");
    float max_diff = 0, max_y = 0;
    check_int(ordo::bench::max_abs_diff(yk.get(), yc.get(), ys, stream, &max_diff, &max_y), "compare");
    r.rel_diff = static_cast<double>(max_diff) / std::max(static_cast<double>(max_y), 1e-30);
    r.matches = std::isfinite(r.rel_diff) && r.rel_diff < kTolerance;
    if (!r.matches)
      std::printf("WARNING: M=%lld N=%lld K=%lld: kernel output does not match cuBLAS (max|diff|/max|y| = %g >= %g); "
                  "its timing below is not meaningful\n",
                  static_cast<long long>(s.M), static_cast<long long>(s.N), static_cast<long long>(s.K), r.rel_diff,
                  kTolerance);

    for (int i = 0; i < warmup; ++i) {
      run_kernel();
      run_cublas();
    }
    check_cuda(cudaStreamSynchronize(stream), "warm-up");

    std::vector<double> tk, tc;
    auto timed = [&](auto&& call) {
      check_int(ordo::bench::enqueue_spin(stream, kSpinNs), "spin");
      check_cuda(cudaEventRecord(e0, stream), "cudaEventRecord");
      call();
      check_cuda(cudaEventRecord(e1, stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(e1), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
      return static_cast<double>(ms);
    };
    for (int i = 0; i < reps; ++i) {
      tk.push_back(timed(run_kernel));
      tc.push_back(timed(run_cublas));
    }
    r.ms = median(tk);
    r.cublas_ms = median(tc);
    rows.push_back(r);
    std::printf("%7lld %7lld %7lld %11.4f %11.4f %7.3f %10.2f %10.2f  %s%s\n", static_cast<long long>(s.M),
                static_cast<long long>(s.N), static_cast<long long>(s.K), r.ms, r.cublas_ms, r.ms / r.cublas_ms,
                tflops(s, r.ms), tflops(s, r.cublas_ms), r.l2_resident ? "L2-resident" : "not L2-resident",
                r.matches ? "" : "  MISMATCH");
    std::fflush(stdout);
  }
  std::printf("\nratio = kernel_ms / cublas_ms (lower is better). 'L2-resident': x, w and both outputs fit in L2\n"
              "together and are reused by every rep (warm); otherwise each rep streams from HBM.\n");

  if (!json_path.empty()) {
    std::ofstream f(json_path);
    if (!f) die("cannot write " + json_path);
    f << "{\n  \"bench\": [\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      char buf[768];
      std::snprintf(buf, sizeof buf,
                    "    {\"kernel\": \"%s\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"ms\": %.6f, \"cublas_ms\": %.6f, "
                    "\"ratio\": %.6f, \"tflops\": %.4f, \"cublas_tflops\": %.4f, \"matches_cublas\": %s, "
                    "\"max_rel_diff\": %.3e, \"l2_resident\": %s}%s\n",
                    json_escape(v->id).c_str(), static_cast<long long>(r.s.M), static_cast<long long>(r.s.N),
                    static_cast<long long>(r.s.K), r.ms, r.cublas_ms, r.ms / r.cublas_ms, tflops(r.s, r.ms),
                    tflops(r.s, r.cublas_ms), r.matches ? "true" : "false",
                    std::isfinite(r.rel_diff) ? r.rel_diff : -1.0, r.l2_resident ? "true" : "false",
                    i + 1 < rows.size() ? "," : "");
      f << buf;
    }
    f << "  ],\n  \"gpu\": {\"name\": \"" << json_escape(dev.name) << "\", \"sm\": " << dev.sm
      << ", \"sm_count\": " << dev.sm_count << ", \"l2_bytes\": " << l2_bytes
      << ", \"driver_version\": " << dev.driver_version << ", \"runtime_version\": " << dev.runtime_version
      << ", \"cublas_version\": " << cublas_version << ", \"nvidia_tf32_override\": \"" << json_escape(tf32)
      << "\"},\n  \"method\": {\"reps\": " << reps << ", \"warmup\": " << warmup
      << ", \"statistic\": \"median\", \"cublas\": \"cublasSgemm CUBLAS_DEFAULT_MATH\", \"spin_ns\": " << kSpinNs
      << ", \"tolerance\": " << kTolerance << "}\n}\n";
    if (!f) die("error writing " + json_path);
    std::printf("wrote %s\n", json_path.c_str());
  }

  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  bool all_match = true;
  for (const Row& r : rows) all_match = all_match && r.matches;
  return all_match ? 0 : 1;
}
