#pragma once
// How one tensor of a corpus entry is stored (ordo.corpus/1, corpus/README.md), shared by the entry's
// reader and writer: either text, a JSON array of 8-hex-digit binary32 values (integers for keys), or a
// reference {"npy": "FILE.npy", "sha256": "..."} to an .npy file beside the entry. The file name is a plain
// name in the entry's folder (no path: an entry never reaches outside its folder) and the digest is that of
// its values (values_sha256), so a swapped, truncated or corrupted file is refused, naming the field.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/strict_json.h"

namespace ordo::protocol::corpus_detail {

// f32: binary32 values, '<f4' in an .npy. bf16: bfloat16 values held as the binary32 of equal value (low
// 16 bits zero, which the reader checks), '<u2' raw bits in an .npy.
enum class TensorDtype { f32, bf16 };

// What the reader expects of a tensor field: its shape (the .npy's, exactly) and a formula for messages
// ("M*K").
struct TensorShape {
  std::vector<std::int64_t> dims;
  const char* formula;
};

// The field's values, read strictly, as a CorpusError naming obj's location and the field on any defect.
// check_bf16 = false leaves the low halves of a bf16 tensor given as text unchecked: an expected output whose
// bit was changed is a replay mismatch, named by element, not a read error.
std::vector<float> read_float_tensor(StrictObject& obj, const std::string& field, const TensorShape& shape,
                                     TensorDtype dtype, const std::string& npy_dir, bool check_bf16 = true);
std::vector<std::int64_t> read_int64_tensor(StrictObject& obj, const std::string& field, const TensorShape& shape,
                                            const std::string& npy_dir);
// A "sha256" field: exactly 64 lowercase hex digits.
std::string read_sha256(StrictObject& obj, const std::string& field);

// Writes tensors of one entry: small ones inline, larger ones as "<stem>.<name>.npy" in `dir` (written at
// once, atomically, before the entry's JSON is).
class TensorWriter {
 public:
  TensorWriter(std::string dir, std::string stem, std::size_t max_inline)
      : dir_(std::move(dir)), stem_(std::move(stem)), max_inline_(max_inline) {}
  nlohmann::ordered_json floats(const std::vector<float>& v, const std::vector<std::int64_t>& shape, TensorDtype dtype,
                                const std::string& name) const;
  nlohmann::ordered_json ints(const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& shape,
                              const std::string& name) const;

 private:
  std::string npy_name(const std::string& name) const { return stem_ + "." + name + ".npy"; }
  std::string dir_, stem_;
  std::size_t max_inline_;
};

// Values as 8 lowercase hex digits each (exact: NaN payloads and signed zeros included).
nlohmann::ordered_json hex_array(const std::vector<float>& v);

}  // namespace ordo::protocol::corpus_detail
