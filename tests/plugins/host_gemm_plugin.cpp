// Host-buffer ordo subject plugins (include/ordo/subject.h) for ordo's own host tests, which dlopen
// them. One source, several shared libraries: each is compiled with exactly one of
//
//   ORDO_TEST_PLUGIN_CORRECT       "host-gemm": forward fwd.f32.fma-chain/1, backward data
//                                  bwd.dx.f32.fma-chain/1, backward weight bwd.dw.f32.fma-chain/1
//                                  (logical keys, accumulate), all fail-closed
//   ORDO_TEST_PLUGIN_DW_LAX_KEYS   "host-gemm-dw-lax-keys": the operations of CORRECT, but its dW takes keys it
//                                  must refuse with bad_keys (not int64, not 2 or 3 columns, not T rows) and
//                                  reduces in call order instead; duplicate keys and padding gradients it
//                                  still refuses (backward.dw_kernel_fail_closed must catch it, and
//                                  backward.dw_kernel_refuses_invalid_keys cannot)
//   ORDO_TEST_PLUGIN_BATCH_SWITCH  "host-gemm-batch-switch": forward; k descending when M >= 64
//   ORDO_TEST_PLUGIN_SHORT_WRITE   "host-gemm-short-write": forward; never writes the last element of y
//   ORDO_TEST_PLUGIN_OVERRUN       "host-gemm-overrun": forward; also writes y[M*N] = 0, one past the end
//   ORDO_TEST_PLUGIN_EXIT, _ABORT, _SEGFAULT, _HANG
//                                  "host-gemm-exit", "-abort", "-segfault", "-hang": forward, correct but
//                                  for the 20th call of each process, which calls exit(0), abort(), writes
//                                  through a null pointer, or sleeps forever (subjects/isolated_plugin.h
//                                  must turn each into a subject_fault or subject_timeout)
//   ORDO_TEST_PLUGIN_BAD_ABI, _BAD_COUNT, _BAD_CONTRACT, _BAD_CONTRACT_JSON, _BAD_DTYPE, _BAD_KMULTIPLE,
//   _BAD_KIND                      a describe with one defect each (abi_version 99, operation_count 0,
//                                  an unknown contract id, contract JSON with an unknown field,
//                                  operand_dtype 7, k_multiple 0, a forward operation declaring a dX
//                                  contract); their forward refuses every call with ORDO_STATUS_OTHER
//   ORDO_TEST_PLUGIN_NO_DESCRIBE   exports ordo_subject_forward (the correct one) and no describe
//
// Plain C++17, no CUDA. Compile with -ffp-contract=off: the only FMAs are the explicit std::fma, and
// `acc + b` must stay one rounded add.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <vector>

#include "ordo/subject.h"

#if (defined(ORDO_TEST_PLUGIN_CORRECT) + defined(ORDO_TEST_PLUGIN_DW_LAX_KEYS) + defined(ORDO_TEST_PLUGIN_BATCH_SWITCH) +                                    \
     defined(ORDO_TEST_PLUGIN_SHORT_WRITE) + defined(ORDO_TEST_PLUGIN_OVERRUN) + defined(ORDO_TEST_PLUGIN_BAD_ABI) + \
     defined(ORDO_TEST_PLUGIN_BAD_COUNT) + defined(ORDO_TEST_PLUGIN_BAD_CONTRACT) +                                  \
     defined(ORDO_TEST_PLUGIN_BAD_CONTRACT_JSON) + defined(ORDO_TEST_PLUGIN_BAD_DTYPE) +                             \
     defined(ORDO_TEST_PLUGIN_BAD_KMULTIPLE) + defined(ORDO_TEST_PLUGIN_BAD_KIND) +                                  \
     defined(ORDO_TEST_PLUGIN_NO_DESCRIBE) + defined(ORDO_TEST_PLUGIN_EXIT) + defined(ORDO_TEST_PLUGIN_ABORT) +      \
     defined(ORDO_TEST_PLUGIN_SEGFAULT) + defined(ORDO_TEST_PLUGIN_HANG)) != 1
#error "compile host_gemm_plugin.cpp with exactly one ORDO_TEST_PLUGIN_* behaviour defined"
#endif

