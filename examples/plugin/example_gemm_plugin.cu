// example-gemm: a small CUDA GEMM packaged as an ordo subject plugin (include/ordo/subject.h).
//
//   Y[M,N] = X[M,K] W[N,K]^T (+ b[N]), FP32, device buffers, contract fwd.f32.fma-chain/1:
//   every output is one chain  acc = +0; for k = 0..K-1: acc = fma_rn(x[m,k], w[n,k], acc);
//   then y = add_rn(acc, b[n]) when there is a bias.
//
// The kernel is the textbook shared-memory tile: 16x16 outputs per block, one output per thread, K
// staged through shared memory 16 at a time. Each thread runs exactly the K steps of its chain: the
// last, partial K tile is cut short rather than padded with zero products (fma(0, 0, -0) is +0, so a
// padded step could change the sign of a zero result). No split-K, no atomics; NaN results are the
// 0x7fffffff CUDA arithmetic produces anyway.
//
// Built with -DORDO_EXAMPLE_BROKEN the same source becomes "example-gemm-broken": for K > 64 every
// output is two chains, k in [0, K/2) and [K/2, K), each from +0, added at the end (a realistic
// split-K). It still claims fwd.f32.fma-chain/1, and ordo must catch it.
//
// Compile with --fmad=false (no contraction anywhere; the FMAs are the explicit __fmaf_rn).
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "ordo/subject.h"

#define ORDO_EXAMPLE_EXPORT __attribute__((visibility("default")))

namespace {

#ifdef ORDO_EXAMPLE_BROKEN
constexpr const char* kName = "example-gemm-broken";
#else
constexpr const char* kName = "example-gemm";
#endif

constexpr int kTile = 16;  // outputs per block in M and N, and the K step through shared memory
// Index limits of the kernel: int indices with room for k0 + kTile, and the N tiles on gridDim.y.
constexpr int64_t kMaxDim = INT32_MAX - 255;
constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxElements = int64_t{1} << 60;

static_assert(kTile * kTile == 256, "one thread per output of a 16x16 tile");

__global__ void __launch_bounds__(256)
    gemm_f32_fma_chain_16x16(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ bias,
                             float* __restrict__ y, int M, int N, int K) {
  // xs[i][kk] = x[m0 + i, k0 + kk], ws[j][kk] = w[n0 + j, k0 + kk]; +1 column against bank conflicts.
  __shared__ float xs[kTile][kTile + 1];
  __shared__ float ws[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x);  // output column within the tile (n), K lane when loading
  const int ty = static_cast<int>(threadIdx.y);  // output row within the tile (m), tile row when loading
  const int m0 = static_cast<int>(blockIdx.x) * kTile;
  const int n0 = static_cast<int>(blockIdx.y) * kTile;
  const int m = m0 + ty;
  const int n = n0 + tx;

  float acc = 0.0f;  // +0: the start of the chain
#ifdef ORDO_EXAMPLE_BROKEN
  // The defect: above K = 64 the steps k >= K/2 go to a second chain, also from +0.
  const int split = K > 64 ? K / 2 : K;
  float acc_hi = 0.0f;
#endif
  for (int k0 = 0; k0 < K; k0 += kTile) {
    const int kl = k0 + tx;
    const bool k_in = kl < K;
    xs[ty][tx] = (m0 + ty < M && k_in) ? x[static_cast<size_t>(m0 + ty) * static_cast<size_t>(K) + kl] : 0.0f;
    ws[ty][tx] = (n0 + ty < N && k_in) ? w[static_cast<size_t>(n0 + ty) * static_cast<size_t>(K) + kl] : 0.0f;
    __syncthreads();
    const int steps = K - k0 < kTile ? K - k0 : kTile;  // the chain's own steps only: no padded products
    for (int kk = 0; kk < steps; ++kk) {
#ifdef ORDO_EXAMPLE_BROKEN
      if (k0 + kk >= split) {
        acc_hi = __fmaf_rn(xs[ty][kk], ws[tx][kk], acc_hi);
        continue;
      }
#endif
      acc = __fmaf_rn(xs[ty][kk], ws[tx][kk], acc);
    }
    __syncthreads();
  }
#ifdef ORDO_EXAMPLE_BROKEN
  if (split < K) acc = __fadd_rn(acc, acc_hi);
#endif
  if (m < M && n < N) {
    if (bias != nullptr) acc = __fadd_rn(acc, bias[n]);
    y[static_cast<size_t>(m) * static_cast<size_t>(N) + static_cast<size_t>(n)] = acc;
  }
}

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

long long ll(int64_t v) { return static_cast<long long>(v); }

// A device operand for the pointer checks.
struct Operand {
  const char* name;
  const void* ptr;
  int64_t bytes;
};

const ordo_operation_info kOperations[1] = {{
    ORDO_OP_FORWARD,           // op
    "fwd.f32.fma-chain/1",     // contract
    ORDO_DTYPE_F32,            // operand_dtype
    1u << ORDO_DTYPE_F32,      // output_dtypes
    1,                         // k_multiple
    0,                         // alignment: the element size
    80,                        // min_sm
    0,                         // max_sm
    ORDO_SUBJECT_FAIL_CLOSED,  // flags
}};

}  // namespace

