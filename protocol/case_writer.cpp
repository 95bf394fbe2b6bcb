#include "protocol/case_writer.h"

#include <filesystem>

#include "core/float_bits.h"
#include "protocol/sha256.h"
#include "protocol/npy.h"

namespace ordo::protocol {

void CaseWriter::write(const std::string& rel, bool bf16_bits, const std::vector<std::int64_t>& shape, const void* data,
                       std::size_t bytes) {
  make_parent(rel);
  write_npy(folder_ + "/" + rel, bf16_bits ? NpyDtype::u2 : NpyDtype::f4, shape, data, bytes);
  digests_[rel] = sha256_hex(data, bytes);
}

void CaseWriter::operand(const std::string& rel, const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  if (operands_ == DType::bf16) {
    std::vector<std::uint16_t> bits(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) bits[i] = static_cast<std::uint16_t>(bits_of(v[i]) >> 16);
    write(rel, true, {rows, cols}, bits.data(), bits.size() * 2);
  } else {
    write(rel, false, {rows, cols}, v.data(), v.size() * 4);
  }
}

void CaseWriter::bias(const std::string& rel, const std::vector<float>& b) {
  write(rel, false, {static_cast<std::int64_t>(b.size())}, b.data(), b.size() * 4);
}

void CaseWriter::make_parent(const std::string& rel) {
  std::filesystem::create_directories(std::filesystem::path(folder_ + "/" + rel).parent_path());
}

}  // namespace ordo::protocol