#if defined(ORDO_TEST_PLUGIN_BAD_ABI) || defined(ORDO_TEST_PLUGIN_BAD_COUNT) ||              \
    defined(ORDO_TEST_PLUGIN_BAD_CONTRACT) || defined(ORDO_TEST_PLUGIN_BAD_CONTRACT_JSON) || \
    defined(ORDO_TEST_PLUGIN_BAD_DTYPE) || defined(ORDO_TEST_PLUGIN_BAD_KMULTIPLE) ||        \
    defined(ORDO_TEST_PLUGIN_BAD_KIND)
#define ORDO_TEST_PLUGIN_BAD_DESCRIBE 1
#endif

// The builds that declare all three operations.
#if defined(ORDO_TEST_PLUGIN_CORRECT) || defined(ORDO_TEST_PLUGIN_DW_LAX_KEYS)
#define ORDO_TEST_PLUGIN_ALL_OPERATIONS 1
#endif

#define ORDO_PLUGIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

#if defined(ORDO_TEST_PLUGIN_CORRECT) || defined(ORDO_TEST_PLUGIN_NO_DESCRIBE)
[[maybe_unused]] constexpr const char* kName = "host-gemm";
#elif defined(ORDO_TEST_PLUGIN_DW_LAX_KEYS)
[[maybe_unused]] constexpr const char* kName = "host-gemm-dw-lax-keys";
#elif defined(ORDO_TEST_PLUGIN_BATCH_SWITCH)
[[maybe_unused]] constexpr const char* kName = "host-gemm-batch-switch";
#elif defined(ORDO_TEST_PLUGIN_SHORT_WRITE)
[[maybe_unused]] constexpr const char* kName = "host-gemm-short-write";
#elif defined(ORDO_TEST_PLUGIN_OVERRUN)
[[maybe_unused]] constexpr const char* kName = "host-gemm-overrun";
#elif defined(ORDO_TEST_PLUGIN_EXIT)
[[maybe_unused]] constexpr const char* kName = "host-gemm-exit";
#elif defined(ORDO_TEST_PLUGIN_ABORT)
[[maybe_unused]] constexpr const char* kName = "host-gemm-abort";
#elif defined(ORDO_TEST_PLUGIN_SEGFAULT)
[[maybe_unused]] constexpr const char* kName = "host-gemm-segfault";
#elif defined(ORDO_TEST_PLUGIN_HANG)
[[maybe_unused]] constexpr const char* kName = "host-gemm-hang";
#elif defined(ORDO_TEST_PLUGIN_BAD_ABI)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-abi";
#elif defined(ORDO_TEST_PLUGIN_BAD_COUNT)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-count";
#elif defined(ORDO_TEST_PLUGIN_BAD_CONTRACT)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-contract";
#elif defined(ORDO_TEST_PLUGIN_BAD_CONTRACT_JSON)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-contract-json";
#elif defined(ORDO_TEST_PLUGIN_BAD_DTYPE)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-dtype";
#elif defined(ORDO_TEST_PLUGIN_BAD_KMULTIPLE)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-kmultiple";
#elif defined(ORDO_TEST_PLUGIN_BAD_KIND)
[[maybe_unused]] constexpr const char* kName = "host-gemm-bad-kind";
#endif

int refuse(char* message, size_t message_size, int status, const char* fmt, ...) __attribute__((format(printf, 4, 5)));

int refuse(char* message, size_t message_size, int status, const char* fmt, ...) {
  if (message != nullptr && message_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(message, message_size, fmt, ap);
    va_end(ap);
  }
  return status;
}

void clear_message(char* message, size_t message_size) {
  if (message != nullptr && message_size > 0) message[0] = '\0';
}

}  // namespace

#if !defined(ORDO_TEST_PLUGIN_BAD_DESCRIBE)
namespace {

// Dimensions are at most 2^31 - 1, so every product of two is below 2^62; no operand holds more than
// 2^40 elements.
constexpr int64_t kMaxDim = INT32_MAX;
constexpr int64_t kMaxElements = int64_t{1} << 40;

long long ll(int64_t v) { return static_cast<long long>(v); }

const char* dtype_name(int32_t t) {
  switch (t) {
    case ORDO_DTYPE_F32:
      return "f32";
    case ORDO_DTYPE_BF16:
      return "bf16";
    case ORDO_DTYPE_F16:
      return "f16";
    case ORDO_DTYPE_F64:
      return "f64";
    case ORDO_DTYPE_I64:
      return "i64";
    default:
      return "unknown";
  }
}

// Every NaN result is 0x7fffffff.
float finish(float v) {
  if (std::isnan(v)) {
    const uint32_t bits = 0x7fffffffu;
    std::memcpy(&v, &bits, sizeof v);
  }
  return v;
}

#define ORDO_CHECK(expr)                              \
  do {                                                \
    const int ordo_status_ = (expr);                  \
    if (ordo_status_ != ORDO_OK) return ordo_status_; \
  } while (0)

// One operand's dtype, pointer or element count for Check's list forms; `present` false skips it (an
// optional operand that is absent, or a pointer that may be null for an empty operand).
struct DtypeOf {
  const char* name;
  int32_t got;
  bool present = true;
};
struct Dim {
  const char* what;
  int64_t value;
  int64_t lo;
};
struct Volume {
  const char* what;
  int64_t elements;
};
struct PointerOf {
  const char* name;
  const void* ptr;
  bool present = true;
};

// The result of one check: ORDO_OK, or a status with the message already written.
struct Check {
  char* message;
  size_t message_size;

