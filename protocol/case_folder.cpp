#include "protocol/case_folder.h"

#include <filesystem>
#include <map>

#include "core/bounded_file.h"
#include "core/float_bits.h"
#include "protocol/sha256.h"
#include "protocol/npy.h"

namespace ordo::protocol {




CaseFolder::CaseFolder(std::string folder, CasesManifest manifest)
    : folder_(std::move(folder)), manifest_(std::move(manifest)) {}

std::string CaseFolder::path(const std::string& relative) const {
  if (!relative.empty() && relative[0] == '/') return relative;  // one problem given as files
  if (folder_.empty()) return relative;
  // A folder's files are its own: a symbolic link that leads out of it is refused, not followed.
  try {
    return path_inside(folder_, relative);
  } catch (const FileReadError& e) {
    throw InputError(e.what());
  }
}

NpyArray CaseFolder::read_input(const std::string& relative) {
  NpyArray a;
  try {
    a = read_npy(path(relative));
  } catch (const NpyError& e) {
    throw InputError(e.what());
  }
  return a;
}

// The manifest's digest of the data, checked after the dtype and shape (whose messages say more): an input
// replaced after generation (and its y recomputed) would otherwise be judged as if it were the generated
// case. One problem given as files has no manifest and no digest.
void CaseFolder::check_digest(const NpyArray& a, const std::string& relative, const std::string& sha256) const {
  if (sha256.empty()) return;
  const std::string got = sha256_hex(a.data.data(), a.data.size());
  if (got != sha256)
    throw InputError(path(relative) + ": its data has SHA-256 " + got + ", the manifest records " + sha256 +
                     ": the input changed after `ordo cases` wrote it (regenerate the folder)");
}

std::vector<float> CaseFolder::operand(const std::string& relative, const std::string& sha256, std::int64_t rows,
                                       std::int64_t cols, bool shared) {
  const std::string p = path(relative);
  if (auto it = cache_.find(p); shared && it != cache_.end()) return it->second;
  const NpyArray a = read_input(relative);
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
    if (a.dtype != NpyDtype::f4) throw InputError(p + ": dtype " + std::string(npy_dtype_name(a.dtype)) + ", expected <f4 (f32 operands)");
    v = a.as_f32();
  } else {
    if (a.dtype != NpyDtype::u2 && a.dtype != NpyDtype::i2 && a.dtype != NpyDtype::bf16)
      throw InputError(p + ": dtype " + std::string(npy_dtype_name(a.dtype)) +
                       ", expected bfloat16 bits (<u2, <i2 or the ml_dtypes bfloat16 descr)");
    const std::vector<std::uint16_t> bits = a.as_u16();
    v.resize(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i) v[i] = float_of(std::uint32_t{bits[i]} << 16);
  }
  check_digest(a, relative, sha256);
  if (shared) {
    if (cache_.size() > 8) cache_.clear();
    cache_[p] = v;
  }
  return v;
}

ForwardProblem CaseFolder::inputs(const CaseEntry& c) {
  ForwardProblem p;
  p.M = c.M;
  p.N = c.N;
  p.K = c.K;
  p.x = operand(c.x, c.x_sha256, c.M, c.K, false);
  p.w = operand(c.w, c.w_sha256, c.N, c.K, true);
  if (c.bias) {
    const std::string bp = path(c.b);
    const NpyArray a = read_input(c.b);
    if (a.dtype != NpyDtype::f4) throw InputError(bp + ": the bias must be <f4, got " + std::string(npy_dtype_name(a.dtype)));
    if (a.shape != std::vector<std::int64_t>{c.N} && a.shape != std::vector<std::int64_t>{1, c.N})
      throw InputError(bp + ": the bias must have shape (" + std::to_string(c.N) + ",)");
    check_digest(a, c.b, c.b_sha256);
    p.bias = a.as_f32();
  }
  return p;
}

std::vector<float> CaseFolder::output(const CaseEntry& c, bool* bf16) {
  const std::string yp = path(c.y);
  if (!std::filesystem::exists(yp)) throw InputError(yp + ": missing (the program under test writes each case's y.npy)");
  NpyArray a;
  try {
    a = read_npy(yp);
  } catch (const NpyError& e) {
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
    throw InputError(yp + ": dtype " + std::string(npy_dtype_name(a.dtype)) + ": Y must be <f4 or 2-byte bfloat16 bits");
  }
  return y;
}

void CaseFolder::check_outputs_present() {
  for (const CaseEntry& c : manifest_.cases) {
    bool bf16 = false;
    (void)output(c, &bf16);
  }
}

}  // namespace ordo::protocol
