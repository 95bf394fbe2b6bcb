#pragma once
// The input files of an `ordo cases` folder: operands as .npy in the folder's operand dtype (bf16: the raw
// bits as '<u2', which plain numpy reads), biases as '<f4'. Parent folders are created as needed.
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace ordo::properties {

class CaseWriter {
 public:
  CaseWriter(std::string folder, DType operands) : folder_(std::move(folder)), operands_(operands) {}
  // An operand [rows, cols] at `rel`, relative to the folder.
  void operand(const std::string& rel, const std::vector<float>& v, std::int64_t rows, std::int64_t cols);
  void bias(const std::string& rel, const std::vector<float>& b);

 private:
  void make_parent(const std::string& rel);
  std::string folder_;
  DType operands_;
};

}  // namespace ordo::properties