  int dtype(const char* name, int32_t got, int32_t want) const {
    if (got == want) return ORDO_OK;
    return refuse(message, message_size, ORDO_STATUS_WRONG_DTYPE, "%s is %s (%d); expected %s", name, dtype_name(got),
                  got, dtype_name(want));
  }
  // bad size unless lo <= value <= kMaxDim.
  int dim(const char* what, int64_t value, int64_t lo) const {
    if (value < lo)
      return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s = %lld must be >= %lld", what, ll(value), ll(lo));
    if (value > kMaxDim)
      return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s = %lld is too large (limit %lld)", what, ll(value),
                    ll(kMaxDim));
    return ORDO_OK;
  }
  int volume(const char* what, int64_t elements) const {
    if (elements <= kMaxElements) return ORDO_OK;
    return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s has %lld elements, too large (limit %lld)", what,
                  ll(elements), ll(kMaxElements));
  }
  int shape(const char* name, int64_t rows, int64_t cols, int64_t want_rows, int64_t want_cols,
            const char* from) const {
    if (rows == want_rows && cols == want_cols) return ORDO_OK;
    return refuse(message, message_size, ORDO_STATUS_INCONSISTENT_SIZE,
                  "%s is [%lld, %lld]; expected [%lld, %lld] (%s)", name, ll(rows), ll(cols), ll(want_rows),
                  ll(want_cols), from);
  }
  // An operand dimension that must equal one already read: "w.cols (5) != x.cols (K = 4)".
  int same(const char* name, int64_t value, const char* from, const char* dim, int64_t want) const {
    if (value == want) return ORDO_OK;
    return refuse(message, message_size, ORDO_STATUS_INCONSISTENT_SIZE, "%s (%lld) != %s (%s = %lld)", name, ll(value),
                  from, dim, ll(want));
  }
  int not_null(const char* name, const void* p) const {
    if (p != nullptr) return ORDO_OK;
    return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "%s is null", name);
  }

  // The checks every entry point makes in the same order, each list in argument order: the args struct
  // itself, the operands' dtypes (all f32), the dimensions then the operands' sizes, the data pointers.
  template <class Args>
  int args(const Args* a, const char* type_name) const {
    if (a == nullptr) return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "args is null");
    if (a->struct_size != sizeof(Args))
      return refuse(message, message_size, ORDO_STATUS_OTHER, "args->struct_size is %u; expected sizeof(%s) = %zu",
                    static_cast<unsigned>(a->struct_size), type_name, sizeof(Args));
    return ORDO_OK;
  }
  int all_f32(std::initializer_list<DtypeOf> operands) const {
    for (const DtypeOf& o : operands)
      if (o.present) ORDO_CHECK(dtype(o.name, o.got, ORDO_DTYPE_F32));
    return ORDO_OK;
  }
  int sizes(std::initializer_list<Dim> dims, std::initializer_list<Volume> volumes) const {
    for (const Dim& d : dims) ORDO_CHECK(dim(d.what, d.value, d.lo));
    for (const Volume& v : volumes) ORDO_CHECK(volume(v.what, v.elements));
    return ORDO_OK;
  }
  int all_not_null(std::initializer_list<PointerOf> pointers) const {
    for (const PointerOf& p : pointers)
      if (p.present) ORDO_CHECK(not_null(p.name, p.ptr));
    return ORDO_OK;
  }
};

// An operand for the alignment and aliasing checks; a null pointer or an empty range is skipped.
struct Operand {
  const char* name;
  const void* ptr;
  int64_t bytes;
  int64_t align;
};

