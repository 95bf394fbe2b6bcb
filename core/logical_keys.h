#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace ordo {

// Logical keys fix the order in which dW and db reduce over tokens: one int64 key of 2 or 3 columns
// per token row (e.g. batch row, position), row-major [T, width]. A row whose first column is negative
// is padding: it is dropped. The active rows are reduced in ascending key order (lexicographic over the
// columns, signed), so the bits of dW and db do not depend on the order in which the rows arrive.
struct LogicalKeysView {
  const std::int64_t* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t width = 0;
  DType dtype = DType::i64;

  const std::int64_t* row(std::int64_t t) const { return data + t * width; }
  bool is_padding(std::int64_t t) const { return row(t)[0] < 0; }
};

// Keys owned on the host.
struct LogicalKeys {
  std::int64_t width = 2;
  std::vector<std::int64_t> values;  // [rows, width]

  std::int64_t rows() const { return width > 0 ? static_cast<std::int64_t>(values.size()) / width : 0; }
  LogicalKeysView view() const { return {values.data(), rows(), width, DType::i64}; }
};

// -1, 0 or 1 as key a sorts before, with or after key b (both `width` columns).
int compare_keys(const std::int64_t* a, const std::int64_t* b, std::int64_t width);
std::string describe_key(const std::int64_t* key, std::int64_t width);  // "(3, -1)"

// bad_keys unless the keys are int64 [T, 2] or [T, 3] with T = `tokens` (and data non-null when T > 0).
Status validate_key_shape(const LogicalKeysView& keys, std::int64_t tokens);

// The shape, then: duplicate_key when two active rows share a key (naming both rows);
// padding_gradient_nonzero when a padding row of g [T, g_cols] has an element other than +0/-0
// (naming the row and the column). g may be null to skip that check.
Status validate_logical_keys(const LogicalKeysView& keys, std::int64_t tokens, const float* g, std::int64_t g_cols);

// The rows a token reduction visits, in order.
struct CanonicalOrder {
  std::vector<std::int64_t> rows;
  // True when rows are exactly 0..T-1 in order (no padding, keys already ascending): a kernel then
  // reduces X and G in place, with no gather.
  bool already_canonical = false;
};

// Active rows in ascending key order; ties (duplicate keys, rejected by validate_logical_keys) keep
// call order. The keys must have a valid shape.
CanonicalOrder canonical_order(const LogicalKeysView& keys);
// Without keys: every row in call order.
CanonicalOrder call_order(std::int64_t tokens);

}  // namespace ordo
