// Fail-closed validation of the backward calls. Every check runs before anything is launched, in a
// fixed order (backward_api.h), and each failure has its own StatusCode and a message naming the
// operand and the values. dW's key contents are read back to the host (the keys, and the G rows of
// padding tokens only) and judged by core/logical_keys.h. Operand dtypes, element sizes, alignments
// and the tile of the grid come from the variant (FP32 or BF16 operands; outputs always f32).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/float_bits.h"
#include "core/logical_keys.h"
#include "kernels/backward_internal.h"

namespace ordo::kernels::detail {
namespace {

std::string cuda_error_text(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(p)));
  return buf;
}

std::string str(std::int64_t v) { return std::to_string(v); }

std::string shape(std::int64_t r, std::int64_t c) {
  std::string s = "[";
  s += str(r);
  s += ", ";
  s += str(c);
  s += "]";
  return s;
}

// One device operand for the pointer checks: name, pointer, extent in bytes, required alignment.
struct Operand {
  const char* name;
  const void* ptr;
  std::int64_t bytes;
  std::int64_t align;
};

Status dtype_is(const char* name, DType got, DType want, const KernelVariant& v) {
  if (got == want) return Status::success();
  return Status::error(StatusCode::wrong_dtype, std::string(name) + " is " + std::string(dtype_name(got)) +
                                                    "; contract " + v.contract_id + " needs " +
                                                    std::string(dtype_name(want)));
}

// bad_size unless lo <= value <= kMaxDim.
Status dim_in_range(const char* what, std::int64_t value, std::int64_t lo) {
  if (value < lo)
    return Status::error(StatusCode::bad_size, std::string(what) + " = " + str(value) + " must be >= " + str(lo));
  if (value > kMaxDim)
    return Status::error(StatusCode::bad_size,
                         std::string(what) + " = " + str(value) + " exceeds the 32-bit index limit " + str(kMaxDim));
  return Status::success();
}

// The grid of the variant's output tiles (tile_m x tile_n) over [rows, cols] and the element counts
// of the operands. Dimensions are < 2^31 here, so every product is < 2^62.
Status grid_and_volume(const KernelVariant& v, const char* out, std::int64_t rows, std::int64_t cols,
                       std::initializer_list<std::pair<const char*, std::int64_t>> volumes) {
  const std::int64_t tiles = ceil_div(rows, v.tile_m) * ceil_div(cols, v.tile_n);
  if (tiles > kMaxGridX)
    return Status::error(StatusCode::bad_size, std::string(out) + " " + shape(rows, cols) + " needs " + str(tiles) +
                                                   " tiles of " + std::to_string(v.tile_m) + "x" +
                                                   std::to_string(v.tile_n) + ", above the gridDim.x limit " +
                                                   str(kMaxGridX));
  for (const auto& [what, n] : volumes)
    if (n > kMaxElements)
      return Status::error(StatusCode::bad_size, std::string(what) + " has " + str(n) +
                                                     " elements, above the limit " + str(kMaxElements));
  return Status::success();
}

// host_pointer, wrong_device, misaligned, in that order over all operands; null operands are skipped.
Status check_pointers(const std::vector<Operand>& ops, int device) {
  std::vector<cudaPointerAttributes> attrs(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].ptr) continue;
    const cudaError_t e = cudaPointerGetAttributes(&attrs[i], ops[i].ptr);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // never mistaken for a launch failure later
      return Status::error(StatusCode::host_pointer, std::string(ops[i].name) + " (" + hex(ops[i].ptr) +
                                                         ") is not CUDA device memory: cudaPointerGetAttributes: " +
                                                         cuda_error_text(e));
    }
    if (attrs[i].type == cudaMemoryTypeHost)
      return Status::error(StatusCode::host_pointer, std::string(ops[i].name) + " (" + hex(ops[i].ptr) +
                                                         ") is page-locked host memory, not device memory");
    if (attrs[i].type != cudaMemoryTypeDevice && attrs[i].type != cudaMemoryTypeManaged)
      return Status::error(StatusCode::host_pointer, std::string(ops[i].name) + " (" + hex(ops[i].ptr) +
                                                         ") is not CUDA memory (unregistered host pointer)");
  }
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].ptr && attrs[i].type == cudaMemoryTypeDevice && attrs[i].device != device)
      return Status::error(StatusCode::wrong_device, std::string(ops[i].name) + " is memory of device " +
                                                         std::to_string(attrs[i].device) +
                                                         "; the current device is " + std::to_string(device));
  for (const Operand& o : ops)
    if (o.ptr && reinterpret_cast<std::uintptr_t>(o.ptr) % static_cast<std::uintptr_t>(o.align) != 0)
      return Status::error(StatusCode::misaligned, std::string(o.name) + " (" + hex(o.ptr) + ") is not " +
                                                       str(o.align) + "-byte aligned");
  return Status::success();
}