int check_alignment(const Check& c, const Operand* ops, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (ops[i].ptr != nullptr && reinterpret_cast<uintptr_t>(ops[i].ptr) % static_cast<uintptr_t>(ops[i].align) != 0)
      return refuse(c.message, c.message_size, ORDO_STATUS_MISALIGNED, "%s (%p) is not %lld-byte aligned", ops[i].name,
                    ops[i].ptr, ll(ops[i].align));
  return ORDO_OK;
}

// Each of the first n_outputs operands against every other one: half-open byte ranges; an end that
// would wrap is clamped to the top of the address space, which can only report more overlap.
int check_aliasing(const Check& c, const Operand* ops, size_t n, size_t n_outputs) {
  auto end_of = [](const Operand& o) {
    const auto p = reinterpret_cast<uintptr_t>(o.ptr);
    const auto b = static_cast<uintptr_t>(o.bytes);
    return b > UINTPTR_MAX - p ? UINTPTR_MAX : p + b;
  };
  for (size_t i = 0; i < n_outputs; ++i) {
    if (ops[i].ptr == nullptr || ops[i].bytes == 0) continue;
    const auto o0 = reinterpret_cast<uintptr_t>(ops[i].ptr);
    const uintptr_t o1 = end_of(ops[i]);
    for (size_t j = 0; j < n; ++j) {
      if (j == i || ops[j].ptr == nullptr || ops[j].bytes == 0) continue;
      const auto p0 = reinterpret_cast<uintptr_t>(ops[j].ptr);
      const uintptr_t p1 = end_of(ops[j]);
      if (o0 < p1 && p0 < o1)
        return refuse(c.message, c.message_size, ORDO_STATUS_ALIASING, "%s [%p, %p) overlaps %s [%p, %p)", ops[i].name,
                      ops[i].ptr, reinterpret_cast<const void*>(o1), ops[j].name, ops[j].ptr,
                      reinterpret_cast<const void*>(p1));
    }
  }
  return ORDO_OK;
}

int forward_impl(const ordo_forward_args* args, char* message, size_t message_size) {
  clear_message(message, message_size);
  const Check c{message, message_size};
  ORDO_CHECK(c.args(args, "ordo_forward_args"));
  const ordo_forward_args& a = *args;

  const bool has_bias = a.bias.data != nullptr;
  ORDO_CHECK(c.all_f32({{"x.dtype", a.x.dtype},
                        {"w.dtype", a.w.dtype},
                        {"bias.dtype", a.bias.dtype, has_bias},
                        {"y.dtype", a.y.dtype}}));

  const int64_t M = a.x.rows, K = a.x.cols, N = a.w.rows;
  ORDO_CHECK(c.sizes({{"x.rows (M)", M, 1}, {"x.cols (K)", K, 1}, {"w.rows (N)", N, 1}},
                     {{"x", M * K}, {"w", N * K}, {"y", M * N}}));

  ORDO_CHECK(c.same("w.cols", a.w.cols, "x.cols", "K", K));
  ORDO_CHECK(c.shape("y", a.y.rows, a.y.cols, M, N, "x.rows, w.rows"));
  if (has_bias) ORDO_CHECK(c.shape("bias", a.bias.rows, a.bias.cols, 1, N, "1, w.rows"));

  ORDO_CHECK(c.all_not_null({{"x.data", a.x.data}, {"w.data", a.w.data}, {"y.data", a.y.data}}));

  const Operand ops[4] = {{"y", a.y.data, M * N * 4, 4},
                          {"x", a.x.data, M * K * 4, 4},
                          {"w", a.w.data, N * K * 4, 4},
                          {"bias", a.bias.data, has_bias ? N * 4 : 0, 4}};
  // Alignment in argument order: x, w, bias, y.
  const Operand in_order[4] = {ops[1], ops[2], ops[3], ops[0]};
  ORDO_CHECK(check_alignment(c, in_order, 4));
  ORDO_CHECK(check_aliasing(c, ops, 4, 1));

  const auto* x = static_cast<const float*>(a.x.data);
  const auto* w = static_cast<const float*>(a.w.data);
  const auto* b = has_bias ? static_cast<const float*>(a.bias.data) : nullptr;
  auto* y = static_cast<float*>(a.y.data);
#if defined(ORDO_TEST_PLUGIN_BATCH_SWITCH)
  const bool descending = M >= 64;  // the defect: another order above a batch size
#else
  const bool descending = false;
#endif
  for (int64_t m = 0; m < M; ++m) {
    const float* xr = x + m * K;
    for (int64_t n = 0; n < N; ++n) {
      const float* wr = w + n * K;
      float acc = 0.0f;  // +0
      if (descending) {
        for (int64_t k = K - 1; k >= 0; --k) acc = std::fma(xr[k], wr[k], acc);
      } else {
        for (int64_t k = 0; k < K; ++k) acc = std::fma(xr[k], wr[k], acc);
      }
      if (b != nullptr) acc = acc + b[n];
#if defined(ORDO_TEST_PLUGIN_SHORT_WRITE)
      if (m == M - 1 && n == N - 1) continue;  // the defect: the last element is never written
#endif
      y[m * N + n] = finish(acc);
    }
  }
#if defined(ORDO_TEST_PLUGIN_OVERRUN)
  y[M * N] = 0.0f;  // the defect: one float past the end of y
#endif
  return ORDO_OK;
}

