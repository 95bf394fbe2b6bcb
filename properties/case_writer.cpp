#include "properties/case_writer.h"

#include <filesystem>

#include "core/float_bits.h"
#include "protocol/npy.h"

namespace ordo::properties {

void CaseWriter::operand(const std::string& rel, const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
  make_parent(rel);
  if (operands_ == DType::bf16) {
    std::vector<std::uint16_t> bits(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) bits[i] = static_cast<std::uint16_t>(bits_of(v[i]) >> 16);
    protocol::write_npy(folder_ + "/" + rel, protocol::NpyDtype::u2, {rows, cols}, bits.data(), bits.size() * 2);
  } else {
    protocol::write_npy(folder_ + "/" + rel, protocol::NpyDtype::f4, {rows, cols}, v.data(), v.size() * 4);
  }
}

void CaseWriter::bias(const std::string& rel, const std::vector<float>& b) {
  make_parent(rel);
  protocol::write_npy(folder_ + "/" + rel, protocol::NpyDtype::f4, {static_cast<std::int64_t>(b.size())}, b.data(),
                      b.size() * 4);
}

void CaseWriter::make_parent(const std::string& rel) {
  std::filesystem::create_directories(std::filesystem::path(folder_ + "/" + rel).parent_path());
}

}  // namespace ordo::properties
