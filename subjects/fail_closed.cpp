#include "subjects/fail_closed.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <cstdlib>
#include <stdexcept>

#include "kernels/forward_api.h"

namespace ordo {
namespace {

constexpr std::int64_t kM = 5, kN = 7;
// K of the valid call: ragged (9) where the variant takes any K, else the first multiple of its
// k_multiple above 16 (24 for TMA variants), so the valid call exercises a K tail either way.
std::int64_t valid_k(const SubjectTraits& v) {
  return v.k_multiple > 1 ? (16 / v.k_multiple + 1) * v.k_multiple : 9;
}
// Operands start 64 bytes apart at least, so every variant's alignment holds for the valid call.
constexpr std::int64_t kAlignFloats = 16;
std::int64_t round_up(std::int64_t n) { return (n + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }
constexpr unsigned char kSentinel = 0x5A;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Valid buffers (device memory, or host memory for a host subject) for one [kM,kK] x [kN,kK] problem.
// `arena` holds x, w, b and y back to back so that aliasing scenarios can point one operand into another.
struct Buffers {
  std::int64_t K;
  bool device;
  float* arena = nullptr;
  float* x = nullptr;
  float* w = nullptr;
  float* b = nullptr;
  float* y = nullptr;
  std::size_t y_bytes = kM * kN * sizeof(float);
  std::size_t arena_floats;
  Buffers(std::int64_t k, bool on_device)
      : K(k), device(on_device),
        arena_floats(static_cast<std::size_t>(round_up(kM * k) + round_up(kN * k) + round_up(kN) + kM * kN + 64)) {
    if (device) {
      cuda_check(cudaMalloc(&arena, arena_floats * sizeof(float)), "cudaMalloc");
      cuda_check(cudaMemset(arena, 0, arena_floats * sizeof(float)), "cudaMemset");
    } else {
      arena = static_cast<float*>(std::aligned_alloc(256, (arena_floats * sizeof(float) + 255) / 256 * 256));
      if (!arena) throw std::runtime_error("out of host memory");
      std::memset(arena, 0, arena_floats * sizeof(float));
    }
    x = arena;
    w = x + round_up(kM * K);
    b = w + round_up(kN * K);
    y = b + round_up(kN);  // 64-byte aligned and apart from b
  }
  ~Buffers() {
    if (device) cudaFree(arena);
    else std::free(arena);
  }
  void fill_y(unsigned char value) {
    if (device) cuda_check(cudaMemset(y, value, y_bytes), "cudaMemset");
    else std::memset(y, value, y_bytes);
  }
  void read_y(std::vector<unsigned char>& out) {
    if (device) {
      cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      cuda_check(cudaMemcpy(out.data(), y, y_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else {
      std::memcpy(out.data(), y, y_bytes);
    }
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

kernels::ForwardArgs valid_args(const Buffers& buf, DType operand) {
  kernels::ForwardArgs a;
  a.x = {buf.x, operand, kM, buf.K};
  a.w = {buf.w, operand, kN, buf.K};
  a.bias = {buf.b, DType::f32, 1, kN};
  a.y = buf.y;
  a.y_rows = kM;
  a.y_cols = kN;
  return a;
}

struct Scenario {
  std::string name;
  StatusCode expected;
  std::function<void(kernels::ForwardArgs&, std::string& variant, Buffers&, void* host_block, void* pinned_block)> mutate;
};

std::vector<Scenario> scenarios(const FailClosedTarget& target, std::int64_t kK) {
  const SubjectTraits& v = target.traits;
  using A = kernels::ForwardArgs;
  auto on_args = [](std::function<void(A&)> f) {
    return [f](A& a, std::string&, Buffers&, void*, void*) { f(a); };
  };
  std::vector<Scenario> list;
  if (target.has_variant_id)
    list.push_back({"unknown variant id", StatusCode::unknown_variant,
                    [](A&, std::string& id, Buffers&, void*, void*) { id = "no.such.variant"; }});
  std::vector<Scenario> common = {
      {"x has the other operand dtype (f32 <-> bf16)", StatusCode::wrong_dtype,
       on_args([](A& a) { a.x.dtype = a.x.dtype == DType::f32 ? DType::bf16 : DType::f32; })},
      {"w is f16", StatusCode::wrong_dtype, on_args([](A& a) { a.w.dtype = DType::f16; })},
      {"bias is f64", StatusCode::wrong_dtype, on_args([](A& a) { a.bias.dtype = DType::f64; })},
      {"y is f16", StatusCode::wrong_dtype, on_args([](A& a) { a.y_dtype = DType::f16; })},
      {"M = 0", StatusCode::bad_size, on_args([](A& a) { a.x.rows = 0; a.y_rows = 0; })},
      {"K = -1", StatusCode::bad_size, on_args([](A& a) { a.x.cols = -1; a.w.cols = -1; })},
      {"N = 0", StatusCode::bad_size, on_args([](A& a) { a.w.rows = 0; a.y_cols = 0; a.bias.cols = 0; })},
      {"w.cols != x.cols", StatusCode::inconsistent_size, on_args([kK](A& a) { a.w.cols = kK - 1; })},
      {"y rows != M", StatusCode::inconsistent_size, on_args([](A& a) { a.y_rows = kM + 1; })},
      {"y cols != N", StatusCode::inconsistent_size, on_args([](A& a) { a.y_cols = kN - 1; })},
      {"bias length != N", StatusCode::inconsistent_size, on_args([](A& a) { a.bias.cols = kN + 1; })},
      {"bias is 2-D", StatusCode::inconsistent_size, on_args([](A& a) { a.bias.rows = 2; })},
      {"x is null", StatusCode::null_pointer, on_args([](A& a) { a.x.data = nullptr; })},
      {"w is null", StatusCode::null_pointer, on_args([](A& a) { a.w.data = nullptr; })},
      {"x is misaligned by 1 byte", StatusCode::misaligned,
       on_args([](A& a) { a.x.data = static_cast<const char*>(a.x.data) + 1; })},
      {"bias is misaligned by 1 byte", StatusCode::misaligned,
       on_args([](A& a) { a.bias.data = static_cast<const char*>(a.bias.data) + 1; })},
      {"y is x", StatusCode::aliasing, [](A& a, std::string&, Buffers& b, void*, void*) { a.x.data = b.y; }},
      {"y overlaps the end of w", StatusCode::aliasing,
       [kK](A& a, std::string&, Buffers& b, void*, void*) {
         // w's last 16 bytes are y's first 16, whatever the operand size (16 keeps TMA's alignment).
         a.w.data = reinterpret_cast<const char*>(b.y) - (kN * kK * static_cast<std::int64_t>(dtype_size(a.w.dtype)) - 16);
       }},
      {"y overlaps the bias", StatusCode::aliasing,
       [](A& a, std::string&, Buffers& b, void*, void*) { a.bias.data = b.y + 2; }},
  };
  list.insert(list.end(), common.begin(), common.end());
  if (v.device_buffers) {
    list.push_back({"x is pageable host memory", StatusCode::host_pointer,
                    [](A& a, std::string&, Buffers&, void* host, void*) { a.x.data = host; }});
    list.push_back({"w is pinned host memory", StatusCode::host_pointer,
                    [](A& a, std::string&, Buffers&, void*, void* pinned) { a.w.data = pinned; }});
  }
  if (!v.allows_output(DType::bf16))
    list.push_back({"y is bf16 (variant writes f32 only)", StatusCode::wrong_dtype,
                    on_args([](A& a) { a.y_dtype = DType::bf16; })});
  if (v.k_multiple > 1)
    list.push_back({"K = " + std::to_string(kK - 1) + ", not a multiple of " + std::to_string(v.k_multiple),
                    StatusCode::unsupported_shape, on_args([kK](A& a) {
                      a.x.cols = kK - 1;
                      a.w.cols = kK - 1;
                    })});
  const auto element = static_cast<std::int64_t>(dtype_size(v.operand_dtype));
  if (v.operand_alignment > element)
    list.push_back({"w is element-aligned but " + std::to_string(element) + " bytes off " +
                        std::to_string(v.operand_alignment) + "-byte alignment",
                    StatusCode::misaligned,
                    on_args([element](A& a) { a.w.data = static_cast<const char*>(a.w.data) + element; })});
  return list;
}

}  // namespace

std::vector<FailClosedOutcome> run_forward_fail_closed(const FailClosedTarget& target) {
  std::vector<FailClosedOutcome> outcomes;
  const SubjectTraits& traits = target.traits;
  const std::string variant_id = target.has_variant_id ? traits.id : "";
  const DType operand = traits.operand_dtype;
  const std::int64_t kK = valid_k(traits);
  const bool device = traits.device_buffers;
  Buffers buf(kK, device);
  std::vector<float> host_block(static_cast<std::size_t>(kN * kK + 64), 1.0f);
  void* pinned = nullptr;
  if (device) cuda_check(cudaMallocHost(&pinned, static_cast<std::size_t>(kN * kK + 64) * sizeof(float)), "cudaMallocHost");
  std::vector<unsigned char> y_before(buf.y_bytes, kSentinel), y_after(buf.y_bytes);

  auto outcome = [&](std::string name, StatusCode expected, const Status& st) {
    buf.read_y(y_after);
    FailClosedOutcome o;
    o.scenario = std::move(name);
    o.expected = expected;
    o.got = st.code;
    o.message = st.message;
    o.output_untouched = std::memcmp(y_before.data(), y_after.data(), buf.y_bytes) == 0;
    return o;
  };
  // Each scenario in turn gets the next index; those before progress.first are passed over.
  const FailClosedProgress& progress = target.progress;
  std::size_t index = 0;
  auto begin = [&](const std::string& name, StatusCode expected) {
    const std::size_t i = index++;
    if (i < progress.first) return false;
    if (progress.started) progress.started(i, name, expected);
    return true;
  };
  auto finish = [&](FailClosedOutcome o) {
    if (progress.finished) progress.finished(index - 1, o);
    outcomes.push_back(std::move(o));
  };
  for (const Scenario& s : scenarios(target, kK)) {
    if (!begin(s.name, s.expected)) continue;
    buf.fill_y(kSentinel);
    kernels::ForwardArgs args = valid_args(buf, operand);
    std::string called_variant = variant_id;
    s.mutate(args, called_variant, buf, host_block.data(), pinned);
    finish(outcome(s.name, s.expected, target.call(called_variant, args)));
  }

  // The controls: the same valid call is accepted and does write y (otherwise "untouched" above would
  // prove nothing), with a bf16 Y too where the subject writes one.
  for (const DType y_dtype : {DType::f32, DType::bf16}) {
    if (!traits.allows_output(y_dtype)) continue;
    const std::string name = y_dtype == DType::f32 ? "control: the valid call is accepted and writes y"
                                                   : "control: the valid call with a bf16 y is accepted and writes y";
    if (!begin(name, StatusCode::ok)) continue;
    buf.fill_y(kSentinel);
    kernels::ForwardArgs args = valid_args(buf, operand);
    args.y_dtype = y_dtype;
    FailClosedOutcome o = outcome(name, StatusCode::ok, target.call(variant_id, args));
    const std::size_t written = y_dtype == DType::f32 ? buf.y_bytes : buf.y_bytes / 2;
    o.output_untouched = std::memcmp(y_before.data(), y_after.data(), written) != 0;  // must be written
    finish(o);
  }

  // Memory of another device: only where there are two.
  if (device && begin("x lives on another device", StatusCode::wrong_device)) {
    FailClosedOutcome o;
    o.scenario = "x lives on another device";
    o.expected = StatusCode::wrong_device;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (count < 2) {
      o.skipped = true;
      o.skip_reason = "needs two CUDA devices, found " + std::to_string(count);
      finish(o);
    } else {
      int current = 0;
      cuda_check(cudaGetDevice(&current), "cudaGetDevice");
      cuda_check(cudaSetDevice(current == 0 ? 1 : 0), "cudaSetDevice");
      void* other = nullptr;
      cuda_check(cudaMalloc(&other, static_cast<std::size_t>(kM * kK) * sizeof(float)), "cudaMalloc");
      cuda_check(cudaSetDevice(current), "cudaSetDevice");
      buf.fill_y(kSentinel);
      kernels::ForwardArgs args = valid_args(buf, operand);
      args.x.data = other;
      finish(outcome(o.scenario, o.expected, target.call(variant_id, args)));
      cudaFree(other);
    }
  }
  if (pinned) cudaFreeHost(pinned);
  return outcomes;
}

}  // namespace ordo
