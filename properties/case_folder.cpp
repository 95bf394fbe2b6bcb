#include "properties/case_folder.h"

#include <filesystem>

#include "core/float_bits.h"
#include "protocol/npy.h"

namespace ordo::properties {

using protocol::NpyDtype;

CaseFolder::CaseFolder(std::string folder, protocol::CasesManifest manifest)
    : folder_(std::move(folder)), manifest_(std::move(manifest)) {}

std::string CaseFolder::path(const std::string& relative) const {
  if (!relative.empty() && relative[0] == '/') return relative;
  return folder_.empty() ? relative : folder_ + "/" + relative;
}

std::vector<float> CaseFolder::operand(const std::string& relative, std::int64_t rows, std::int64_t cols, bool shared) {
  const std::string p = path(relative);
  if (auto it = cache_.find(p); shared && it != cache_.end()) return it->second;
  protocol::NpyArray a;
  try {
    a = protocol::read_npy(p);
  } catch (const protocol::NpyError& e) {
    throw InputError(e.what());
  }
  const std::vector<std::int64_t> want{rows, cols};
  const bool vector_ok = rows == 1 && a.shape == std::vector<std::int64_t>{cols};
  if (a.shape != want && !vector_ok) {
    std::string shape = "(";
    for (std::size_t i = 0; i < a.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(a.shape[i]);
    throw InputError(p + ": shape " + shape + (a.shape.size() == 1 ? ",)" : ")") + ", the manifest says (" +
                     std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  std::vector<float> v;
  const bool bf16 = manifest_.operands == "bf16";
  if (!bf16) {
    if (a.dtype != NpyDtype::f4) throw InputError(p + ": dtype " + std::string(protocol::npy_dtype_name(a.dtype)) + ", expected <f4 (f32 operands)");
    v = a.as_f32();
  } else {
    if (a.dtype != NpyDtype::u2 && a.dtype != NpyDtype::i2 && a.dtype != NpyDtype::bf16)
      throw InputError(p + ": dtype " + std::string(protocol::npy_dtype_name(a.dtype)) +
                       ", expected bfloat16 bits (<u2, <i2 or the ml_dtypes bfloat16 descr)");
    const std::vector<std::uint16_t> bits = a.as_u16();
    v.resize(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) v[i] = float_of(std::uint32_t{bits[i]} << 16);
  }
  if (shared) {
    if (cache_.size() > 8) cache_.clear();
    cache_[p] = v;
  }
  return v;
}

ForwardProblem CaseFolder::inputs(const protocol::CaseEntry& c) {
  ForwardProblem p;
  p.M = c.M;
  p.N = c.N;
  p.K = c.K;
  p.x = operand(c.x, c.M, c.K, false);
  p.w = operand(c.w, c.N, c.K, true);
  if (c.bias) {
    const std::string bp = path(c.b);
    protocol::NpyArray a;
    try {
      a = protocol::read_npy(bp);
    } catch (const protocol::NpyError& e) {
      throw InputError(e.what());
    }
    if (a.dtype != NpyDtype::f4) throw InputError(bp + ": the bias must be <f4, got " + std::string(protocol::npy_dtype_name(a.dtype)));
    if (a.shape != std::vector<std::int64_t>{c.N} && a.shape != std::vector<std::int64_t>{1, c.N})
      throw InputError(bp + ": the bias must have shape (" + std::to_string(c.N) + ",)");
    p.bias = a.as_f32();
  }
  return p;
}

std::vector<float> CaseFolder::output(const protocol::CaseEntry& c, bool* bf16) {
  const std::string yp = path(c.y);
  if (!std::filesystem::exists(yp)) throw InputError(yp + ": missing (the program under test writes each case's y.npy)");
  protocol::NpyArray a;
  try {
    a = protocol::read_npy(yp);
  } catch (const protocol::NpyError& e) {
    throw InputError(e.what());
  }
  if (a.shape != std::vector<std::int64_t>{c.M, c.N})
    throw InputError(yp + ": shape must be (" + std::to_string(c.M) + ", " + std::to_string(c.N) + ")");
  std::vector<float> y;
  if (a.dtype == NpyDtype::f4) {
    *bf16 = false;
    y = a.as_f32();
  } else if (a.dtype == NpyDtype::u2 || a.dtype == NpyDtype::i2 || a.dtype == NpyDtype::bf16) {
    *bf16 = true;  // a 2-byte Y is a BF16 output
    const std::vector<std::uint16_t> bits = a.as_u16();
    y.resize(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) y[i] = float_of(std::uint32_t{bits[i]} << 16);
  } else {
    throw InputError(yp + ": dtype " + std::string(protocol::npy_dtype_name(a.dtype)) + ": Y must be <f4 or 2-byte bfloat16 bits");
  }
  return y;
}

void CaseFolder::check_outputs_present() {
  for (const protocol::CaseEntry& c : manifest_.cases) {
    bool bf16 = false;
    (void)output(c, &bf16);
  }
}

}  // namespace ordo::properties
