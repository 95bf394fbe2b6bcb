// ordo_bench_backward: times the backward kernels against cuBLAS in one process, on the same inputs,
// with CUDA events. For a forward Y [M,N] = X [M,K] * W [N,K]^T (M = tokens):
//   dx:        dX [M,K] = G [M,N] * W [N,K]      (backward_data)
//   dw:        dW [N,K] = G^T * X, rows in place (backward_weight, no keys)
//   dw-gather: the same dW kernel reading the rows through a device index of a random permutation of
//              the tokens (what a call with keys out of canonical order runs), launched directly: the
//              key validation, which reads the keys back to the host, is not in its time.
// --dtype picks the operand dtype (dX, dW are f32 either way):
//   f32:  "sm80.bwd.dx.f32.fma.simt.128x128x16", "sm80.bwd.dw.f32.fma.simt.128x128x16" against
//         cublasSgemm;
//   bf16: G, W, X as bfloat16 bit patterns, "sm90.bwd.dx.bf16.mma-sync.32x32x16",
//         "sm90.bwd.dw.bf16.mma-sync.32x32x16" against cublasGemmEx (A, B CUDA_R_16BF, C CUDA_R_32F,
//         CUBLAS_COMPUTE_32F).
// cuBLAS computes the same product in its own order (split-K where it likes); dW's db is not timed.
//
// Method, per shape and product: X, G, W uniform in [-1, 1) generated on the device (for bf16 the same
// values rounded to bfloat16, so in [-1, 1]); one check that the kernel's output matches cuBLAS's
// within the tolerance of bench/tolerance.h for the operand dtype with an f32 output, relative to
// max|out| (a broken kernel is never reported as a fast one); --warmup untimed calls of each; then
// --reps timed calls of each, interleaved, each after a ~50 us GPU spin so that the host time of the
// call is hidden and the events bracket GPU time only. Medians are reported, and ratio = kernel /
// cuBLAS.
// cuBLAS runs with CUBLAS_DEFAULT_MATH, which never uses TF32 for SGEMM (the BF16 calls name their
// compute type, CUBLAS_COMPUTE_32F); the process refuses to run if NVIDIA_TF32_OVERRIDE is set to
// anything but "0".
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
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "bench/bench_kernels.h"
#include "bench/tolerance.h"
#include "core/dtype.h"
#include "bench/physical_floors.h"
#include "kernels/backward_api.h"
#include "kernels/backward_internal.h"
#include "core/large_allocations.h"

namespace {

using ordo::DType;

// The FP32 defaults are the production variants chosen by shape (each runs the 128x128 tile where it is best).
constexpr const char* kDx = "sm80.bwd.dx.f32.fma.simt.by-shape";
constexpr const char* kDw = "sm80.bwd.dw.f32.fma.simt.by-shape";
constexpr const char* kDxBf16 = "sm90.bwd.dx.bf16.mma-sync.32x32x16";
constexpr const char* kDwBf16 = "sm90.bwd.dw.bf16.mma-sync.32x32x16";
constexpr std::uint64_t kSpinNs = 50'000;
constexpr std::uint64_t kSeedX = 0xb0d0001ull, kSeedG = 0xb0d0002ull, kSeedW = 0xb0d0003ull;
constexpr int kExitError = 1, kExitNoGpu = 2;

[[noreturn]] void die(const std::string& msg, int code = kExitError) {
  std::fflush(stdout);
  std::fprintf(stderr, "ordo_bench_backward: %s\n", msg.c_str());
  std::exit(code);
}

void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) die(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) die(std::string(what) + ": " + cublasGetStatusName(s));
}

struct Shape {
  std::int64_t M, N, K;
};

struct Options {
  std::vector<Shape> shapes;
  std::vector<std::string> ops = {"dx", "dw", "dw-gather"};
  int reps = 20, warmup = 3;
  std::string json_path;
  DType dtype = DType::f32;
  std::string dx_variant, dw_variant;  // after parse_args: the named ones, or the dtype's defaults
  // dw-gather's index: a random permutation of the tokens, or the identity (the gather's own cost, apart
  // from where in G and X its rows lie).
  bool identity_gather = false;
  ordo::kernels::LaunchOptions launch;  // --trace-launch, --wgmma-*, --fp32-* (kernels/launch_options.h)
};