// No exception may cross the C ABI: a failed allocation of the scratch accumulators is a refusal.
template <class F>
int guarded(char* message, size_t message_size, F&& run) {
  try {
    return run();
  } catch (const std::exception& e) {
    return refuse(message, message_size, ORDO_STATUS_OTHER, "%s: %s", kName, e.what());
  } catch (...) {
    return refuse(message, message_size, ORDO_STATUS_OTHER, "%s: unknown exception", kName);
  }
}

}  // namespace
#endif  // !ORDO_TEST_PLUGIN_BAD_DESCRIBE

#if defined(ORDO_TEST_PLUGIN_ALL_OPERATIONS)
namespace {

int backward_data_impl(const ordo_backward_data_args* args, char* message, size_t message_size) {
  clear_message(message, message_size);
  const Check c{message, message_size};
  ORDO_CHECK(c.args(args, "ordo_backward_data_args"));
  const ordo_backward_data_args& a = *args;

  ORDO_CHECK(c.all_f32({{"g.dtype", a.g.dtype}, {"w.dtype", a.w.dtype}, {"dx.dtype", a.dx.dtype}}));

  const int64_t M = a.g.rows, N = a.g.cols, K = a.w.cols;
  ORDO_CHECK(c.sizes({{"g.rows (M)", M, 1}, {"g.cols (N)", N, 1}, {"w.cols (K)", K, 1}},
                     {{"g", M * N}, {"w", N * K}, {"dx", M * K}}));

  ORDO_CHECK(c.same("w.rows", a.w.rows, "g.cols", "N", N));
  ORDO_CHECK(c.shape("dx", a.dx.rows, a.dx.cols, M, K, "g.rows, w.cols"));

  ORDO_CHECK(c.all_not_null({{"g.data", a.g.data}, {"w.data", a.w.data}, {"dx.data", a.dx.data}}));

  const Operand ops[3] = {
      {"dx", a.dx.data, M * K * 4, 4}, {"g", a.g.data, M * N * 4, 4}, {"w", a.w.data, N * K * 4, 4}};
  const Operand in_order[3] = {ops[1], ops[2], ops[0]};
  ORDO_CHECK(check_alignment(c, in_order, 3));
  ORDO_CHECK(check_aliasing(c, ops, 3, 1));

  // dX[m,k] = one chain over n ascending of G[m,n] W[n,k] from +0; the K chains of a row advance together.
  const auto* g = static_cast<const float*>(a.g.data);
  const auto* w = static_cast<const float*>(a.w.data);
  auto* dx = static_cast<float*>(a.dx.data);
  std::vector<float> acc(static_cast<size_t>(K));
  for (int64_t m = 0; m < M; ++m) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t n = 0; n < N; ++n) {
      const float gv = g[m * N + n];
      const float* wr = w + n * K;
      for (int64_t k = 0; k < K; ++k) acc[static_cast<size_t>(k)] = std::fma(gv, wr[k], acc[static_cast<size_t>(k)]);
    }
    for (int64_t k = 0; k < K; ++k) dx[m * K + k] = finish(acc[static_cast<size_t>(k)]);
  }
  return ORDO_OK;
}

// -1, 0 or 1 as key a sorts before, with or after key b (lexicographic, signed).
int compare_keys(const int64_t* ka, const int64_t* kb, int64_t width) {
  for (int64_t i = 0; i < width; ++i) {
    if (ka[i] < kb[i]) return -1;
    if (ka[i] > kb[i]) return 1;
  }
  return 0;
}

struct KeyText {
  char text[80];
};

