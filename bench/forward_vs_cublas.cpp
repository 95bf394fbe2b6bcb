// ordo_bench_forward: times forward variants (default: the FP32 production tile) against cuBLAS in one
// process, on the same inputs, with CUDA events. FP32 variants are compared with cublasSgemm, BF16
// variants with cublasGemmEx (bf16 operands, FP32 compute, f32 or bf16 output).
//
// Method, per row (shape, output dtype):
//   * X [M,K], W [N,K] uniform random in [-1,1) (f32, or rounded to bf16; generated on the device; no
//     bias, since cuBLAS has none). The buffers are allocated once, at the largest sizes the run needs.
//   * One correctness check per variant: its Y against cuBLAS's Y, max|diff| / max|y_cublas| within the
//     tolerance of the dtypes (tolerance.h), so that a broken kernel is never reported as a fast one (a
//     WARNING line is printed otherwise, and the row is marked in the JSON).
//   * --warmup untimed calls of each, then timed calls of cuBLAS and every variant of the row,
//     interleaved, --reps of each (fewer with --max-seconds-per-row). Before every timed call a spin
//     kernel keeps the GPU busy for ~50 us, so the host time of the call (the kernel's fail-closed
//     validation, cuBLAS's heuristics, the launch) is hidden and the two events bracket GPU time only.
//     Medians are reported; the variants of a row share its cuBLAS timing.
//   * The same buffers are used for every rep, so inputs whose total size fits in L2 are L2-resident
//     (warm) after the first rep; larger ones are not. The table says which.
// cuBLAS SGEMM runs with CUBLAS_DEFAULT_MATH, which never uses TF32; the process refuses to run if
// NVIDIA_TF32_OVERRIDE is set to anything but "0".
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_args.h"
#include "bench/bench_common.h"
#include "bench/bench_kernels.h"
#include "bench/bench_report.h"
#include "bench/cublas_reference.h"
#include "bench/physical_floors.h"
#include "bench/tolerance.h"
#include "kernels/forward_api.h"
#include "core/large_allocations.h"

using namespace ordo::bench;  // NOLINT(google-build-using-namespace): this file is the bench's main
using ordo::DType;
using ordo::KernelVariant;

