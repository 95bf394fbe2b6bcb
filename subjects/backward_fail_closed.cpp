// The fail-closed scenarios of the backward operations (subjects/fail_closed.h): each malformed dX or dW
// call must get its status code and leave dX, or dW and db, byte for byte as they were.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "subjects/fail_closed.h"

namespace ordo {
namespace {

constexpr unsigned char kSentinel = 0x5A;

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A dimension of the valid call: `ragged` where the operation takes any size, else the first multiple of
// k_multiple above 16 (a TMA-fed operation needs every operand row in whole 16-byte units).
std::int64_t valid_dim(const SubjectTraits& t, std::int64_t ragged) {
  const std::int64_t m = t.k_multiple;
  return m > 1 ? (16 / m + 1) * m : ragged;
}

// One block of memory (the device's, or the host's for a host subject) holding every operand and output of
// a call back to back, 64-byte aligned each, so that aliasing scenarios can point one into another.
class Arena {
 public:
  Arena(const std::vector<std::size_t>& region_bytes, bool device) : device_(device) {
    std::size_t at = 0;
    for (const std::size_t b : region_bytes) {
      offsets_.push_back(at);
      at += (b + 63) / 64 * 64 + 64;
    }
    bytes_ = at + 256;
    if (device_) {
      cuda_check(cudaMalloc(&base_, bytes_), "cudaMalloc");
      cuda_check(cudaMemset(base_, 0, bytes_), "cudaMemset");
    } else {
      base_ = std::aligned_alloc(256, (bytes_ + 255) / 256 * 256);
      if (!base_) throw std::runtime_error("out of host memory");
      std::memset(base_, 0, bytes_);
    }
  }
  ~Arena() {
    if (device_) cudaFree(base_);
    else std::free(base_);
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  unsigned char* region(std::size_t i) const { return static_cast<unsigned char*>(base_) + offsets_[i]; }
  void write(void* dst, const void* src, std::size_t n) {
    if (device_) cuda_check(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "cudaMemcpy");
    else std::memcpy(dst, src, n);
  }
  void fill(void* dst, unsigned char v, std::size_t n) {
    if (device_) cuda_check(cudaMemset(dst, v, n), "cudaMemset");
    else std::memset(dst, v, n);
  }
  std::vector<unsigned char> read(const void* src, std::size_t n) {
    std::vector<unsigned char> out(n);
    if (device_) {
      cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      cuda_check(cudaMemcpy(out.data(), src, n, cudaMemcpyDeviceToHost), "cudaMemcpy");
    } else {
      std::memcpy(out.data(), src, n);
    }
    return out;
  }

 private:
  bool device_;
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  std::vector<std::size_t> offsets_;
};

// Host memory for the host-pointer scenarios of a device subject: pageable and pinned.
struct HostBlocks {
  std::vector<float> pageable;
  void* pinned = nullptr;
  HostBlocks(std::size_t floats, bool device) : pageable(floats + 64, 1.0f) {
    if (device) cuda_check(cudaMallocHost(&pinned, (floats + 64) * sizeof(float)), "cudaMallocHost");
  }
  ~HostBlocks() {
    if (pinned) cudaFreeHost(pinned);
  }
  HostBlocks(const HostBlocks&) = delete;
  HostBlocks& operator=(const HostBlocks&) = delete;
};

std::vector<unsigned char> operand_bytes(DType dtype, std::size_t count, float value) {
  std::vector<unsigned char> b(count * dtype_size(dtype));
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  for (std::size_t i = 0; i < count; ++i) {
    if (dtype == DType::bf16) {
      const auto h = static_cast<std::uint16_t>(bits >> 16);
      std::memcpy(&b[i * 2], &h, 2);
    } else {
      std::memcpy(&b[i * 4], &value, 4);
    }
  }
  return b;
}

// Runs the scenarios and the controls with the index bookkeeping of FailClosedProgress.
class ScenarioRun {
 public:
  explicit ScenarioRun(const FailClosedProgress& progress) : progress_(progress) {}
  bool begin(const std::string& name, StatusCode expected) {
    const std::size_t i = index_++;
    if (i < progress_.first) return false;
    if (progress_.started) progress_.started(i, name, expected);
    return true;
  }
  void finish(FailClosedOutcome o) {
    if (progress_.finished) progress_.finished(index_ - 1, o);
    outcomes_.push_back(std::move(o));
  }
  std::vector<FailClosedOutcome> outcomes() { return std::move(outcomes_); }

