#include "protocol/corpus_tensor.h"

#include <bit>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "core/bounded_file.h"
#include "core/checked_size.h"
#include "core/float_bits.h"
#include "protocol/corpus_entry.h"
#include "protocol/sha256.h"
#include "protocol/npy.h"

namespace ordo::protocol::corpus_detail {
namespace {

// The digests hash the values' memory as their little-endian bytes.
static_assert(std::endian::native == std::endian::little, "corpus digests hash host memory as little-endian");

std::int64_t element_count(const StrictObject& obj, const std::string& field, const TensorShape& shape) {
  std::int64_t n = 1;
  for (std::size_t i = 0; i < shape.dims.size(); ++i) n = obj.count(field, shape.formula, n, shape.dims[i]);
  return n;
}

std::string shape_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// A plain file name in the entry's folder: no directory part, no hidden or parent name, ends in .npy.
bool plain_npy_name(const std::string& name) {
  if (name.size() <= 4 || name.size() > 255 || name[0] == '.' || name.substr(name.size() - 4) != ".npy") return false;
  for (const char c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

// The .npy a reference names, read and checked against the shape and dtype; the digest is the caller's.
protocol::NpyArray read_reference(StrictObject& obj, const std::string& field, const TensorShape& shape,
                                  protocol::NpyDtype want, const std::string& npy_dir, std::string& digest) {
  StrictObject ref = obj.object(field);
  const std::string name = ref.string("npy");
  digest = read_sha256(ref, "sha256");
  ref.no_unknown();
  if (!plain_npy_name(name))
    ref.fail("npy", "must be the plain name of an .npy file beside the entry (no folder, not hidden), got " + in_quotes(name));
  const std::filesystem::path path = std::filesystem::path(npy_dir) / name;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) ref.fail("npy", "names " + name + ", which is missing beside the entry");
  protocol::NpyArray a;
  try {
    (void)path_inside(npy_dir, name);  // a link beside the entry must not lead out of its folder
  } catch (const FileReadError& e) {
    ref.fail("npy", e.what());
  }
  try {
    a = protocol::read_npy(path.string());
  } catch (const protocol::NpyError& e) {
    ref.fail("npy", e.what());
  }
  if (a.dtype != want)
    ref.fail("npy", name + " holds '" + std::string(protocol::npy_dtype_name(a.dtype)) + "', this field is '" +
                        std::string(protocol::npy_dtype_name(want)) + "'");
  if (a.shape != shape.dims)
    ref.fail("npy", name + " has shape " + shape_text(a.shape) + ", this field is " + shape_text(shape.dims) + " (" +
                        shape.formula + ")");
  return a;
}

void require_digest(StrictObject& obj, const std::string& field, const std::string& actual, const std::string& recorded) {
  if (actual != recorded)
    obj.fail(field + ".sha256", "the values of the .npy have SHA-256 " + actual + ", the entry records " + recorded +
                                    ": not the file this entry was written with");
}

}  // namespace

std::string read_sha256(StrictObject& obj, const std::string& field) {
  const std::string s = obj.string(field);
  if (!is_sha256_hex(s)) obj.fail(field, "must be a SHA-256 as 64 lowercase hex digits, got " + in_quotes(s));
  return s;
}

std::vector<float> read_float_tensor(StrictObject& obj, const std::string& field, const TensorShape& shape,
                                     TensorDtype dtype, const std::string& npy_dir, bool check_bf16) {
  const std::int64_t count = element_count(obj, field, shape);
  std::vector<float> v;
  const nlohmann::json& j = obj.required(field);
  if (j.is_object()) {
    std::string digest;
    const protocol::NpyArray a =
        read_reference(obj, field, shape, dtype == TensorDtype::bf16 ? protocol::NpyDtype::u2 : protocol::NpyDtype::f4,
                       npy_dir, digest);
    if (dtype == TensorDtype::bf16) {
      for (const std::uint16_t bits : a.as_u16()) v.push_back(float_of(std::uint32_t{bits} << 16));
    } else {
      v = a.as_f32();
    }
    require_digest(obj, field, values_sha256(v), digest);
    return v;
  }
  if (!j.is_array())
    obj.fail(field, "must be an array of hex values or an {\"npy\", \"sha256\"} reference, got " + describe_json(j));
  v = obj.hex_values(field, count, shape.formula);
  if (dtype == TensorDtype::bf16 && check_bf16)
    for (std::size_t i = 0; i < v.size(); ++i)
      if ((bits_of(v[i]) & 0xFFFFu) != 0)
        obj.fail(field + "[" + std::to_string(i) + "]",
                 "must be a bfloat16 (a binary32 with its low 16 bits zero) under this contract, got " + hex_bits(v[i]));
  return v;
}

std::vector<std::int64_t> read_int64_tensor(StrictObject& obj, const std::string& field, const TensorShape& shape,
                                            const std::string& npy_dir) {
  const std::int64_t count = element_count(obj, field, shape);
  const nlohmann::json& j = obj.required(field);
  if (j.is_object()) {
    std::string digest;
    const std::vector<std::int64_t> v = read_reference(obj, field, shape, protocol::NpyDtype::i8, npy_dir, digest).as_i64();
    require_digest(obj, field, values_sha256(v), digest);
    return v;
  }
  if (!j.is_array())
    obj.fail(field, "must be an array of integers or an {\"npy\", \"sha256\"} reference, got " + describe_json(j));
  return obj.integers(field, count, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                      shape.formula);
}

nlohmann::ordered_json hex_array(const std::vector<float>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const float f : v) a.push_back(hex_bits(f).substr(2));
  return a;
}

nlohmann::ordered_json TensorWriter::floats(const std::vector<float>& v, const std::vector<std::int64_t>& shape,
                                            TensorDtype dtype, const std::string& name) const {
  if (dtype == TensorDtype::bf16)
    for (const float f : v)
      if ((bits_of(f) & 0xFFFFu) != 0)
        throw std::invalid_argument(name + ": " + hex_bits(f) + " is not a bfloat16, in a bf16 tensor");
  if (v.size() <= max_inline_) return hex_array(v);
  const std::string file = npy_name(name);
  const std::string path = (std::filesystem::path(dir_) / file).string();
  if (dtype == TensorDtype::bf16) {
    std::vector<std::uint16_t> bits;
    bits.reserve(v.size());
    for (const float f : v) bits.push_back(static_cast<std::uint16_t>(bits_of(f) >> 16));
    protocol::write_npy(path, protocol::NpyDtype::u2, shape, bits.data(), bits.size() * sizeof(std::uint16_t));
  } else {
    protocol::write_npy(path, protocol::NpyDtype::f4, shape, v.data(), v.size() * sizeof(float));
  }
  return {{"npy", file}, {"sha256", values_sha256(v)}};
}

nlohmann::ordered_json TensorWriter::ints(const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& shape,
                                          const std::string& name) const {
  if (v.size() <= max_inline_) return v;
  const std::string file = npy_name(name);
  protocol::write_npy((std::filesystem::path(dir_) / file).string(), protocol::NpyDtype::i8, shape, v.data(),
                      v.size() * sizeof(std::int64_t));
  return {{"npy", file}, {"sha256", values_sha256(v)}};
}

}  // namespace ordo::protocol::corpus_detail