bool has_op(const Options& o, const char* op) { return std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end(); }
bool uses_dx(const Options& o) { return has_op(o, "dx"); }
bool uses_dw(const Options& o) { return has_op(o, "dw") || has_op(o, "dw-gather"); }

// What the reference calls for the operand dtype, for the table header and the JSON.
const char* cublas_description(DType dtype) {
  return dtype == DType::bf16 ? "cublasGemmEx bf16 x bf16 -> CUDA_R_32F CUBLAS_COMPUTE_32F"
                              : "cublasSgemm CUBLAS_DEFAULT_MATH (no TF32)";
}

// The launcher of a registered dW variant, for the gathered path (which bypasses key validation).
ordo::kernels::detail::BackwardWeightLaunchFn dw_launcher(const std::string& id) {
  for (const auto& e : ordo::kernels::detail::backward_weight_entries())
    if (e.variant.id == id) return e.launch;
  std::fprintf(stderr, "ordo_bench_backward: no dW variant %s\n", id.c_str());
  std::exit(1);
}

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: ordo_bench_backward [options]\n"
               "Times the backward kernels against cuBLAS on the current GPU, in one process, on the same\n"
               "inputs: FP32 operands against cublasSgemm (FP32, no TF32), BF16 operands against cublasGemmEx\n"
               "(A, B CUDA_R_16BF, C CUDA_R_32F, CUBLAS_COMPUTE_32F); dX and dW are f32 either way. For a\n"
               "forward Y[M,N] = X[M,K] * W[N,K]^T with M tokens:\n"
               "  dx         dX[M,K] = G[M,N] * W[N,K]\n"
               "  dw         dW[N,K] = G^T * X, rows in place (no keys)\n"
               "  dw-gather  the same, rows read through an index of a random permutation of the tokens\n"
               "             (the path of keys out of canonical order; kernel only, key validation not timed)\n"
               "  --gather-order random|identity\n"
               "                      dw-gather's index: a random permutation (default), or the tokens in\n"
               "                      order (the same rows as dw, through the gather)\n"
               "  --dtype f32|bf16    operand dtype of G, W, X (default f32); the variants must take it\n"
               "  --shapes \"M,N,K;..\"  shapes (default: M in {64,1024,4096,16384} x (K,N) in\n"
               "                      f32:  {(32,5376),(5376,32),(5376,5376)}, the seed's FP32 projection rows;\n"
               "                      bf16: {(5376,5376),(4096,5376),(5376,16128)}, the forward bench's BF16 rows\n"
               "                      (16128 = the fused Q/K/V projection))\n"
               "  --ops LIST          comma list of dx, dw, dw-gather (default all three)\n"
               "  --dx-variant ID     the dX variant to time (default f32: %s,\n"
               "                      bf16: %s)\n"
               "  --dw-variant ID     the dW variant to time (default f32: %s,\n"
               "                      bf16: %s)\n"
               "  --reps N            timed runs of each implementation per row (default 20); median reported\n"
               "  --warmup N          untimed runs before timing (default 3)\n"
               "  --json PATH         also write the results as JSON\n"
      "  --trace-launch, --wgmma-kernel, --wgmma-stores, --fp32-tile ... VALUE\n"
      "                      launch options: how ordo's variants run, never what they compute\n"
      "                      (kernels/launch_options.h; the table in docs/kernels.md)\n"
               "  --help              this text\n"
               "Check tolerance (max|diff| / max|cuBLAS out|): f32 %g, bf16 %g.\n"
               "Exit codes: 0 ok, 1 error or a kernel output that does not match cuBLAS, 2 no GPU.\n",
               kDx, kDxBf16, kDw, kDwBf16, ordo::bench::kTolF32Operands, ordo::bench::kTolBf16F32Out);
}