KeyText describe_key(const int64_t* key, int64_t width) {  // "(3, -1)"
  KeyText k{};
  if (width == 3)
    std::snprintf(k.text, sizeof k.text, "(%lld, %lld, %lld)", ll(key[0]), ll(key[1]), ll(key[2]));
  else
    std::snprintf(k.text, sizeof k.text, "(%lld, %lld)", ll(key[0]), ll(key[1]));
  return k;
}

int backward_weight_impl(const ordo_backward_weight_args* args, char* message, size_t message_size) {
  clear_message(message, message_size);
  const Check c{message, message_size};
  ORDO_CHECK(c.args(args, "ordo_backward_weight_args"));
  const ordo_backward_weight_args& a = *args;
  if (a.accumulate != 0 && a.accumulate != 1)
    return refuse(message, message_size, ORDO_STATUS_OTHER, "accumulate is %d; expected 0 or 1", a.accumulate);

  const bool has_db = a.db.data != nullptr;
  bool has_keys = a.keys.data != nullptr;  // the header: keys.data == NULL means call order
  ORDO_CHECK(c.all_f32(
      {{"x.dtype", a.x.dtype}, {"g.dtype", a.g.dtype}, {"dw.dtype", a.dw.dtype}, {"db.dtype", a.db.dtype, has_db}}));

  const int64_t T = a.x.rows, K = a.x.cols, N = a.g.cols;
  ORDO_CHECK(c.sizes({{"x.rows (T)", T, 0}, {"x.cols (K)", K, 1}, {"g.cols (N)", N, 1}},
                     {{"x", T * K}, {"g", T * N}, {"dw", N * K}}));

  ORDO_CHECK(c.same("g.rows", a.g.rows, "x.rows", "T", T));
  ORDO_CHECK(c.shape("dw", a.dw.rows, a.dw.cols, N, K, "g.cols, x.cols"));
  if (has_db) ORDO_CHECK(c.shape("db", a.db.rows, a.db.cols, 1, N, "1, g.cols"));

  int64_t width = a.keys.cols;
#if defined(ORDO_TEST_PLUGIN_DW_LAX_KEYS)
  // The defect: keys of the wrong type or shape are not refused; the tokens are reduced in call order.
  if (has_keys && (a.keys.dtype != ORDO_DTYPE_I64 || (width != 2 && width != 3) || a.keys.rows != T)) {
    has_keys = false;
    width = 0;
  }
#endif
  if (has_keys) {
    if (a.keys.dtype != ORDO_DTYPE_I64)
      return refuse(message, message_size, ORDO_STATUS_BAD_KEYS, "keys.dtype is %s (%d); logical keys are i64",
                    dtype_name(a.keys.dtype), a.keys.dtype);
    if (width != 2 && width != 3)
      return refuse(message, message_size, ORDO_STATUS_BAD_KEYS, "keys have %lld columns; logical keys have 2 or 3",
                    ll(width));
    if (a.keys.rows != T)
      return refuse(message, message_size, ORDO_STATUS_BAD_KEYS, "keys have %lld rows for %lld token rows (x.rows)",
                    ll(a.keys.rows), ll(T));
  }

  ORDO_CHECK(c.all_not_null({{"x.data", a.x.data, T > 0}, {"g.data", a.g.data, T > 0}, {"dw.data", a.dw.data}}));

  const Operand ops[5] = {{"dw", a.dw.data, N * K * 4, 4},
                          {"db", a.db.data, has_db ? N * 4 : 0, 4},
                          {"x", a.x.data, T * K * 4, 4},
                          {"g", a.g.data, T * N * 4, 4},
                          {"keys", a.keys.data, has_keys ? T * width * 8 : 0, 8}};
  const Operand in_order[5] = {ops[2], ops[3], ops[4], ops[0], ops[1]};
  ORDO_CHECK(check_alignment(c, in_order, 5));
  ORDO_CHECK(check_aliasing(c, ops, 5, 2));

  const auto* x = static_cast<const float*>(a.x.data);
  const auto* g = static_cast<const float*>(a.g.data);
  auto* dw = static_cast<float*>(a.dw.data);
  auto* db = has_db ? static_cast<float*>(a.db.data) : nullptr;

  // The tokens in reduction order: active rows by ascending key, or every row in call order.
  std::vector<int64_t> rows;
  if (has_keys) {
    const auto* keys = static_cast<const int64_t*>(a.keys.data);
    auto key = [&](int64_t t) { return keys + t * width; };
    for (int64_t t = 0; t < T; ++t)
      if (key(t)[0] >= 0) rows.push_back(t);
    std::stable_sort(rows.begin(), rows.end(),
                     [&](int64_t r, int64_t s) { return compare_keys(key(r), key(s), width) < 0; });
    for (size_t i = 1; i < rows.size(); ++i)
      if (compare_keys(key(rows[i - 1]), key(rows[i]), width) == 0)
        return refuse(message, message_size, ORDO_STATUS_DUPLICATE_KEY, "rows %lld and %lld share the key %s",
                      ll(rows[i - 1]), ll(rows[i]), describe_key(key(rows[i]), width).text);
    for (int64_t t = 0; t < T; ++t) {
      if (key(t)[0] >= 0) continue;
      for (int64_t n = 0; n < N; ++n)
        if (!(g[t * N + n] == 0.0f))  // NaN fails this too: it would vanish with the dropped row
          return refuse(message, message_size, ORDO_STATUS_PADDING_GRADIENT_NONZERO,
                        "padding row %lld (key %s) has gradient %a in column %lld", ll(t),
                        describe_key(key(t), width).text, static_cast<double>(g[t * N + n]), ll(n));
    }
  } else {
    for (int64_t t = 0; t < T; ++t) rows.push_back(t);
  }

  // dW[n,k] = one FMA chain over the tokens of G[t,n] X[t,k], from +0 or from the current dW[n,k]. All
  // chains advance together, one token at a time; each element still sees the tokens in order.
  const size_t nk = static_cast<size_t>(N * K);
  std::vector<float> acc(nk, 0.0f);
  if (a.accumulate == 1) std::copy(dw, dw + nk, acc.begin());
  for (const int64_t t : rows) {
    const float* xr = x + t * K;
    const float* gr = g + t * N;
    for (int64_t n = 0; n < N; ++n) {
      const float gv = gr[n];
      float* an = acc.data() + n * K;
      for (int64_t k = 0; k < K; ++k) an[k] = std::fma(gv, xr[k], an[k]);
    }
  }
  if (db != nullptr) {
    std::vector<float> bacc(static_cast<size_t>(N), 0.0f);
    if (a.accumulate == 1) std::copy(db, db + N, bacc.begin());
    for (const int64_t t : rows)
      for (int64_t n = 0; n < N; ++n) bacc[static_cast<size_t>(n)] = bacc[static_cast<size_t>(n)] + g[t * N + n];
    for (int64_t n = 0; n < N; ++n) db[n] = finish(bacc[static_cast<size_t>(n)]);
  }
  for (size_t i = 0; i < nk; ++i) dw[i] = finish(acc[i]);
  return ORDO_OK;
}

}  // namespace
#endif  // ORDO_TEST_PLUGIN_ALL_OPERATIONS