// aliasing: the byte range of each output (the first n_outputs operands) against every other operand.
// Half-open ranges; an end that would wrap is clamped to the top of the address space, which can only
// report more overlap. Empty ranges overlap nothing.
Status check_aliasing(const std::vector<Operand>& ops, std::size_t n_outputs) {
  auto end_of = [](const Operand& o) {
    const auto p = reinterpret_cast<std::uintptr_t>(o.ptr);
    const auto b = static_cast<std::uintptr_t>(o.bytes);
    return b > UINTPTR_MAX - p ? UINTPTR_MAX : p + b;
  };
  for (std::size_t i = 0; i < n_outputs; ++i) {
    if (!ops[i].ptr || ops[i].bytes == 0) continue;
    const auto o0 = reinterpret_cast<std::uintptr_t>(ops[i].ptr);
    const std::uintptr_t o1 = end_of(ops[i]);
    for (std::size_t j = 0; j < ops.size(); ++j) {
      if (j == i || !ops[j].ptr || ops[j].bytes == 0) continue;
      const auto p0 = reinterpret_cast<std::uintptr_t>(ops[j].ptr);
      const std::uintptr_t p1 = end_of(ops[j]);
      if (o0 < p1 && p0 < o1)
        return Status::error(StatusCode::aliasing, std::string(ops[i].name) + " [" + hex(ops[i].ptr) + ", " +
                                                       hex(reinterpret_cast<const void*>(o1)) + ") overlaps " +
                                                       ops[j].name + " [" + hex(ops[j].ptr) + ", " +
                                                       hex(reinterpret_cast<const void*>(p1)) + ")");
    }
  }
  return Status::success();
}

// unsupported_shape unless every operand row length is a multiple of the variant's k_multiple: a
// TMA-fed variant reads its operands by rows whose byte strides must be multiples of 16.
Status rows_fit_tma(const KernelVariant& v, std::initializer_list<std::pair<const char*, std::int64_t>> row_lengths) {
  if (v.k_multiple <= 1) return Status::success();
  for (const auto& [what, n] : row_lengths)
    if (n % v.k_multiple != 0)
      return Status::error(StatusCode::unsupported_shape, std::string(what) + " = " + str(n) + " is not a multiple of " +
                                                              std::to_string(v.k_multiple) + "; variant " + v.id +
                                                              " needs that (TMA row strides are multiples of 16 bytes)");
  return Status::success();
}

Status copy_failed(const char* what, cudaError_t e) {
  (void)cudaGetLastError();
  return Status::error(StatusCode::launch_failed, std::string("reading ") + what + " back to the host failed: " +
                                                      cuda_error_text(e));
}

