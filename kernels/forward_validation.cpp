// Fail-closed validation of a forward call. Every check runs before anything is launched, in a fixed
// order, and each failure has its own StatusCode and a message naming the operand and the values.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/dtype.h"
#include "kernels/forward_internal.h"

namespace ordo::kernels::detail {
namespace {

std::string cuda_error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

std::string hex(std::uintptr_t p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(p));
  return buf;
}

std::string str(std::int64_t v) { return std::to_string(v); }

// One operand pointer with its name and byte size, for the pointer checks.
struct Operand {
  const char* name;
  const void* ptr;
  std::int64_t bytes;
};

}  // namespace

Status check_device(const KernelVariant& v, int* device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, "cudaGetDeviceCount failed: " + cuda_error_text(e));
  }
  if (count <= 0) return Status::error(StatusCode::no_device, "cudaGetDeviceCount reported 0 CUDA devices");
  if ((e = cudaGetDevice(device)) != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, "cudaGetDevice failed: " + cuda_error_text(e));
  }
  int major = 0, minor = 0;
  if ((e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, *device)) != cudaSuccess ||
      (e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, *device)) != cudaSuccess) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device,
                         "cudaDeviceGetAttribute(compute capability) failed: " + cuda_error_text(e));
  }
  const int sm = major * 10 + minor;
  // Outside the range and above its first SM: past its last one.
  if (!v.runs_on(sm) && sm > v.sm.min)
    return Status::error(StatusCode::unsupported_device,
                         "current device " + std::to_string(*device) + " is sm_" + std::to_string(sm) + "; variant " +
                             v.id + " reproduces contract " + v.contract_id + " only up to sm_" +
                             std::to_string(v.sm.max) + " (newer tensor cores round differently)");
  if (!v.runs_on(sm))
    return Status::error(StatusCode::unsupported_device, "current device " + std::to_string(*device) + " is sm_" +
                                                             std::to_string(sm) + "; variant " + v.id + " needs sm_" +
                                                             std::to_string(v.sm.min) + " or newer");
  return Status::success();
}