extern "C" ORDO_EXAMPLE_EXPORT int ordo_subject_describe(ordo_subject_info* info) {
  if (info == nullptr) return ORDO_STATUS_NULL_POINTER;
  info->abi_version = ORDO_SUBJECT_ABI_VERSION;
  info->struct_size = sizeof(ordo_subject_info);
  info->name = kName;
  info->version = "1";
  info->buffers = ORDO_BUFFERS_DEVICE;
  info->operation_count = 1;
  info->operations = kOperations;
  return ORDO_OK;
}

extern "C" ORDO_EXAMPLE_EXPORT int ordo_subject_forward(const ordo_forward_args* args, char* message,
                                                        size_t message_size) {
  if (message != nullptr && message_size > 0) message[0] = '\0';
  if (args == nullptr) return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "args is null");
  const ordo_forward_args& a = *args;

  // --- struct_size ---------------------------------------------------------------------------------
  if (a.struct_size != sizeof(ordo_forward_args))
    return refuse(message, message_size, ORDO_STATUS_OTHER,
                  "args->struct_size is %u; this library was built against ABI %u with sizeof(ordo_forward_args) = %zu",
                  static_cast<unsigned>(a.struct_size), ORDO_SUBJECT_ABI_VERSION, sizeof(ordo_forward_args));

  // --- wrong dtype ---------------------------------------------------------------------------------
  const bool has_bias = a.bias.data != nullptr;
  if (a.x.dtype != ORDO_DTYPE_F32)
    return refuse(message, message_size, ORDO_STATUS_WRONG_DTYPE,
                  "x.dtype is %s (%d); contract fwd.f32.fma-chain/1 needs f32", dtype_name(a.x.dtype), a.x.dtype);
  if (a.w.dtype != ORDO_DTYPE_F32)
    return refuse(message, message_size, ORDO_STATUS_WRONG_DTYPE,
                  "w.dtype is %s (%d); contract fwd.f32.fma-chain/1 needs f32", dtype_name(a.w.dtype), a.w.dtype);
  if (has_bias && a.bias.dtype != ORDO_DTYPE_F32)
    return refuse(message, message_size, ORDO_STATUS_WRONG_DTYPE, "bias.dtype is %s (%d); the bias must be f32",
                  dtype_name(a.bias.dtype), a.bias.dtype);
  if (a.y.dtype != ORDO_DTYPE_F32)
    return refuse(message, message_size, ORDO_STATUS_WRONG_DTYPE, "y.dtype is %s (%d); %s writes f32 only",
                  dtype_name(a.y.dtype), a.y.dtype, kName);

  // --- sizes < 1, or beyond the kernel's index range -------------------------------------------------
  const int64_t M = a.x.rows, K = a.x.cols, N = a.w.rows;
  struct Dim {
    const char* what;
    int64_t value;
  };
  for (const Dim d : {Dim{"x.rows (M)", M}, Dim{"x.cols (K)", K}, Dim{"w.rows (N)", N}}) {
    if (d.value < 1)
      return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s = %lld must be >= 1", d.what, ll(d.value));
    if (d.value > kMaxDim)
      return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s = %lld is too large (limit %lld)", d.what,
                    ll(d.value), ll(kMaxDim));
  }
  if ((N + kTile - 1) / kTile > kMaxGridY)
    return refuse(message, message_size, ORDO_STATUS_BAD_SIZE,
                  "w.rows (N) = %lld is too large: %lld tiles of %d exceed the gridDim.y limit %lld", ll(N),
                  ll((N + kTile - 1) / kTile), kTile, ll(kMaxGridY));
  // Each dimension is < 2^31 here, so the products cannot overflow int64.
  for (const Dim d : {Dim{"x (M*K)", M * K}, Dim{"w (N*K)", N * K}, Dim{"y (M*N)", M * N}})
    if (d.value > kMaxElements)
      return refuse(message, message_size, ORDO_STATUS_BAD_SIZE, "%s = %lld elements is too large (limit %lld)", d.what,
                    ll(d.value), ll(kMaxElements));

  // --- inconsistent shapes -------------------------------------------------------------------------
  if (a.w.cols != K)
    return refuse(message, message_size, ORDO_STATUS_INCONSISTENT_SIZE, "w.cols (%lld) != x.cols (K = %lld)",
                  ll(a.w.cols), ll(K));
  if (a.y.rows != M || a.y.cols != N)
    return refuse(message, message_size, ORDO_STATUS_INCONSISTENT_SIZE,
                  "y is [%lld, %lld]; expected [%lld, %lld] (x.rows, w.rows)", ll(a.y.rows), ll(a.y.cols), ll(M),
                  ll(N));
  if (has_bias && (a.bias.rows != 1 || a.bias.cols != N))
    return refuse(message, message_size, ORDO_STATUS_INCONSISTENT_SIZE,
                  "bias is [%lld, %lld]; expected [1, %lld] (w.rows)", ll(a.bias.rows), ll(a.bias.cols), ll(N));

  // --- null pointers -------------------------------------------------------------------------------
  if (a.x.data == nullptr) return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "x.data is null");
  if (a.w.data == nullptr) return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "w.data is null");
  if (a.y.data == nullptr) return refuse(message, message_size, ORDO_STATUS_NULL_POINTER, "y.data is null");

  const Operand ops[4] = {{"x", a.x.data, M * K * 4},
                          {"w", a.w.data, N * K * 4},
                          {"y", a.y.data, M * N * 4},
                          {"bias", a.bias.data, has_bias ? N * 4 : 0}};
  const int n_ops = has_bias ? 4 : 3;

  // --- host memory, then memory of another device ----------------------------------------------------
  int device = -1;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return refuse(message, message_size, ORDO_STATUS_UNSUPPORTED_DEVICE, "cudaGetDevice failed: %s: %s",
                  cudaGetErrorName(e), cudaGetErrorString(e));
  }
  cudaPointerAttributes attrs[4] = {};
  for (int i = 0; i < n_ops; ++i) {
    e = cudaPointerGetAttributes(&attrs[i], ops[i].ptr);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // never left behind to be mistaken for a launch failure
      return refuse(message, message_size, ORDO_STATUS_HOST_POINTER,
                    "%s (%p) is not CUDA device memory: cudaPointerGetAttributes: %s: %s", ops[i].name, ops[i].ptr,
                    cudaGetErrorName(e), cudaGetErrorString(e));
    }
    if (attrs[i].type != cudaMemoryTypeDevice)
      return refuse(message, message_size, ORDO_STATUS_HOST_POINTER, "%s (%p) is not device memory (%s)", ops[i].name,
                    ops[i].ptr,
                    attrs[i].type == cudaMemoryTypeHost      ? "page-locked host memory"
                    : attrs[i].type == cudaMemoryTypeManaged ? "managed memory"
                                                             : "unregistered host memory");
  }
  for (int i = 0; i < n_ops; ++i)
    if (attrs[i].device != device)
      return refuse(message, message_size, ORDO_STATUS_WRONG_DEVICE,
                    "%s is memory of device %d; the current device is %d", ops[i].name, attrs[i].device, device);

  // --- 4-byte alignment ----------------------------------------------------------------------------
  for (int i = 0; i < n_ops; ++i)
    if (reinterpret_cast<uintptr_t>(ops[i].ptr) % 4 != 0)
      return refuse(message, message_size, ORDO_STATUS_MISALIGNED, "%s (%p) is not 4-byte aligned (f32)", ops[i].name,
                    ops[i].ptr);

  // --- y overlapping an input: half-open byte ranges ---------------------------------------------------
  auto end_of = [](uintptr_t p, int64_t bytes) {
    const auto b = static_cast<uintptr_t>(bytes);
    return b > UINTPTR_MAX - p ? UINTPTR_MAX : p + b;  // clamped: can only report more overlap
  };
  const auto y0 = reinterpret_cast<uintptr_t>(a.y.data);
  const uintptr_t y1 = end_of(y0, ops[2].bytes);
  for (int i = 0; i < n_ops; ++i) {
    if (i == 2) continue;
    const auto p0 = reinterpret_cast<uintptr_t>(ops[i].ptr);
    const uintptr_t p1 = end_of(p0, ops[i].bytes);
    if (y0 < p1 && p0 < y1)
      return refuse(message, message_size, ORDO_STATUS_ALIASING, "y [%p, %p) overlaps %s [%p, %p)", a.y.data,
                    reinterpret_cast<const void*>(y1), ops[i].name, ops[i].ptr, reinterpret_cast<const void*>(p1));
  }

  // --- launch ----------------------------------------------------------------------------------------
  const dim3 grid(static_cast<unsigned>((M + kTile - 1) / kTile), static_cast<unsigned>((N + kTile - 1) / kTile));
  const dim3 block(kTile, kTile);
  gemm_f32_fma_chain_16x16<<<grid, block, 0, static_cast<cudaStream_t>(a.stream)>>>(
      static_cast<const float*>(a.x.data), static_cast<const float*>(a.w.data),
      has_bias ? static_cast<const float*>(a.bias.data) : nullptr, static_cast<float*>(a.y.data), static_cast<int>(M),
      static_cast<int>(N), static_cast<int>(K));
  e = cudaGetLastError();
  if (e != cudaSuccess)
    return refuse(message, message_size, ORDO_STATUS_LAUNCH_FAILED, "kernel launch failed: %s: %s", cudaGetErrorName(e),
                  cudaGetErrorString(e));
  return ORDO_OK;
}