std::int64_t parse_int(const std::string& s, const char* what, std::int64_t min) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < min) die(std::string("bad ") + what + ": \"" + s + "\"");
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t e = std::min(s.find(sep, pos), s.size());
    if (e > pos) out.push_back(s.substr(pos, e - pos));
    pos = e + 1;
  }
  return out;
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--shapes") {
      for (const std::string& item : split(value(), ';')) {
        const std::vector<std::string> f = split(item, ',');
        if (f.size() != 3) die("bad shape \"" + item + "\" (want M,N,K)");
        o.shapes.push_back({parse_int(f[0], "M", 1), parse_int(f[1], "N", 1), parse_int(f[2], "K", 1)});
      }
      if (o.shapes.empty()) die("--shapes has no shape");
    } else if (a == "--ops") {
      o.ops = split(value(), ',');
      for (const std::string& op : o.ops)
        if (op != "dx" && op != "dw" && op != "dw-gather") die("unknown op \"" + op + "\" (want dx, dw, dw-gather)");
      if (o.ops.empty()) die("--ops has no op");
    } else if (a == "--reps") {
      o.reps = static_cast<int>(std::min<std::int64_t>(parse_int(value(), "--reps", 1), 100000));
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(std::min<std::int64_t>(parse_int(value(), "--warmup", 0), 100000));
    } else if (a == "--json") {
      o.json_path = value();
    } else if (a == "--dtype") {
      const std::string v = value();
      if (v == "f32")
        o.dtype = DType::f32;
      else if (v == "bf16")
        o.dtype = DType::bf16;
      else
        die("bad --dtype \"" + v + "\" (want f32 or bf16)");
    } else if (a == "--gather-order") {
      const std::string v = value();
      if (v != "random" && v != "identity") die("bad --gather-order \"" + v + "\" (want random or identity)");
      o.identity_gather = v == "identity";
    } else if (a == "--dx-variant") {
      o.dx_variant = value();
    } else if (a == "--dw-variant") {
      o.dw_variant = value();
    } else if (const ordo::kernels::LaunchOptionFlag* f = ordo::kernels::find_launch_option_flag(a)) {
      const std::string e = ordo::kernels::set_launch_option(&o.launch, a, *f->values != '\0' ? value() : std::string());
      if (!e.empty()) die(e);
    } else {
      usage(stderr);
      die("unknown argument \"" + a + "\"");
    }
  }
  const bool bf16 = o.dtype == DType::bf16;
  if (o.dx_variant.empty()) o.dx_variant = bf16 ? kDxBf16 : kDx;
  if (o.dw_variant.empty()) o.dw_variant = bf16 ? kDwBf16 : kDw;
  if (o.shapes.empty()) {
    using KN = std::vector<std::pair<std::int64_t, std::int64_t>>;
    const KN kn = bf16 ? KN{{5376, 5376}, {4096, 5376}, {5376, 16128}} : KN{{32, 5376}, {5376, 32}, {5376, 5376}};
    for (const std::int64_t M : {64, 1024, 4096, 16384})
      for (const auto& [K, N] : kn) o.shapes.push_back({M, N, K});
  }
  for (const Shape& s : o.shapes)
    if (s.M > INT32_MAX || s.N > INT32_MAX || s.K > INT32_MAX) die("a shape exceeds cuBLAS's 32-bit sizes");
  // The variants of the requested ops must exist and take the operand dtype (the gathered dW path
  // calls the launcher directly, past the API's dtype check).
  auto check_variant = [&](const std::string& id, const std::vector<ordo::KernelVariant>& list, const char* kind) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const ordo::KernelVariant& v) { return v.id == id; });
    if (it == list.end()) {
      std::string known;
      for (const ordo::KernelVariant& v : list)
        if (!v.is_mutant) known += "\n  " + v.id;
      die(std::string("no ") + kind + " variant \"" + id + "\"; registered (besides the mutants):" + known);
    }
    if (it->operand_dtype != o.dtype)
      die(id + " takes " + std::string(ordo::dtype_name(it->operand_dtype)) + " operands, not --dtype " +
          std::string(ordo::dtype_name(o.dtype)));
  };
  if (uses_dx(o)) check_variant(o.dx_variant, ordo::kernels::backward_data_variants(), "dX");
  if (uses_dw(o)) check_variant(o.dw_variant, ordo::kernels::backward_weight_variants(), "dW");
  return o;
}

