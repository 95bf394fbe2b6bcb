#pragma once
// The input files of an `ordo cases` folder: operands as .npy in the folder's operand dtype (bf16: the raw
// bits as '<u2', which plain numpy reads), biases as '<f4'. Parent folders are created as needed.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace ordo::protocol {

class CaseWriter {
 public:
  CaseWriter(std::string folder, DType operands) : folder_(std::move(folder)), operands_(operands) {}
  // An operand [rows, cols] at `rel`, relative to the folder.
  void operand(const std::string& rel, const std::vector<float>& v, std::int64_t rows, std::int64_t cols);
  void bias(const std::string& rel, const std::vector<float>& b);
  // The SHA-256 of the data of every file written so far (the bytes after the .npy header), by `rel`: the
  // digests the manifest records (protocol/cases_manifest.h).
  const std::map<std::string, std::string>& digests() const { return digests_; }

 private:
  void make_parent(const std::string& rel);
  void write(const std::string& rel, bool bf16_bits, const std::vector<std::int64_t>& shape, const void* data,
             std::size_t bytes);
  std::string folder_;
  DType operands_;
  std::map<std::string, std::string> digests_;
};

}  // namespace ordo::protocol