namespace {

constexpr std::uint64_t kSpinNs = 50'000;
constexpr int kMinRepsWhenCapped = 3;
constexpr std::uint64_t kSeedX = 0x5eed0001ull, kSeedW = 0x5eed0002ull;

// One row group: a shape and an output dtype, with the variants (all of one operand dtype) timed on it.
struct WorkItem {
  DType operand = DType::f32;
  Shape s;
  DType out = DType::f32;
  std::vector<const KernelVariant*> variants;
};

std::size_t elems(std::int64_t a, std::int64_t b) { return static_cast<std::size_t>(a) * static_cast<std::size_t>(b); }

struct Bytes {
  std::size_t x = 0, w = 0, y = 0;
};

Bytes bytes_of(const WorkItem& it) {
  const std::size_t es = ordo::dtype_size(it.operand);
  return {elems(it.s.M, it.s.K) * es, elems(it.s.N, it.s.K) * es, elems(it.s.M, it.s.N) * ordo::dtype_size(it.out)};
}

// The rows to run, by operand dtype (FP32 first), then shape, then output dtype. Prints a note for
// each (variant, shape) left out because K is not a multiple of its k_multiple, and for each BF16
// variant that gets no bf16-output rows under --out-dtype both.
std::vector<WorkItem> plan(const Options& o, const std::vector<const KernelVariant*>& variants) {
  std::vector<WorkItem> items;
  for (const DType operand : {DType::f32, DType::bf16}) {
    std::vector<const KernelVariant*> group;
    for (const KernelVariant* v : variants)
      if (v->operand_dtype == operand) group.push_back(v);
    if (group.empty()) continue;
    std::vector<DType> outs = {DType::f32};
    if (operand == DType::bf16 && o.out_dtypes == OutDtypes::bf16) outs = {DType::bf16};
    if (operand == DType::bf16 && o.out_dtypes == OutDtypes::both) {
      outs = {DType::f32, DType::bf16};
      for (const KernelVariant* v : group)
        if (!v->bf16_output)
          std::printf("note: %s writes f32 output only; no bf16-output rows for it\n", v->id.c_str());
    }
    const std::vector<Shape> shapes =
        !o.shapes.empty() ? o.shapes : (operand == DType::f32 ? default_f32_shapes() : default_bf16_shapes());
    for (const Shape& s : shapes) {
      if (s.M > INT32_MAX || s.N > INT32_MAX || s.K > INT32_MAX)
        die("shape " + std::to_string(s.M) + "," + std::to_string(s.N) + "," + std::to_string(s.K) +
            " exceeds cuBLAS's 32-bit sizes");
      std::vector<const KernelVariant*> fit;
      for (const KernelVariant* v : group) {
        if (s.K % std::max(1, v->k_multiple) == 0) {
          fit.push_back(v);
        } else {
          std::printf("note: skipping %s at M=%lld N=%lld K=%lld: it needs K %% %d == 0\n", v->id.c_str(),
                      static_cast<long long>(s.M), static_cast<long long>(s.N), static_cast<long long>(s.K),
                      v->k_multiple);
        }
      }
      for (const DType out : outs) {
        WorkItem it{operand, s, out, {}};
        for (const KernelVariant* v : fit)
          if (out == DType::f32 || v->bf16_output) it.variants.push_back(v);
        if (!it.variants.empty()) items.push_back(std::move(it));
      }
    }
  }
  return items;
}

// Times one call on `stream`: a spin first, then the call between two events. Milliseconds.
class Timer {
 public:
  explicit Timer(cudaStream_t stream) : stream_(stream) {
    check_cuda(cudaEventCreate(&e0_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&e1_), "cudaEventCreate");
  }
  ~Timer() {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  double time(const std::function<void()>& call) {
    check_int(enqueue_spin(stream_, kSpinNs), "spin");
    check_cuda(cudaEventRecord(e0_, stream_), "cudaEventRecord");
    call();
    check_cuda(cudaEventRecord(e1_, stream_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(e1_), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, e0_, e1_), "cudaEventElapsedTime");
    return static_cast<double>(ms);
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
};

// One implementation in a row's timing loop.
struct Timed {
  std::function<void()> call;
  std::vector<double> ms;
  double total_ms = 0;
  bool active = true;
};

// Runs every implementation `warmup` times, then times them interleaved: each stops after `reps`
// timed calls, or, with max_seconds > 0, once its timed calls add up to max_seconds and it has at least
// kMinRepsWhenCapped of them (or `reps`, if fewer).
void time_interleaved(std::vector<Timed>& impls, const Options& o, Timer& timer, cudaStream_t stream) {
  for (int i = 0; i < o.warmup; ++i)
    for (Timed& t : impls) t.call();
  check_cuda(cudaStreamSynchronize(stream), "warm-up");
  const int min_reps = std::min(o.reps, kMinRepsWhenCapped);
  for (bool any = true; any;) {
    any = false;
    for (Timed& t : impls) {
      if (!t.active) continue;
      const double ms = timer.time(t.call);
      t.ms.push_back(ms);
      t.total_ms += ms;
      const int n = static_cast<int>(t.ms.size());
      const bool capped = o.max_seconds_per_row > 0 && t.total_ms >= o.max_seconds_per_row * 1e3 && n >= min_reps;
      t.active = n < o.reps && !capped;
      any = any || t.active;
    }
  }
}

// Device buffers at the largest size any row needs; each row uses a prefix.
struct Buffers {
  DeviceBuffer x, w, yk, yc;
  explicit Buffers(const Bytes& b) : x(b.x), w(b.w), yk(b.y), yc(b.y) {}
};

// max|yk - yc| / max|yc| over the row's Y, against the row's tolerance.
void compare(const WorkItem& it, const Buffers& buf, cudaStream_t stream, Row* r) {
  const std::size_t n = elems(it.s.M, it.s.N);
  float max_diff = 0, max_y = 0;
  if (it.out == DType::bf16)
    check_int(max_abs_diff_bf16(static_cast<const std::uint16_t*>(buf.yk.get()),
                                static_cast<const std::uint16_t*>(buf.yc.get()), n, stream, &max_diff, &max_y),
              "compare");
  else
    check_int(max_abs_diff(static_cast<const float*>(buf.yk.get()), static_cast<const float*>(buf.yc.get()), n, stream,
                           &max_diff, &max_y),
              "compare");
  r->rel_diff = static_cast<double>(max_diff) / std::max(static_cast<double>(max_y), 1e-30);
  r->tolerance = relative_tolerance(it.operand, it.out, static_cast<double>(max_y));
  r->matches = std::isfinite(r->rel_diff) && r->rel_diff < r->tolerance;
  if (!r->matches)
    std::printf(
        "WARNING: %s M=%lld N=%lld K=%lld out %s: kernel output does not match cuBLAS "
        "(max|diff|/max|y| = %g >= %g); its timing below is not meaningful\n",
        r->variant.c_str(), static_cast<long long>(it.s.M), static_cast<long long>(it.s.N),
        static_cast<long long>(it.s.K), std::string(ordo::dtype_name(it.out)).c_str(), r->rel_diff, r->tolerance);
}

// Checks and times every variant of one row against cuBLAS; appends one Row per variant.
void run_item(const WorkItem& it, const Options& o, const Buffers& buf, CublasReference& cublas, Timer& timer,
              cudaStream_t stream, int l2_bytes, const PhysicalFloors& floors, std::vector<Row>* rows) {
  const Bytes b = bytes_of(it);
  Row base;
  base.s = it.s;
  base.operand = it.operand;
  base.out = it.out;
  base.cublas = CublasReference::describe(it.operand, it.out);
  base.l2_resident = b.x + b.w + 2 * b.y <= static_cast<std::size_t>(l2_bytes);
  if (it.operand == DType::f32) {  // the FMA path's floors; the tensor cores' are not modelled
    const Floor f = strict_chain_floor(floors,
                                       static_cast<double>(it.s.M) * static_cast<double>(it.s.N) * static_cast<double>(it.s.K), it.s.K,
                                       static_cast<double>(b.x + b.w + b.y));
    base.floor_ms = f.ms;
    base.floor = f.what;
  }

  auto run_cublas = [&] { cublas.gemm(it.operand, it.out, it.s, buf.x.get(), buf.w.get(), buf.yc.get()); };
  run_cublas();  // the reference Y, kept in yc for the checks below

  ordo::kernels::ForwardArgs args;
  args.x = {buf.x.get(), it.operand, it.s.M, it.s.K};
  args.w = {buf.w.get(), it.operand, it.s.N, it.s.K};
  args.y = buf.yk.get();
  args.y_dtype = it.out;
  args.y_rows = it.s.M;
  args.y_cols = it.s.N;
  args.stream = stream;
  args.options = o.launch;

  std::vector<Timed> impls;
  impls.push_back({run_cublas, {}, 0, true});
  std::vector<Row> vrows;
  for (const KernelVariant* v : it.variants) {
    Row r = base;
    r.variant = v->id;
    r.mutant = v->is_mutant;
    check_cuda(cudaMemsetAsync(buf.yk.get(), 0xff, b.y, stream), "cudaMemset");  // NaN poison, f32 and bf16
    const ordo::Status st = ordo::kernels::forward(v->id, args);
    if (!st.ok()) {
      r.error = "forward(" + v->id + ") refused: " + st.to_string();
      print_table_row(r);
      rows->push_back(r);
      continue;
    }
    check_cuda(cudaStreamSynchronize(stream), ("execution of " + v->id + " / cuBLAS").c_str());
    compare(it, buf, stream, &r);
    const std::string id = v->id;
    impls.push_back({[id, args] {
                       const ordo::Status s = ordo::kernels::forward(id, args);
                       if (!s.ok()) die("forward(" + id + "): " + s.to_string());
                     },
                     {},
                     0,
                     true});
    vrows.push_back(r);
  }
  if (vrows.empty()) return;

  time_interleaved(impls, o, timer, stream);
  const double cublas_ms = median(impls[0].ms);
  for (std::size_t i = 0; i < vrows.size(); ++i) {
    Row& r = vrows[i];
    r.ms = median(impls[i + 1].ms);
    r.reps = static_cast<int>(impls[i + 1].ms.size());
    r.cublas_ms = cublas_ms;
    r.cublas_reps = static_cast<int>(impls[0].ms.size());
    print_table_row(r);
    rows->push_back(r);
  }
}

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  const Options o = parse_args(argc, argv);
  check_variant_specs(o);

  const char* tf32_env = std::getenv("NVIDIA_TF32_OVERRIDE");
  const std::string tf32 = tf32_env ? tf32_env : "(unset)";
  std::printf("NVIDIA_TF32_OVERRIDE=%s\n", tf32.c_str());
  if (tf32_env && std::strcmp(tf32_env, "0") != 0)
    die("NVIDIA_TF32_OVERRIDE must be unset or \"0\": cuBLAS SGEMM must run in full FP32");

  const ordo::kernels::DeviceInfo dev = ordo::kernels::device_info(0);
  if (!dev.present) die("no GPU: this benchmark needs a CUDA GPU (" + dev.reason + ")", kExitNoGpu);
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  int l2_bytes = 0;
  check_cuda(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute(L2)");

  const std::vector<const KernelVariant*> variants = resolve_variants(o, dev.sm);
  const std::vector<WorkItem> items = plan(o, variants);
  if (items.empty()) die("nothing to run: no variant fits any of the shapes");

  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::vector<Row> rows;
  {  // the cuBLAS handle, the buffers and the events live inside this block, the stream outside it
    CublasReference cublas(stream);

    std::printf("GPU: %s (sm_%d, %d SMs, L2 %d MiB), driver %d, runtime %d, cuBLAS %d\n", dev.name.c_str(), dev.sm,
                dev.sm_count, l2_bytes >> 20, dev.driver_version, dev.runtime_version, cublas.version());
    for (const KernelVariant* v : variants)
      std::printf("variant: %s%s (%s operands, contract %s)\n", v->id.c_str(), v->is_mutant ? " (MUTANT)" : "",
                  std::string(ordo::dtype_name(v->operand_dtype)).c_str(), v->contract_id.c_str());
    std::printf("reps %d (median), warmup %d", o.reps, o.warmup);
    if (o.max_seconds_per_row > 0)
      std::printf(", at most %g s of timed runs per implementation and row (at least %d runs)", o.max_seconds_per_row,
                  std::min(o.reps, kMinRepsWhenCapped));
    std::printf("\ncuBLAS: %s", CublasReference::describe(DType::f32, DType::f32).c_str());
    const PhysicalFloors floors = measure_physical_floors(stream);
    std::printf("\nfloors (measured): FMA latency %.2f cycles at %.3f GHz, FMA peak %.2f TFLOP/s, HBM %.2f TB/s",
                floors.fma_latency_cycles, floors.clock_hz * 1e-9, 2 * floors.fma_per_s * 1e-12,
                floors.hbm_bytes_per_s * 1e-12);
    if (std::any_of(items.begin(), items.end(), [](const WorkItem& it) { return it.operand == DType::bf16; }))
      std::printf("; cublasGemmEx, bf16 operands, CUBLAS_COMPUTE_32F, f32 or bf16 output");
    std::printf("\n");

    Bytes max_b;
    for (const WorkItem& it : items) {
      const Bytes b = bytes_of(it);
      max_b = {std::max(max_b.x, b.x), std::max(max_b.w, b.w), std::max(max_b.y, b.y)};
    }
    std::printf("device buffers: x %s, w %s, y 2 x %s (total %s)\n\n", human_bytes(max_b.x).c_str(),
                human_bytes(max_b.w).c_str(), human_bytes(max_b.y).c_str(),
                human_bytes(max_b.x + max_b.w + 2 * max_b.y).c_str());
    std::fflush(stdout);
    const Buffers buf(max_b);
    Timer timer(stream);

    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    print_table_header();
    const WorkItem* filled = nullptr;  // the row whose operand dtype and shape X and W now hold
    for (std::size_t i = 0; i < items.size(); ++i) {
      const WorkItem& it = items[i];
      std::fprintf(stderr, "[%zu/%zu] %6.1fs  M=%lld N=%lld K=%lld %s operands, %s out: %zu variant(s)\n", i + 1,
                   items.size(), elapsed_s(), static_cast<long long>(it.s.M), static_cast<long long>(it.s.N),
                   static_cast<long long>(it.s.K), std::string(ordo::dtype_name(it.operand)).c_str(),
                   std::string(ordo::dtype_name(it.out)).c_str(), it.variants.size());
      if (!filled || filled->operand != it.operand || filled->s.M != it.s.M || filled->s.N != it.s.N ||
          filled->s.K != it.s.K) {
        const std::size_t nx = elems(it.s.M, it.s.K), nw = elems(it.s.N, it.s.K);
        if (it.operand == DType::bf16) {
          check_int(fill_uniform_bf16(static_cast<std::uint16_t*>(buf.x.get()), nx, kSeedX, stream), "fill x");
          check_int(fill_uniform_bf16(static_cast<std::uint16_t*>(buf.w.get()), nw, kSeedW, stream), "fill w");
        } else {
          check_int(fill_uniform(static_cast<float*>(buf.x.get()), nx, kSeedX, stream), "fill x");
          check_int(fill_uniform(static_cast<float*>(buf.w.get()), nw, kSeedW, stream), "fill w");
        }
        filled = &it;
      }
      run_item(it, o, buf, cublas, timer, stream, l2_bytes, floors, &rows);
    }
    print_table_footer();
    std::fprintf(stderr, "done: %zu row(s) in %.1f s\n", rows.size(), elapsed_s());

    if (!o.json_path.empty()) {
      RunInfo info;
      info.gpu_name = dev.name;
      info.sm = dev.sm;
      info.sm_count = dev.sm_count;
      info.l2_bytes = l2_bytes;
      info.driver_version = dev.driver_version;
      info.runtime_version = dev.runtime_version;
      info.cublas_version = cublas.version();
      info.tf32_override = tf32;
      info.reps = o.reps;
      info.warmup = o.warmup;
      info.max_seconds_per_row = o.max_seconds_per_row;
      info.min_reps_when_capped = std::min(o.reps, kMinRepsWhenCapped);
      info.spin_ns = kSpinNs;
      write_json(o.json_path, rows, info);
      std::printf("wrote %s\n", o.json_path.c_str());
    }
    check_cuda(cudaStreamSynchronize(stream), "final synchronisation");
  }
  cudaStreamDestroy(stream);
  bool all_ok = true;
  for (const Row& r : rows) all_ok = all_ok && r.error.empty() && r.matches;
  return all_ok ? 0 : kExitError;
}