// Exits 1 when the GPU's SM is outside the variant's range (the API refuses such a call; the gathered
// launcher would not).
void check_sm(const std::string& id, int sm) {
  const ordo::KernelVariant* v = ordo::kernels::find_backward_variant(id);
  if (!v) die("no variant " + id);
  if (!v->runs_on(sm))
    die(id + " runs on sm_" + std::to_string(v->sm.min) + (v->sm.max ? " to sm_" + std::to_string(v->sm.max) : "+") +
        "; this GPU is sm_" + std::to_string(sm));
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) {
    check_cuda(cudaMalloc(&p_, std::max<std::size_t>(bytes, 1)), "cudaMalloc(" + std::to_string(bytes) + " bytes)");
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* v() const { return p_; }
  float* f() const { return static_cast<float*>(p_); }
  std::uint16_t* h() const { return static_cast<std::uint16_t*>(p_); }  // bfloat16 bit patterns
  int* i() const { return static_cast<int*>(p_); }

 private:
  void* p_ = nullptr;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tflops(const Shape& s, double ms) {
  return ms > 0 ? 2.0 * static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K) / (ms * 1e9) : 0.0;
}

struct Row {
  std::string op, kernel, dtype;
  Shape s{};
  double ms = 0, cublas_ms = 0, rel_diff = 0;
  int reps = 0;
  bool matches = false;
  ordo::bench::Floor floor;  // FP32 only (bench/physical_floors.h); ms 0 otherwise
};