// --- describe --------------------------------------------------------------------------------------

#if !defined(ORDO_TEST_PLUGIN_NO_DESCRIBE)
namespace {

constexpr uint32_t kF32Out = 1u << ORDO_DTYPE_F32;

#if defined(ORDO_TEST_PLUGIN_ALL_OPERATIONS)
const ordo_operation_info kOperations[] = {
    {ORDO_OP_FORWARD, "fwd.f32.fma-chain/1", ORDO_DTYPE_F32, kF32Out, 1, 0, 0, 0, ORDO_SUBJECT_FAIL_CLOSED},
    {ORDO_OP_BACKWARD_DATA, "bwd.dx.f32.fma-chain/1", ORDO_DTYPE_F32, kF32Out, 1, 0, 0, 0, ORDO_SUBJECT_FAIL_CLOSED},
    {ORDO_OP_BACKWARD_WEIGHT, "bwd.dw.f32.fma-chain/1", ORDO_DTYPE_F32, kF32Out, 1, 0, 0, 0,
     ORDO_SUBJECT_FAIL_CLOSED | ORDO_SUBJECT_ACCUMULATE},
};
#else
// One forward operation; a BAD_* build changes exactly one thing about it (or about the info).
#if defined(ORDO_TEST_PLUGIN_BAD_CONTRACT)
constexpr const char* kContract = "no.such.contract/1";
#elif defined(ORDO_TEST_PLUGIN_BAD_CONTRACT_JSON)
constexpr const char* kContract =
    "{\"schema\":\"ordo.contract/1\",\"id\":\"user.f32/1\",\"operation\":\"forward\",\"operands\":\"f32\","
    "\"step\":{\"kind\":\"fma_rn\"},\"k_structure\":{\"kind\":\"chain\"},\"bias\":\"after_chain_add_rn\","
    "\"output\":[\"f32\"],\"colour\":\"red\"}";
#elif defined(ORDO_TEST_PLUGIN_BAD_KIND)
constexpr const char* kContract = "bwd.dx.f32.fma-chain/1";  // a dX contract on a forward operation
#else
constexpr const char* kContract = "fwd.f32.fma-chain/1";
#endif
#if defined(ORDO_TEST_PLUGIN_BAD_DTYPE)
constexpr int32_t kOperandDtype = 7;  // no such ORDO_DTYPE_*
#else
constexpr int32_t kOperandDtype = ORDO_DTYPE_F32;
#endif
#if defined(ORDO_TEST_PLUGIN_BAD_KMULTIPLE)
constexpr int32_t kKMultiple = 0;
#else
constexpr int32_t kKMultiple = 1;
#endif
const ordo_operation_info kOperations[] = {
    {ORDO_OP_FORWARD, kContract, kOperandDtype, kF32Out, kKMultiple, 0, 0, 0, ORDO_SUBJECT_FAIL_CLOSED},
};
#endif

}  // namespace

