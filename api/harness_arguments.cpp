#include <cstring>
#include <limits>

#include "api/harness_internal.h"
#include "core/checked_size.h"
#include "core/float_bits.h"
#include "core/logical_keys.h"

namespace ordo::api {
namespace {

// Elements one tensor may hold: 2^40, the largest output ordo's problems take.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;

const char* dtype_name_of(int d) {
  switch (d) {
    case ORDO_DTYPE_F32: return "f32";
    case ORDO_DTYPE_BF16: return "bf16";
    case ORDO_DTYPE_F16: return "f16";
    case ORDO_DTYPE_F64: return "f64";
    case ORDO_DTYPE_I64: return "i64";
  }
  return "an unknown dtype";
}

std::string shape_text(std::int64_t rows, std::int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

// The element count of a tensor named `name`, after checking its data, dtype and shape.
std::int64_t checked_tensor(const char* name, const void* data, int dtype, std::int64_t rows, std::int64_t cols,
                            std::int64_t want_rows, std::int64_t want_cols, std::initializer_list<int> dtypes,
                            bool allow_empty = false) {
  bool dtype_ok = false;
  std::string allowed;
  for (int d : dtypes) {
    dtype_ok = dtype_ok || d == dtype;
    allowed += (allowed.empty() ? "" : " or ") + std::string(dtype_name_of(d));
  }
  if (!dtype_ok) argument_error(std::string(name) + ": dtype " + dtype_name_of(dtype) + ", expected " + allowed);
  if (rows < 0 || cols < 0 || (!allow_empty && (rows < 1 || cols < 1)))
    argument_error(std::string(name) + ": shape " + shape_text(rows, cols) + " has a dimension below 1");
  if ((want_rows >= 0 && rows != want_rows) || (want_cols >= 0 && cols != want_cols))
    argument_error(std::string(name) + ": shape " + shape_text(rows, cols) + ", expected " +
                   shape_text(want_rows >= 0 ? want_rows : rows, want_cols >= 0 ? want_cols : cols));
  const auto count = checked_product(rows, cols);
  if (!count || *count > kMaxElements) argument_error(std::string(name) + ": shape " + shape_text(rows, cols) + " is too large");
  if (data == nullptr && *count > 0) argument_error(std::string(name) + ": data is NULL");
  return *count;
}

std::initializer_list<int> operand_dtypes(int operand_dtype) {
  static const std::initializer_list<int> f32{ORDO_DTYPE_F32}, bf16{ORDO_DTYPE_BF16}, both{ORDO_DTYPE_F32, ORDO_DTYPE_BF16};
  return operand_dtype == ORDO_DTYPE_F32 ? f32 : operand_dtype == ORDO_DTYPE_BF16 ? bf16 : both;
}

}  // namespace

std::vector<float> read_floats(const void* data, int dtype, std::int64_t count) {
  std::vector<float> v(static_cast<std::size_t>(count));
  if (count == 0) return v;
  if (dtype == ORDO_DTYPE_BF16) {
    const auto* h = static_cast<const std::uint16_t*>(data);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = float_of(std::uint32_t{h[i]} << 16);
  } else {
    std::memcpy(v.data(), data, v.size() * sizeof(float));
  }
  return v;
}

void write_output(const ordo_output& out, const std::vector<float>& values) {
  if (out.dtype == ORDO_DTYPE_BF16) {
    auto* h = static_cast<std::uint16_t*>(out.data);
    for (std::size_t i = 0; i < values.size(); ++i) h[i] = static_cast<std::uint16_t>(bits_of(values[i]) >> 16);
  } else if (!values.empty()) {
    std::memcpy(out.data, values.data(), values.size() * sizeof(float));
  }
}

// What every argument struct is checked for first: that it was given, that the caller's struct is this
// header's (`type` names it), and that it names no stream.
namespace {
template <class Args>
void check_args_header(const Args* a, const char* type) {
  if (a == nullptr) argument_error("args is NULL");
  if (a->struct_size != sizeof(Args))
    argument_error("args.struct_size is " + std::to_string(a->struct_size) + ", expected sizeof(" + type +
                   ") = " + std::to_string(sizeof(Args)));
  if (a->stream != nullptr) argument_error("args.stream: the harness computes on the host; pass NULL");
}
}  // namespace

ForwardProblem forward_problem(const ordo_forward_args* a, int operand_dtype, bool y_required) {
  check_args_header(a, "ordo_forward_args");
  ForwardProblem p;
  const auto dtypes = operand_dtypes(operand_dtype);
  const std::int64_t nx = checked_tensor("x", a->x.data, a->x.dtype, a->x.rows, a->x.cols, -1, -1, dtypes);
  p.M = a->x.rows;
  p.K = a->x.cols;
  const std::int64_t nw = checked_tensor("w", a->w.data, a->w.dtype, a->w.rows, a->w.cols, -1, p.K, dtypes);
  p.N = a->w.rows;
  if (a->w.dtype != a->x.dtype)
    argument_error(std::string("w: dtype ") + dtype_name_of(a->w.dtype) + ", but x is " + dtype_name_of(a->x.dtype));
  p.x = read_floats(a->x.data, a->x.dtype, nx);
  p.w = read_floats(a->w.data, a->w.dtype, nw);
  if (a->bias.data != nullptr) {
    checked_tensor("bias", a->bias.data, a->bias.dtype, a->bias.rows, a->bias.cols, 1, p.N, {ORDO_DTYPE_F32});
    p.bias = read_floats(a->bias.data, ORDO_DTYPE_F32, p.N);
  }
  if (y_required || a->y.data != nullptr) {
    checked_tensor("y", a->y.data, a->y.dtype, a->y.rows, a->y.cols, p.M, p.N, {ORDO_DTYPE_F32, ORDO_DTYPE_BF16});
    p.bf16_output = a->y.dtype == ORDO_DTYPE_BF16;
  }
  if (!checked_product(p.M, p.N)) argument_error("y: shape " + shape_text(p.M, p.N) + " is too large");
  return p;
}

BackwardDataProblem backward_data_problem(const ordo_backward_data_args* a, int operand_dtype) {
  check_args_header(a, "ordo_backward_data_args");
  BackwardDataProblem p;
  const auto dtypes = operand_dtypes(operand_dtype);
  const std::int64_t ng = checked_tensor("g", a->g.data, a->g.dtype, a->g.rows, a->g.cols, -1, -1, dtypes);
  p.M = a->g.rows;
  p.N = a->g.cols;
  const std::int64_t nw = checked_tensor("w", a->w.data, a->w.dtype, a->w.rows, a->w.cols, p.N, -1, dtypes);
  p.K = a->w.cols;
  if (a->w.dtype != a->g.dtype)
    argument_error(std::string("w: dtype ") + dtype_name_of(a->w.dtype) + ", but g is " + dtype_name_of(a->g.dtype));
  checked_tensor("dx", a->dx.data, a->dx.dtype, a->dx.rows, a->dx.cols, p.M, p.K, {ORDO_DTYPE_F32});
  p.g = read_floats(a->g.data, a->g.dtype, ng);
  p.w = read_floats(a->w.data, a->w.dtype, nw);
  p.bf16_operands = a->g.dtype == ORDO_DTYPE_BF16;
  return p;
}

BackwardWeightProblem backward_weight_problem(const ordo_backward_weight_args* a, int operand_dtype) {
  check_args_header(a, "ordo_backward_weight_args");
  if (a->accumulate != 0) argument_error("args.accumulate: the harness's emulator computes whole batches; pass 0");
  BackwardWeightProblem p;
  const auto dtypes = operand_dtypes(operand_dtype);
  const std::int64_t nx = checked_tensor("x", a->x.data, a->x.dtype, a->x.rows, a->x.cols, -1, -1, dtypes, true);
  p.T = a->x.rows;
  p.K = a->x.cols;
  if (p.K < 1) argument_error("x: shape " + shape_text(p.T, p.K) + ": K must be at least 1");
  const std::int64_t ng = checked_tensor("g", a->g.data, a->g.dtype, a->g.rows, a->g.cols, p.T, -1, dtypes, true);
  p.N = a->g.cols;
  if (p.N < 1) argument_error("g: shape " + shape_text(p.T, p.N) + ": N must be at least 1");
  if (a->g.dtype != a->x.dtype)
    argument_error(std::string("g: dtype ") + dtype_name_of(a->g.dtype) + ", but x is " + dtype_name_of(a->x.dtype));
  checked_tensor("dw", a->dw.data, a->dw.dtype, a->dw.rows, a->dw.cols, p.N, p.K, {ORDO_DTYPE_F32});
  if (a->db.data != nullptr) {
    checked_tensor("db", a->db.data, a->db.dtype, a->db.rows, a->db.cols, 1, p.N, {ORDO_DTYPE_F32});
    p.with_bias_grad = true;
  }
  if (a->keys.data != nullptr) {
    checked_tensor("keys", a->keys.data, a->keys.dtype, a->keys.rows, a->keys.cols, p.T, -1, {ORDO_DTYPE_I64}, true);
    if (a->keys.cols != 2 && a->keys.cols != 3)
      argument_error("keys: shape " + shape_text(a->keys.rows, a->keys.cols) + ", expected [T, 2] or [T, 3]");
    LogicalKeys keys;
    keys.width = a->keys.cols;
    const auto* k = static_cast<const std::int64_t*>(a->keys.data);
    keys.values.assign(k, k + p.T * keys.width);
    p.keys = std::move(keys);
  }
  p.x = read_floats(a->x.data, a->x.dtype, nx);
  p.g = read_floats(a->g.data, a->g.dtype, ng);
  p.bf16_operands = a->x.dtype == ORDO_DTYPE_BF16;
  return p;
}

}  // namespace ordo::api