 private:
  const FailClosedProgress& progress_;
  std::size_t index_ = 0;
  std::vector<FailClosedOutcome> outcomes_;
};

template <class Args>
struct Scenario {
  std::string name;
  StatusCode expected;
  std::function<void(Args&)> mutate;
};

const char* byte_offset(const void* p, std::int64_t bytes) { return static_cast<const char*>(p) + bytes; }
// An operand of `bytes` placed to end 16 bytes into an output starts this far before it, rounded down to whole
// 16-byte units so that the pointer keeps any alignment up to 16 (the scenario is the overlap, nothing else).
std::int64_t whole_units(std::int64_t bytes) { return bytes / 16 * 16; }

std::vector<FailClosedOutcome> run_data(const BackwardFailClosedTarget& target) {
  using A = kernels::BackwardDataArgs;
  const SubjectTraits& t = target.traits;
  const DType od = t.operand_dtype;
  const std::int64_t M = 5, N = valid_dim(t, 7), K = valid_dim(t, 9);
  const std::size_t es = dtype_size(od);
  Arena arena({static_cast<std::size_t>(M * N) * es, static_cast<std::size_t>(N * K) * es,
               static_cast<std::size_t>(M * K) * 4},
              t.device_buffers);
  void* g = arena.region(0);
  void* w = arena.region(1);
  void* dx = arena.region(2);
  const std::size_t dx_bytes = static_cast<std::size_t>(M * K) * 4;
  arena.write(g, operand_bytes(od, static_cast<std::size_t>(M * N), 1.0f).data(), static_cast<std::size_t>(M * N) * es);
  arena.write(w, operand_bytes(od, static_cast<std::size_t>(N * K), 0.5f).data(), static_cast<std::size_t>(N * K) * es);
  HostBlocks host(static_cast<std::size_t>(N * K), t.device_buffers);
  const auto valid = [&] {
    A a;
    a.g = {g, od, M, N};
    a.w = {w, od, N, K};
    a.dx = {dx, DType::f32, M, K};
    return a;
  };
  std::vector<Scenario<A>> list = {
      {"g has the other operand dtype (f32 <-> bf16)", StatusCode::wrong_dtype,
       [](A& a) { a.g.dtype = a.g.dtype == DType::f32 ? DType::bf16 : DType::f32; }},
      {"w is f16", StatusCode::wrong_dtype, [](A& a) { a.w.dtype = DType::f16; }},
      {"dx is bf16 (dX is f32)", StatusCode::wrong_dtype, [](A& a) { a.dx.dtype = DType::bf16; }},
      {"M = 0", StatusCode::bad_size, [](A& a) { a.g.rows = 0; a.dx.rows = 0; }},
      {"N = 0", StatusCode::bad_size, [](A& a) { a.g.cols = 0; a.w.rows = 0; }},
      {"K = -1", StatusCode::bad_size, [](A& a) { a.w.cols = -1; a.dx.cols = -1; }},
      {"w.rows != g.cols", StatusCode::inconsistent_size, [N](A& a) { a.w.rows = N - 1; }},
      {"dx rows != M", StatusCode::inconsistent_size, [](A& a) { a.dx.rows = M + 1; }},
      {"dx cols != K", StatusCode::inconsistent_size, [K](A& a) { a.dx.cols = K - 1; }},
      {"g is null", StatusCode::null_pointer, [](A& a) { a.g.data = nullptr; }},
      {"w is null", StatusCode::null_pointer, [](A& a) { a.w.data = nullptr; }},
      {"dx is null", StatusCode::null_pointer, [](A& a) { a.dx.data = nullptr; }},
      {"g is misaligned by 1 byte", StatusCode::misaligned, [](A& a) { a.g.data = byte_offset(a.g.data, 1); }},
      {"dx is g", StatusCode::aliasing, [](A& a) { a.g.data = a.dx.data; }},
      {"dx overlaps the end of w", StatusCode::aliasing,
       [N, K, es](A& a) { a.w.data = byte_offset(a.dx.data, 16 - whole_units(N * K * static_cast<std::int64_t>(es))); }},
  };
  if (t.device_buffers) {
    list.push_back({"g is pageable host memory", StatusCode::host_pointer,
                    [&host](A& a) { a.g.data = host.pageable.data(); }});
    list.push_back({"w is pinned host memory", StatusCode::host_pointer, [&host](A& a) { a.w.data = host.pinned; }});
  }
  if (t.k_multiple > 1)
    list.push_back({"K = " + std::to_string(K - 1) + ", not a multiple of " + std::to_string(t.k_multiple),
                    StatusCode::unsupported_shape, [K](A& a) { a.w.cols = K - 1; a.dx.cols = K - 1; }});
  if (t.operand_alignment > static_cast<int>(es))
    list.push_back({"w is element-aligned but " + std::to_string(es) + " bytes off " +
                        std::to_string(t.operand_alignment) + "-byte alignment",
                    StatusCode::misaligned, [es](A& a) { a.w.data = byte_offset(a.w.data, static_cast<std::int64_t>(es)); }});

  ScenarioRun run(target.progress);
  const std::vector<unsigned char> before(dx_bytes, kSentinel);
  const auto call = [&](const std::string& name, StatusCode expected, const A& a) {
    FailClosedOutcome o;
    o.scenario = name;
    o.expected = expected;
    arena.fill(dx, kSentinel, dx_bytes);
    const Status s = target.call_data(a);
    o.got = s.code;
    o.message = s.message;
    const bool same = arena.read(dx, dx_bytes) == before;
    o.output_untouched = expected == StatusCode::ok ? !same : same;  // the control must write dx
    return o;
  };
  for (const Scenario<A>& s : list) {
    if (!run.begin(s.name, s.expected)) continue;
    A a = valid();
    s.mutate(a);
    run.finish(call(s.name, s.expected, a));
  }
  const std::string control = "control: the valid call is accepted and writes dx";
  if (run.begin(control, StatusCode::ok)) run.finish(call(control, StatusCode::ok, valid()));
  return run.outcomes();
}

std::vector<FailClosedOutcome> run_weight(const BackwardFailClosedTarget& target) {
  using A = kernels::BackwardWeightArgs;
  const SubjectTraits& t = target.traits;
  const DType od = t.operand_dtype;
  const std::int64_t T = 6, N = valid_dim(t, 7), K = valid_dim(t, 9), width = 2;
  const bool keyed = t.contract.plan.row_order == RowOrder::ascending_logical_key;
  const std::size_t es = dtype_size(od);
  Arena arena({static_cast<std::size_t>(T * K) * es, static_cast<std::size_t>(T * N) * es,
               static_cast<std::size_t>(T * width) * 8, static_cast<std::size_t>(N * K) * 4,
               static_cast<std::size_t>(N) * 4},
              t.device_buffers);
  void* x = arena.region(0);
  void* g = arena.region(1);
  void* keys = arena.region(2);
  void* dw = arena.region(3);
  void* db = arena.region(4);
  const std::size_t dw_bytes = static_cast<std::size_t>(N * K) * 4, db_bytes = static_cast<std::size_t>(N) * 4;
  arena.write(x, operand_bytes(od, static_cast<std::size_t>(T * K), 0.5f).data(), static_cast<std::size_t>(T * K) * es);
  arena.write(g, operand_bytes(od, static_cast<std::size_t>(T * N), 1.0f).data(), static_cast<std::size_t>(T * N) * es);
  // Valid keys: (0, t) for token t, every one active and distinct; the key scenarios write their own.
  std::vector<std::int64_t> key_values;
  for (std::int64_t r = 0; r < T; ++r) key_values.insert(key_values.end(), {0, r});
  HostBlocks host(static_cast<std::size_t>(T * N), t.device_buffers);
  const auto valid = [&] {
    A a;
    a.x = {x, od, T, K};
    a.g = {g, od, T, N};
    if (keyed) a.keys = {keys, DType::i64, T, width};
    a.dw = {dw, DType::f32, N, K};
    a.db = {db, DType::f32, 1, N};
    return a;
  };
  struct KeyedScenario {
    Scenario<A> scenario;
    std::vector<std::int64_t> keys;  // the key values the call sees
  };
  std::vector<KeyedScenario> list;
  const auto add = [&](std::string name, StatusCode code, std::function<void(A&)> mutate) {
    list.push_back({{std::move(name), code, std::move(mutate)}, key_values});
  };
  add("x has the other operand dtype (f32 <-> bf16)", StatusCode::wrong_dtype,
      [](A& a) { a.x.dtype = a.x.dtype == DType::f32 ? DType::bf16 : DType::f32; });
  add("g is f16", StatusCode::wrong_dtype, [](A& a) { a.g.dtype = DType::f16; });
  add("dw is bf16 (dW is f32)", StatusCode::wrong_dtype, [](A& a) { a.dw.dtype = DType::bf16; });
  add("db is f64", StatusCode::wrong_dtype, [](A& a) { a.db.dtype = DType::f64; });
  add("T = -1", StatusCode::bad_size, [](A& a) {
    a.x.rows = -1;
    a.g.rows = -1;
    if (a.keys.data) a.keys.rows = -1;
  });
  add("K = 0", StatusCode::bad_size, [](A& a) { a.x.cols = 0; a.dw.cols = 0; });
  add("N = 0", StatusCode::bad_size, [](A& a) { a.g.cols = 0; a.dw.rows = 0; a.db.cols = 0; });
  add("g.rows != x.rows", StatusCode::inconsistent_size, [](A& a) { a.g.rows = T - 1; });
  add("dw rows != N", StatusCode::inconsistent_size, [N](A& a) { a.dw.rows = N + 1; });
  add("dw cols != K", StatusCode::inconsistent_size, [K](A& a) { a.dw.cols = K - 1; });
  add("db length != N", StatusCode::inconsistent_size, [N](A& a) { a.db.cols = N + 1; });
  add("x is null", StatusCode::null_pointer, [](A& a) { a.x.data = nullptr; });
  add("g is null", StatusCode::null_pointer, [](A& a) { a.g.data = nullptr; });
  add("dw is null", StatusCode::null_pointer, [](A& a) { a.dw.data = nullptr; });
  add("x is misaligned by 1 byte", StatusCode::misaligned, [](A& a) { a.x.data = byte_offset(a.x.data, 1); });
  add("dw is x", StatusCode::aliasing, [](A& a) { a.x.data = a.dw.data; });
  add("db overlaps dw", StatusCode::aliasing, [](A& a) { a.db.data = static_cast<float*>(a.dw.data) + 2; });
  add("g overlaps the end of dw", StatusCode::aliasing,
      [N, es](A& a) { a.g.data = byte_offset(a.dw.data, 16 - whole_units(T * N * static_cast<std::int64_t>(es))); });
  if (keyed) {
    // The keys the contract refuses, by shape and by value (core/logical_keys.h).
    add("keys are f32", StatusCode::bad_keys, [](A& a) { a.keys.dtype = DType::f32; });
    add("keys have 1 column", StatusCode::bad_keys, [](A& a) { a.keys.cols = 1; });
    add("keys have 4 columns", StatusCode::bad_keys, [](A& a) { a.keys.cols = 4; });
    add("keys have T - 1 rows", StatusCode::bad_keys, [](A& a) { a.keys.rows = T - 1; });
    add("keys are misaligned by 1 byte", StatusCode::misaligned, [](A& a) { a.keys.data = byte_offset(a.keys.data, 1); });
    add("dw overlaps the keys", StatusCode::aliasing, [](A& a) { a.dw.data = static_cast<std::int64_t*>(const_cast<void*>(a.keys.data)) + 1; });
    std::vector<std::int64_t> duplicate = key_values;
    duplicate[std::size_t{2} * 2 + 1] = 1;  // token 2 gets token 1's key (0, 1)
    list.push_back({{"two active rows share the key (0, 1)", StatusCode::duplicate_key, [](A&) {}}, duplicate});
    std::vector<std::int64_t> padding = key_values;
    padding[std::size_t{2} * 3] = -1;  // token 3 is padding, its gradient 1
    list.push_back({{"a padding row has gradient 1", StatusCode::padding_gradient_nonzero, [](A&) {}}, padding});
  }
  if (t.device_buffers) {
    add("x is pageable host memory", StatusCode::host_pointer, [&host](A& a) { a.x.data = host.pageable.data(); });
    add("g is pinned host memory", StatusCode::host_pointer, [&host](A& a) { a.g.data = host.pinned; });
  }
  if (t.k_multiple > 1)
    add("K = " + std::to_string(K - 1) + ", not a multiple of " + std::to_string(t.k_multiple),
        StatusCode::unsupported_shape, [K](A& a) { a.x.cols = K - 1; a.dw.cols = K - 1; });
  if (t.operand_alignment > static_cast<int>(es))
    add("x is element-aligned but " + std::to_string(es) + " bytes off " + std::to_string(t.operand_alignment) +
            "-byte alignment",
        StatusCode::misaligned, [es](A& a) { a.x.data = byte_offset(a.x.data, static_cast<std::int64_t>(es)); });

  ScenarioRun run(target.progress);
  const std::vector<unsigned char> dw_before(dw_bytes, kSentinel), db_before(db_bytes, kSentinel);
  const auto call = [&](const std::string& name, StatusCode expected, const A& a, const std::vector<std::int64_t>& k) {
    FailClosedOutcome o;
    o.scenario = name;
    o.expected = expected;
    arena.write(keys, k.data(), k.size() * 8);
    arena.fill(dw, kSentinel, dw_bytes);
    arena.fill(db, kSentinel, db_bytes);
    const Status s = target.call_weight(a);
    o.got = s.code;
    o.message = s.message;
    const bool same = arena.read(dw, dw_bytes) == dw_before && arena.read(db, db_bytes) == db_before;
    const bool written = arena.read(dw, dw_bytes) != dw_before && arena.read(db, db_bytes) != db_before;
    o.output_untouched = expected == StatusCode::ok ? written : same;  // the control must write dw and db
    return o;
  };
  for (const KeyedScenario& s : list) {
    if (!run.begin(s.scenario.name, s.scenario.expected)) continue;
    A a = valid();
    s.scenario.mutate(a);
    run.finish(call(s.scenario.name, s.scenario.expected, a, s.keys));
  }
  const std::string control = "control: the valid call is accepted and writes dw and db";
  if (run.begin(control, StatusCode::ok)) run.finish(call(control, StatusCode::ok, valid(), key_values));
  return run.outcomes();
}

}  // namespace

std::vector<FailClosedOutcome> run_backward_fail_closed(const BackwardFailClosedTarget& target) {
  switch (target.traits.contract.kind) {
    case ContractKind::backward_data:
      return run_data(target);
    case ContractKind::backward_weight:
      return run_weight(target);
    case ContractKind::forward:
      break;
  }
  throw std::invalid_argument("run_backward_fail_closed: " + target.traits.id + " is not a backward operation");
}

}  // namespace ordo