ORDO_PLUGIN_EXPORT int ordo_subject_describe(ordo_subject_info* info) {
  if (info == nullptr) return ORDO_STATUS_NULL_POINTER;
#if defined(ORDO_TEST_PLUGIN_BAD_ABI)
  info->abi_version = 99;
#else
  info->abi_version = ORDO_SUBJECT_ABI_VERSION;
#endif
  info->struct_size = sizeof(ordo_subject_info);
  info->name = kName;
  info->version = "1";
  info->buffers = ORDO_BUFFERS_HOST;
#if defined(ORDO_TEST_PLUGIN_BAD_COUNT)
  info->operation_count = 0;
#else
  info->operation_count = static_cast<uint32_t>(sizeof kOperations / sizeof kOperations[0]);
#endif
  info->operations = kOperations;
  return ORDO_OK;
}
#endif  // !ORDO_TEST_PLUGIN_NO_DESCRIBE

// --- run entry points ------------------------------------------------------------------------------

namespace {

// The process-ending behaviours, on the 20th forward call of each process (a fresh process counts from
// zero again): every run meets them, and most calls still succeed.
[[maybe_unused]] void misbehave_on_the_20th_call() {
#if defined(ORDO_TEST_PLUGIN_EXIT) || defined(ORDO_TEST_PLUGIN_ABORT) || defined(ORDO_TEST_PLUGIN_SEGFAULT) || \
    defined(ORDO_TEST_PLUGIN_HANG)
  static std::atomic<int> calls{0};
  if (++calls != 20) return;
#if defined(ORDO_TEST_PLUGIN_EXIT)
  std::exit(0);
#elif defined(ORDO_TEST_PLUGIN_ABORT)
  std::abort();
#elif defined(ORDO_TEST_PLUGIN_SEGFAULT)
  volatile std::uintptr_t address = 0;  // volatile: the compiler cannot see the null and drop the store
  *reinterpret_cast<volatile int*>(address) = 1;
#elif defined(ORDO_TEST_PLUGIN_HANG)
  for (;;) pause();
#endif
#endif
}

}  // namespace

ORDO_PLUGIN_EXPORT int ordo_subject_forward(const ordo_forward_args* args, char* message, size_t message_size) {
#if defined(ORDO_TEST_PLUGIN_BAD_DESCRIBE)
  (void)args;
  clear_message(message, message_size);
  return refuse(message, message_size, ORDO_STATUS_OTHER, "%s: a malformed-describe test plugin runs nothing", kName);
#else
  misbehave_on_the_20th_call();
  return guarded(message, message_size, [&] { return forward_impl(args, message, message_size); });
#endif
}

#if defined(ORDO_TEST_PLUGIN_ALL_OPERATIONS)
ORDO_PLUGIN_EXPORT int ordo_subject_backward_data(const ordo_backward_data_args* args, char* message,
                                                  size_t message_size) {
  return guarded(message, message_size, [&] { return backward_data_impl(args, message, message_size); });
}

ORDO_PLUGIN_EXPORT int ordo_subject_backward_weight(const ordo_backward_weight_args* args, char* message,
                                                    size_t message_size) {
  return guarded(message, message_size, [&] { return backward_weight_impl(args, message, message_size); });
}
#endif