// Times `kernel` and `reference` interleaved, each after a spin, between two events. Medians in ms.
void time_pair(const std::function<void()>& kernel, const std::function<void()>& reference, const Options& o,
               cudaStream_t stream, double* kernel_ms, double* reference_ms) {
  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
  check_cuda(cudaEventCreate(&e1), "cudaEventCreate");
  for (int i = 0; i < o.warmup; ++i) {
    kernel();
    reference();
  }
  check_cuda(cudaStreamSynchronize(stream), "warm-up");
  std::vector<double> tk, tr;
  auto timed = [&](const std::function<void()>& call, std::vector<double>& out) {
    check_cuda(static_cast<cudaError_t>(ordo::bench::enqueue_spin(stream, kSpinNs)), "spin");
    check_cuda(cudaEventRecord(e0, stream), "cudaEventRecord");
    call();
    check_cuda(cudaEventRecord(e1, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    out.push_back(static_cast<double>(ms));
  };
  for (int i = 0; i < o.reps; ++i) {
    timed(kernel, tk);
    timed(reference, tr);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  *kernel_ms = median(tk);
  *reference_ms = median(tr);
}

void write_json(const std::string& path, const std::vector<Row>& rows, const ordo::kernels::DeviceInfo& dev,
                int cublas_version, const Options& o) {
  std::ofstream f(path);
  if (!f) die("cannot write " + path);
  f << "{\n  \"schema\": \"ordo.bench-backward/1\",\n";
  f << "  \"environment\": {\"gpu\": \"" << dev.name << "\", \"sm\": " << dev.sm << ", \"sm_count\": " << dev.sm_count
    << ", \"driver\": " << dev.driver_version << ", \"cuda_runtime\": " << dev.runtime_version
    << ", \"cublas\": " << cublas_version << "},\n";
  f << "  \"method\": {\"reps\": " << o.reps << ", \"warmup\": " << o.warmup << ", \"spin_ns\": " << kSpinNs
    << ", \"statistic\": \"median\", \"dtype\": \"" << ordo::dtype_name(o.dtype) << "\", \"out_dtype\": \"f32\""
    << ", \"gather_order\": \"" << (o.identity_gather ? "identity" : "random") << "\""
    << ", \"cublas\": \"" << cublas_description(o.dtype) << "\", \"tolerance\": "
    << (o.dtype == DType::bf16 ? ordo::bench::kTolBf16F32Out : ordo::bench::kTolF32Operands) << "},\n";
  f << "  \"bench\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    char buf[768];
    std::snprintf(buf, sizeof buf,
                  "%s\n    {\"op\": \"%s\", \"kernel\": \"%s\", \"dtype\": \"%s\", \"M\": %lld, \"N\": %lld, "
                  "\"K\": %lld, \"ms\": %.6f, "
                  "\"cublas_ms\": %.6f, \"ratio\": %.4f, \"tflops\": %.3f, \"cublas_tflops\": %.3f, \"reps\": %d, "
                  "\"rel_diff\": %.3e, \"matches\": %s, \"floor_ms\": %.6f, \"floor\": \"%s\", "
                  "\"fraction_of_floor\": %.4f}",
                  i ? "," : "", r.op.c_str(), r.kernel.c_str(), r.dtype.c_str(), static_cast<long long>(r.s.M),
                  static_cast<long long>(r.s.N), static_cast<long long>(r.s.K), r.ms, r.cublas_ms,
                  r.cublas_ms > 0 ? r.ms / r.cublas_ms : 0.0, tflops(r.s, r.ms), tflops(r.s, r.cublas_ms), r.reps,
                  std::isfinite(r.rel_diff) ? r.rel_diff : -1.0, r.matches ? "true" : "false", r.floor.ms,
                  r.floor.what, r.ms > 0 ? r.floor.ms / r.ms : 0.0);
    f << buf;
  }
  f << "\n  ]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  const Options o = parse_args(argc, argv);
  const char* tf32_env = std::getenv("NVIDIA_TF32_OVERRIDE");
  std::printf("NVIDIA_TF32_OVERRIDE=%s\n", tf32_env ? tf32_env : "(unset)");
  if (tf32_env && std::strcmp(tf32_env, "0") != 0)
    die("NVIDIA_TF32_OVERRIDE must be unset or \"0\": cuBLAS SGEMM must run in full FP32");
  const ordo::kernels::DeviceInfo dev = ordo::kernels::device_info(0);
  if (!dev.present) die("no GPU: this benchmark needs a CUDA GPU (" + dev.reason + ")", kExitNoGpu);
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  if (uses_dx(o)) check_sm(o.dx_variant, dev.sm);
  if (uses_dw(o)) check_sm(o.dw_variant, dev.sm);
  const bool bf16 = o.dtype == DType::bf16;

  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  int cublas_version = 0;
  check_cublas(cublasGetVersion(h, &cublas_version), "cublasGetVersion");
  std::printf("GPU: %s (sm_%d, %d SMs), driver %d, runtime %d, cuBLAS %d; reps %d (median), warmup %d\n",
              dev.name.c_str(), dev.sm, dev.sm_count, dev.driver_version, dev.runtime_version, cublas_version, o.reps,
              o.warmup);
  const double tol = bf16 ? ordo::bench::kTolBf16F32Out : ordo::bench::kTolF32Operands;
  std::printf("dtype: %s operands, f32 outputs; dx %s, dw %s; cuBLAS: %s; tolerance %g%s\n",
              std::string(ordo::dtype_name(o.dtype)).c_str(), o.dx_variant.c_str(), o.dw_variant.c_str(),
              cublas_description(o.dtype), tol,
              has_op(o, "dw-gather") ? (o.identity_gather ? "; dw-gather: tokens in order" : "; dw-gather: tokens in a random order") : "");

  std::size_t mk = 1, mn = 1, nk = 1, m = 1;
  for (const Shape& s : o.shapes) {
    mk = std::max(mk, static_cast<std::size_t>(s.M * s.K));
    mn = std::max(mn, static_cast<std::size_t>(s.M * s.N));
    nk = std::max(nk, static_cast<std::size_t>(s.N * s.K));
    m = std::max(m, static_cast<std::size_t>(s.M));
  }
  const std::size_t es = ordo::dtype_size(o.dtype);  // bytes per operand element
  const DeviceBuffer x(mk * es), g(mn * es), w(nk * es), out_k(std::max(mk, nk) * 4), out_c(std::max(mk, nk) * 4),
      perm(m * 4);
  if (bf16) {
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform_bf16(x.h(), mk, kSeedX, stream)), "fill x");
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform_bf16(g.h(), mn, kSeedG, stream)), "fill g");
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform_bf16(w.h(), nk, kSeedW, stream)), "fill w");
  } else {
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform(x.f(), mk, kSeedX, stream)), "fill x");
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform(g.f(), mn, kSeedG, stream)), "fill g");
    check_cuda(static_cast<cudaError_t>(ordo::bench::fill_uniform(w.f(), nk, kSeedW, stream)), "fill w");
  }

  const ordo::bench::PhysicalFloors floors = ordo::bench::measure_physical_floors(stream);
  std::printf("floors (measured): FMA latency %.2f cycles at %.3f GHz, FMA peak %.2f TFLOP/s, HBM %.2f TB/s\n",
              floors.fma_latency_cycles, floors.clock_hz * 1e-9, 2 * floors.fma_per_s * 1e-12,
              floors.hbm_bytes_per_s * 1e-12);
  std::printf("\n%-10s %6s %6s %6s %10s %10s %7s %9s %9s  %s\n", "op", "M", "N", "K", "kernel_ms", "cublas_ms",
              "ratio", "kern_TF/s", "cubl_TF/s", "check (max|diff|/max|out|); floor (FP32)");
  std::vector<Row> rows;
  bool all_ok = true;
  for (const Shape& s : o.shapes) {
    const int M = static_cast<int>(s.M), N = static_cast<int>(s.N), K = static_cast<int>(s.K);
    for (const std::string& op : o.ops) {
      Row r;
      r.op = op;
      r.kernel = op == "dx" ? o.dx_variant : o.dw_variant;
      r.dtype = std::string(ordo::dtype_name(o.dtype));
      r.s = s;
      r.reps = o.reps;
      const float one = 1.0f, zero = 0.0f;
      std::function<void()> kernel, reference;
      std::size_t out_elems = 0;
      if (op == "dx") {
        // Column-major: dX^T [K,M] = W^T [K,N] * G^T [N,M]; row-major W and G are W^T (ld K), G^T (ld N).
        if (bf16)
          reference = [&, M, N, K] {
            check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, K, M, N, &one, w.h(), CUDA_R_16BF, K, g.h(),
                                      CUDA_R_16BF, N, &zero, out_c.f(), CUDA_R_32F, K, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx (dX)");
          };
        else
          reference = [&, M, N, K] {
            check_cublas(
                cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, K, M, N, &one, w.f(), K, g.f(), N, &zero, out_c.f(), K),
                "cublasSgemm (dX)");
          };
        ordo::kernels::BackwardDataArgs a;
        a.g = {g.v(), o.dtype, s.M, s.N};
        a.w = {w.v(), o.dtype, s.N, s.K};
        a.dx = {out_k.f(), ordo::DType::f32, s.M, s.K};
        a.stream = stream;
        a.options = o.launch;
        kernel = [a, id = o.dx_variant] {
          if (ordo::Status st = ordo::kernels::backward_data(id, a); !st.ok()) die("backward_data: " + st.to_string());
        };
        out_elems = static_cast<std::size_t>(s.M * s.K);
      } else {
        // Column-major: dW^T [K,N] = X^T [K,T] * G [T,N]; row-major X is X^T (ld K), G is G^T (ld N).
        if (bf16)
          reference = [&, M, N, K] {
            check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, K, N, M, &one, x.h(), CUDA_R_16BF, K, g.h(),
                                      CUDA_R_16BF, N, &zero, out_c.f(), CUDA_R_32F, K, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx (dW)");
          };
        else
          reference = [&, M, N, K] {
            check_cublas(
                cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, K, N, M, &one, x.f(), K, g.f(), N, &zero, out_c.f(), K),
                "cublasSgemm (dW)");
          };
        out_elems = static_cast<std::size_t>(s.N * s.K);
        if (op == "dw") {
          ordo::kernels::BackwardWeightArgs a;
          a.x = {x.v(), o.dtype, s.M, s.K};
          a.g = {g.v(), o.dtype, s.M, s.N};
          a.dw = {out_k.f(), ordo::DType::f32, s.N, s.K};
          a.stream = stream;
          a.options = o.launch;
          kernel = [a, id = o.dw_variant] {
            if (ordo::Status st = ordo::kernels::backward_weight(id, a); !st.ok())
              die("backward_weight: " + st.to_string());
          };
        } else {
          // A fixed random permutation of the tokens as the reduction order (Fisher-Yates, SplitMix64).
          std::vector<int> order(static_cast<std::size_t>(M));
          std::iota(order.begin(), order.end(), 0);
          std::uint64_t z = 0x6761746865720000ull ^ static_cast<std::uint64_t>(M);
          for (std::size_t i = order.size(); i > 1 && !o.identity_gather; --i) {
            z += 0x9E3779B97F4A7C15ull;
            std::uint64_t q = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            q = (q ^ (q >> 27)) * 0x94D049BB133111EBull;
            std::swap(order[i - 1], order[(q ^ (q >> 31)) % i]);
          }
          check_cuda(cudaMemcpy(perm.i(), order.data(), order.size() * sizeof(int), cudaMemcpyHostToDevice),
                     "cudaMemcpy (order)");
          // Only the pointers of the variant's operand dtype are set (checked in parse_args).
          ordo::kernels::detail::BackwardWeightLaunch p;
          if (bf16) {
            p.x_bf16 = x.h();
            p.g_bf16 = g.h();
          } else {
            p.x = x.f();
            p.g = g.f();
          }
          p.rows = perm.i();
          p.R = M;
          p.dw = out_k.f();
          p.N = N;
          p.K = K;
          p.stream = stream;
          p.options = &o.launch;  // o outlives every timed call
          const ordo::kernels::detail::BackwardWeightLaunchFn launch = dw_launcher(o.dw_variant);
          kernel = [p, launch] { check_cuda(launch(p), "dW (gathered)"); };
        }
      }
      // Check once: the kernel's output against cuBLAS's (a permutation of the tokens changes only the
      // rounding of dW, not its value).
      check_cuda(cudaMemsetAsync(out_k.f(), 0xff, out_elems * 4, stream), "cudaMemset");
      reference();
      kernel();
      float max_diff = 0, max_ref = 0;
      check_cuda(static_cast<cudaError_t>(
                     ordo::bench::max_abs_diff(out_k.f(), out_c.f(), out_elems, stream, &max_diff, &max_ref)),
                 "compare");
      r.rel_diff = static_cast<double>(max_diff) / std::max(static_cast<double>(max_ref), 1e-30);
      r.matches = std::isfinite(r.rel_diff) && r.rel_diff < tol;
      if (!r.matches)
        std::printf("WARNING: %s M=%d N=%d K=%d: kernel output does not match cuBLAS (%g >= %g); its timing is not "
                    "meaningful\n",
                    op.c_str(), M, N, K, r.rel_diff, tol);
      all_ok = all_ok && r.matches;
      time_pair(kernel, reference, o, stream, &r.ms, &r.cublas_ms);
      if (!bf16) {
        // dX [M,K]: chains over the N outputs of the forward; dW [N,K]: over the M tokens.
        const double mnk = static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K);
        const double bytes = 4.0 * (op == "dx" ? static_cast<double>(s.M * s.N + s.N * s.K + s.M * s.K)
                                               : static_cast<double>(s.M * s.N + s.M * s.K + s.N * s.K));
        r.floor = ordo::bench::strict_chain_floor(floors, mnk, op == "dx" ? s.N : s.M, bytes);
      }
      std::printf("%-10s %6d %6d %6d %10.4f %10.4f %7.3f %9.2f %9.2f  %s (%.1e)", op.c_str(), M, N, K, r.ms,
                  r.cublas_ms, r.cublas_ms > 0 ? r.ms / r.cublas_ms : 0.0, tflops(s, r.ms), tflops(s, r.cublas_ms),
                  r.matches ? "match" : "MISMATCH", r.rel_diff);
      if (r.floor.ms > 0)
        std::printf("; floor %.4f ms (%s), %.0f%% of it", r.floor.ms, r.floor.what, 100.0 * r.floor.ms / r.ms);
      std::printf("\n");
      std::fflush(stdout);
      rows.push_back(r);
    }
  }
  if (!o.json_path.empty()) {
    write_json(o.json_path, rows, dev, cublas_version, o);
    std::printf("wrote %s\n", o.json_path.c_str());
  }
  cublasDestroy(h);
  cudaStreamDestroy(stream);
  return all_ok ? 0 : kExitError;
}