// The key contents: duplicate_key (validate_logical_keys), then padding_gradient_nonzero over the G
// rows of the padding tokens, which are the only rows of G read back. Then the reduction order.
Status check_keys_and_order(const BackwardWeightEntry& entry, const BackwardWeightArgs& a, std::int64_t T,
                            std::int64_t N, std::vector<std::int64_t>* rows) {
  const auto stream = static_cast<cudaStream_t>(a.stream);
  LogicalKeys keys{a.keys.cols, std::vector<std::int64_t>(static_cast<std::size_t>(T * a.keys.cols))};
  cudaError_t e;
  if (T > 0) {
    // On the caller's stream, so that keys written by work queued before this call are the ones read.
    if ((e = cudaMemcpyAsync(keys.values.data(), a.keys.data, keys.values.size() * sizeof(std::int64_t),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
      return copy_failed("the logical keys", e);
  }
  const LogicalKeysView view = keys.view();
  if (Status s = validate_logical_keys(view, T, nullptr, N); !s.ok()) return s;

  // Padding rows, in runs of consecutive rows: one copy per run, as raw bytes of the operand dtype.
  const auto es = static_cast<std::int64_t>(dtype_size(entry.variant.operand_dtype));
  std::vector<unsigned char> g_rows;
  std::vector<std::int64_t> pad_rows;
  for (std::int64_t t = 0; t < T;) {
    if (!view.is_padding(t)) {
      ++t;
      continue;
    }
    std::int64_t end = t;
    while (end < T && view.is_padding(end)) pad_rows.push_back(end++);
    const std::size_t at = g_rows.size();
    const auto bytes = static_cast<std::size_t>((end - t) * N * es);
    g_rows.resize(at + bytes);
    if ((e = cudaMemcpyAsync(g_rows.data() + at, static_cast<const unsigned char*>(a.g.data) + t * N * es, bytes,
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess)
      return copy_failed("the G rows of padding tokens", e);
    t = end;
  }
  if (!pad_rows.empty() && (e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return copy_failed("the G rows of padding tokens", e);
  // The value of element j of the rows read back: a bfloat16 widens exactly to binary32.
  const bool bf16 = entry.variant.operand_dtype == DType::bf16;
  auto g_value = [&](std::size_t j) {
    if (bf16) {
      std::uint16_t h;
      std::memcpy(&h, g_rows.data() + j * 2, sizeof h);
      return float_of(static_cast<std::uint32_t>(h) << 16);
    }
    float f;
    std::memcpy(&f, g_rows.data() + j * 4, sizeof f);
    return f;
  };
  // The rule of validate_logical_keys, applied to the rows read back and reported with their token row.
  for (std::size_t i = 0; i < pad_rows.size(); ++i)
    for (std::int64_t n = 0; n < N; ++n) {
      const float v = g_value(i * static_cast<std::size_t>(N) + static_cast<std::size_t>(n));
      if (!(v == 0.0f))  // NaN fails this too: a NaN gradient in a dropped row would vanish silently
        return Status::error(StatusCode::padding_gradient_nonzero,
                             "padding row " + str(pad_rows[i]) + " (key " +
                                 describe_key(view.row(pad_rows[i]), view.width) + ") has gradient " +
                                 describe_float(v) + " in column " + str(n));
    }

  switch (entry.order) {
    case TokenOrder::canonical:
      *rows = canonical_order(view).rows;
      break;
    case TokenOrder::active_rows_in_call_order:
      rows->clear();
      for (std::int64_t t = 0; t < T; ++t)
        if (!view.is_padding(t)) rows->push_back(t);
      break;
  }
  return Status::success();
}

}  // namespace

Status validate_backward_data(const KernelVariant& v, const BackwardDataArgs& a, BackwardDataLaunch* p) {
  int device = -1;
  if (Status s = check_device(v, &device); !s.ok()) return s;

  const DType od = v.operand_dtype;
  const auto es = static_cast<std::int64_t>(dtype_size(od));  // operand element bytes
  for (Status s : {dtype_is("g.dtype", a.g.dtype, od, v), dtype_is("w.dtype", a.w.dtype, od, v),
                   dtype_is("dx.dtype", a.dx.dtype, DType::f32, v)})
    if (!s.ok()) return s;

  const std::int64_t M = a.g.rows, N = a.g.cols, K = a.w.cols;
  for (Status s : {dim_in_range("g.rows (M)", M, 1), dim_in_range("g.cols (N)", N, 1),
                   dim_in_range("w.cols (K)", K, 1)})
    if (!s.ok()) return s;
  if (Status s = grid_and_volume(v, "dx", M, K, {{"g", M * N}, {"w", N * K}, {"dx", M * K}}); !s.ok()) return s;

  if (a.w.rows != N)
    return Status::error(StatusCode::inconsistent_size,
                         "w.rows (" + str(a.w.rows) + ") != g.cols (N = " + str(N) + ")");
  if (a.dx.rows != M || a.dx.cols != K)
    return Status::error(StatusCode::inconsistent_size,
                         "dx is " + shape(a.dx.rows, a.dx.cols) + "; expected " + shape(M, K) + " (g.rows, w.cols)");
  if (Status s = rows_fit_tma(v, {{"g.cols (N)", N}, {"w.cols (K)", K}}); !s.ok()) return s;

  if (!a.g.data) return Status::error(StatusCode::null_pointer, "g.data is null");
  if (!a.w.data) return Status::error(StatusCode::null_pointer, "w.data is null");
  if (!a.dx.data) return Status::error(StatusCode::null_pointer, "dx.data is null");

  const std::int64_t align = std::max<std::int64_t>(es, v.operand_alignment);  // TMA: 16 bytes
  const std::vector<Operand> ops = {{"dx", a.dx.data, M * K * 4, 4}, {"g", a.g.data, M * N * es, align},
                                    {"w", a.w.data, N * K * es, align}};
  if (Status s = check_pointers(ops, device); !s.ok()) return s;
  if (Status s = check_aliasing(ops, 1); !s.ok()) return s;

  if (od == DType::bf16) {
    p->g_bf16 = static_cast<const std::uint16_t*>(a.g.data);
    p->w_bf16 = static_cast<const std::uint16_t*>(a.w.data);
  } else {
    p->g = static_cast<const float*>(a.g.data);
    p->w = static_cast<const float*>(a.w.data);
  }
  p->dx = static_cast<float*>(a.dx.data);
  p->M = static_cast<int>(M);
  p->N = static_cast<int>(N);
  p->K = static_cast<int>(K);
  p->stream = static_cast<cudaStream_t>(a.stream);
  p->options = &a.options;
  return Status::success();
}

Status validate_backward_weight(const BackwardWeightEntry& entry, const BackwardWeightArgs& a, BackwardWeightLaunch* p,
                                std::vector<int>* order, bool* in_place) {
  const KernelVariant& v = entry.variant;
  int device = -1;
  if (Status s = check_device(v, &device); !s.ok()) return s;

  const bool has_db = a.db.data != nullptr;
  const bool has_keys = a.keys.data != nullptr || a.keys.rows != 0 || a.keys.cols != 0;
  const DType od = v.operand_dtype;
  const auto es = static_cast<std::int64_t>(dtype_size(od));  // operand element bytes
  for (Status s : {dtype_is("x.dtype", a.x.dtype, od, v), dtype_is("g.dtype", a.g.dtype, od, v),
                   dtype_is("dw.dtype", a.dw.dtype, DType::f32, v),
                   has_db ? dtype_is("db.dtype", a.db.dtype, DType::f32, v) : Status::success()})
    if (!s.ok()) return s;

  const std::int64_t T = a.x.rows, K = a.x.cols, N = a.g.cols;
  for (Status s : {dim_in_range("x.rows (T)", T, 0), dim_in_range("x.cols (K)", K, 1),
                   dim_in_range("g.cols (N)", N, 1)})
    if (!s.ok()) return s;
  if (Status s = grid_and_volume(v, "dw", N, K, {{"x", T * K}, {"g", T * N}, {"dw", N * K}}); !s.ok()) return s;

  if (a.g.rows != T)
    return Status::error(StatusCode::inconsistent_size, "g.rows (" + str(a.g.rows) + ") != x.rows (T = " + str(T) + ")");
  if (a.dw.rows != N || a.dw.cols != K)
    return Status::error(StatusCode::inconsistent_size,
                         "dw is " + shape(a.dw.rows, a.dw.cols) + "; expected " + shape(N, K) + " (g.cols, x.cols)");
  if (has_db && (a.db.rows != 1 || a.db.cols != N))
    return Status::error(StatusCode::inconsistent_size,
                         "db is " + shape(a.db.rows, a.db.cols) + "; expected " + shape(1, N) + " (g.cols)");
  if (Status s = rows_fit_tma(v, {{"x.cols (K)", K}, {"g.cols (N)", N}}); !s.ok()) return s;

  if (has_keys) {
    const LogicalKeysView shape_only{static_cast<const std::int64_t*>(a.keys.data), a.keys.rows, a.keys.cols,
                                     a.keys.dtype};
    if (Status s = validate_key_shape(shape_only, T); !s.ok()) return s;
  }

  if (T > 0 && !a.x.data) return Status::error(StatusCode::null_pointer, "x.data is null (T = " + str(T) + ")");
  if (T > 0 && !a.g.data) return Status::error(StatusCode::null_pointer, "g.data is null (T = " + str(T) + ")");
  if (!a.dw.data) return Status::error(StatusCode::null_pointer, "dw.data is null");

  const std::int64_t align = std::max<std::int64_t>(es, v.operand_alignment);  // TMA: 16 bytes
  const std::vector<Operand> ops = {{"dw", a.dw.data, N * K * 4, 4},
                                    {"db", a.db.data, has_db ? N * 4 : 0, 4},
                                    {"x", a.x.data, T * K * es, align},
                                    {"g", a.g.data, T * N * es, align},
                                    {"keys", has_keys ? a.keys.data : nullptr, T * a.keys.cols * 8, 8}};
  if (Status s = check_pointers(ops, device); !s.ok()) return s;
  if (Status s = check_aliasing(ops, 2); !s.ok()) return s;

  std::vector<std::int64_t> rows;
  if (has_keys) {
    if (Status s = check_keys_and_order(entry, a, T, N, &rows); !s.ok()) return s;
  } else {
    rows = call_order(T).rows;
  }
  *in_place = static_cast<std::int64_t>(rows.size()) == T;
  for (std::size_t i = 0; *in_place && i < rows.size(); ++i) *in_place = rows[i] == static_cast<std::int64_t>(i);
  order->resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) (*order)[i] = static_cast<int>(rows[i]);  // rows < T <= kMaxDim

  if (od == DType::bf16) {
    p->x_bf16 = static_cast<const std::uint16_t*>(a.x.data);
    p->g_bf16 = static_cast<const std::uint16_t*>(a.g.data);
  } else {
    p->x = static_cast<const float*>(a.x.data);
    p->g = static_cast<const float*>(a.g.data);
  }
  p->rows = nullptr;
  p->R = static_cast<int>(rows.size());
  p->dw = static_cast<float*>(a.dw.data);
  p->db = has_db ? static_cast<float*>(a.db.data) : nullptr;
  p->N = static_cast<int>(N);
  p->K = static_cast<int>(K);
  p->accumulate = a.accumulate;
  p->stream = static_cast<cudaStream_t>(a.stream);
  p->options = &a.options;
  return Status::success();
}

}  // namespace ordo::kernels::detail