Status validate_forward(const KernelVariant& v, const ForwardArgs& a, LaunchParams* params) {
  // --- no_device, unsupported_device ------------------------------------------------------------
  int device = -1;
  if (Status s = check_device(v, &device); !s.ok()) return s;

  // --- wrong_dtype: operands as the variant says, bias f32, output f32 (or bf16 where supported) ----
  const bool has_bias = a.bias.data != nullptr;
  auto dtype_error = [&](const char* name, DType t, DType want) {
    return Status::error(StatusCode::wrong_dtype, std::string(name) + " is " + std::string(dtype_name(t)) +
                                                      "; contract " + v.contract_id + " needs " +
                                                      std::string(dtype_name(want)));
  };
  const std::int64_t es = static_cast<std::int64_t>(dtype_size(v.operand_dtype));  // operand element bytes
  if (a.x.dtype != v.operand_dtype) return dtype_error("x.dtype", a.x.dtype, v.operand_dtype);
  if (a.w.dtype != v.operand_dtype) return dtype_error("w.dtype", a.w.dtype, v.operand_dtype);
  if (has_bias && a.bias.dtype != DType::f32) return dtype_error("bias.dtype", a.bias.dtype, DType::f32);
  if (a.y_dtype != DType::f32 && !(v.bf16_output && a.y_dtype == DType::bf16))
    return Status::error(StatusCode::wrong_dtype,
                         "y_dtype is " + std::string(dtype_name(a.y_dtype)) + "; variant " + v.id +
                             (v.bf16_output ? " writes f32 or bf16" : " writes f32 only"));
  const std::int64_t ys = static_cast<std::int64_t>(dtype_size(a.y_dtype));

  // --- bad_size ----------------------------------------------------------------------------------
  const std::int64_t M = a.x.rows, K = a.x.cols, N = a.w.rows;
  struct Dim {
    const char* what;
    std::int64_t value;
  };
  for (const Dim d : {Dim{"x.rows (M)", M}, Dim{"x.cols (K)", K}, Dim{"w.rows (N)", N}}) {
    if (d.value <= 0)
      return Status::error(StatusCode::bad_size, std::string(d.what) + " = " + str(d.value) + " must be >= 1");
    if (d.value > kMaxDim)
      return Status::error(StatusCode::bad_size, std::string(d.what) + " = " + str(d.value) +
                                                     " exceeds the 32-bit index limit " + str(kMaxDim));
  }
  // Each dimension is < 2^31, so these products are < 2^62 and cannot overflow int64.
  const std::int64_t tiles = ceil_div(M, v.tile_m) * ceil_div(N, v.tile_n);
  if (tiles > kMaxGridX)
    return Status::error(StatusCode::bad_size, "grid of " + str(ceil_div(M, v.tile_m)) + " x " +
                                                   str(ceil_div(N, v.tile_n)) + " = " + str(tiles) + " tiles of " +
                                                   std::to_string(v.tile_m) + "x" + std::to_string(v.tile_n) +
                                                   " exceeds gridDim.x limit " + str(kMaxGridX) + " (M = " +
                                                   str(M) + ", N = " + str(N) + ")");
  for (const Dim d : {Dim{"x (M*K)", M * K}, Dim{"w (N*K)", N * K}, Dim{"y (M*N)", M * N}})
    if (d.value > kMaxElements)
      return Status::error(StatusCode::bad_size, std::string(d.what) + " = " + str(d.value) +
                                                     " elements exceeds the limit " + str(kMaxElements));

  // --- inconsistent_size -------------------------------------------------------------------------
  if (a.w.cols != K)
    return Status::error(StatusCode::inconsistent_size,
                         "w.cols (" + str(a.w.cols) + ") != x.cols (" + str(K) + ")");
  if (a.y_rows != M)
    return Status::error(StatusCode::inconsistent_size, "y_rows (" + str(a.y_rows) + ") != x.rows (" + str(M) + ")");
  if (a.y_cols != N)
    return Status::error(StatusCode::inconsistent_size, "y_cols (" + str(a.y_cols) + ") != w.rows (" + str(N) + ")");
  if (has_bias && (a.bias.rows != 1 || a.bias.cols != N))
    return Status::error(StatusCode::inconsistent_size, "bias is [" + str(a.bias.rows) + ", " + str(a.bias.cols) +
                                                            "]; expected [1, " + str(N) + "] (w.rows)");

  // --- unsupported_shape -------------------------------------------------------------------------
  if (v.k_multiple > 1 && K % v.k_multiple != 0)
    return Status::error(StatusCode::unsupported_shape,
                         "x.cols (K) = " + str(K) + " is not a multiple of " + std::to_string(v.k_multiple) +
                             "; variant " + v.id + " needs that (TMA row strides are multiples of 16 bytes)");

  // --- null_pointer ------------------------------------------------------------------------------
  if (!a.x.data) return Status::error(StatusCode::null_pointer, "x.data is null");
  if (!a.w.data) return Status::error(StatusCode::null_pointer, "w.data is null");
  if (!a.y) return Status::error(StatusCode::null_pointer, "y is null");

  const Operand ops[4] = {{"x", a.x.data, M * K * es},
                          {"w", a.w.data, N * K * es},
                          {"y", a.y, M * N * ys},
                          {"bias", a.bias.data, has_bias ? N * 4 : 0}};
  const int n_ops = has_bias ? 4 : 3;

  // --- host_pointer, then wrong_device -----------------------------------------------------------
  cudaPointerAttributes attrs[4] = {};
  for (int i = 0; i < n_ops; ++i) {
    const cudaError_t e = cudaPointerGetAttributes(&attrs[i], ops[i].ptr);
    if (e != cudaSuccess) {
      // Clear the error so it can never be mistaken for a launch failure later.
      (void)cudaGetLastError();
      return Status::error(StatusCode::host_pointer, std::string(ops[i].name) + " (" +
                                                         hex(reinterpret_cast<std::uintptr_t>(ops[i].ptr)) +
                                                         ") is not CUDA device memory: cudaPointerGetAttributes: " +
                                                         cuda_error_text(e));
    }
    switch (attrs[i].type) {
      case cudaMemoryTypeDevice:
      case cudaMemoryTypeManaged: break;
      case cudaMemoryTypeHost:
        return Status::error(StatusCode::host_pointer,
                             std::string(ops[i].name) + " (" + hex(reinterpret_cast<std::uintptr_t>(ops[i].ptr)) +
                                 ") is page-locked host memory, not device memory");
      case cudaMemoryTypeUnregistered:
      default:  // a type newer than this code: not memory a kernel may read
        return Status::error(StatusCode::host_pointer,
                             std::string(ops[i].name) + " (" + hex(reinterpret_cast<std::uintptr_t>(ops[i].ptr)) +
                                 ") is not CUDA memory (unregistered host pointer)");
    }
  }
  for (int i = 0; i < n_ops; ++i)
    if (attrs[i].type == cudaMemoryTypeDevice && attrs[i].device != device)
      return Status::error(StatusCode::wrong_device, std::string(ops[i].name) + " is memory of device " +
                                                         std::to_string(attrs[i].device) +
                                                         "; the current device is " + std::to_string(device));

  // --- misaligned --------------------------------------------------------------------------------
  for (int i = 0; i < n_ops; ++i) {
    const auto p = reinterpret_cast<std::uintptr_t>(ops[i].ptr);
    // x, w: the operand size, or the variant's stricter alignment (TMA); y: its dtype; bias: f32.
    const std::int64_t want = i < 2 ? std::max<std::int64_t>(es, v.operand_alignment) : i == 2 ? ys : 4;
    const auto align = static_cast<std::uintptr_t>(want);
    const DType t = i < 2 ? v.operand_dtype : i == 2 ? a.y_dtype : DType::f32;
    if (p % align != 0)
      return Status::error(StatusCode::misaligned, std::string(ops[i].name) + " (" + hex(p) + ") is not " +
                                                       std::to_string(align) + "-byte aligned (" +
                                                       std::string(dtype_name(t)) +
                                                       (want > static_cast<std::int64_t>(dtype_size(t))
                                                            ? ", variant " + v.id + " loads it with TMA)"
                                                            : ")"));
  }

  // --- aliasing: y's byte range against every input's ----------------------------------------------
  // Half-open ranges [p, p + bytes). Sizes were bounded above (< 2^62 bytes), and an end address that
  // would wrap is clamped to the top of the address space, which can only report more overlap.
  auto range_end = [](std::uintptr_t p, std::int64_t bytes) {
    const auto b = static_cast<std::uintptr_t>(bytes);
    return b > UINTPTR_MAX - p ? UINTPTR_MAX : p + b;
  };
  const auto y0 = reinterpret_cast<std::uintptr_t>(a.y);
  const std::uintptr_t y1 = range_end(y0, ops[2].bytes);
  for (int i = 0; i < n_ops; ++i) {
    if (i == 2) continue;
    const auto p0 = reinterpret_cast<std::uintptr_t>(ops[i].ptr);
    const std::uintptr_t p1 = range_end(p0, ops[i].bytes);
    if (y0 < p1 && p0 < y1)
      return Status::error(StatusCode::aliasing, "y [" + hex(y0) + ", " + hex(y1) + ") overlaps " + ops[i].name +
                                                     " [" + hex(p0) + ", " + hex(p1) + ")");
  }

  if (v.operand_dtype == DType::bf16) {
    params->x_bf16 = static_cast<const std::uint16_t*>(a.x.data);
    params->w_bf16 = static_cast<const std::uint16_t*>(a.w.data);
  } else {
    params->x = static_cast<const float*>(a.x.data);
    params->w = static_cast<const float*>(a.w.data);
  }
  params->bias = has_bias ? static_cast<const float*>(a.bias.data) : nullptr;
  params->y_dtype = a.y_dtype;
  if (a.y_dtype == DType::bf16)
    params->y_bf16 = static_cast<std::uint16_t*>(a.y);
  else
    params->y = static_cast<float*>(a.y);
  params->M = static_cast<int>(M);
  params->N = static_cast<int>(N);
  params->K = static_cast<int>(K);
  params->stream = static_cast<cudaStream_t>(a.stream);
  params->options = &a.options;
  return Status::success();
}

}  // namespace ordo::kernels::detail
