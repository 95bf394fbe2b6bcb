#include "core/logical_keys.h"

#include <algorithm>
#include <cassert>
#include <numeric>

#include "core/float_bits.h"

namespace ordo {

int compare_keys(const std::int64_t* a, const std::int64_t* b, std::int64_t width) {
  for (std::int64_t c = 0; c < width; ++c) {
    if (a[c] < b[c]) return -1;
    if (a[c] > b[c]) return 1;
  }
  return 0;
}

std::string describe_key(const std::int64_t* key, std::int64_t width) {
  std::string s = "(";
  for (std::int64_t c = 0; c < width; ++c) s += (c ? ", " : "") + std::to_string(key[c]);
  return s + ")";
}

Status validate_key_shape(const LogicalKeysView& keys, std::int64_t tokens) {
  if (keys.dtype != DType::i64)
    return Status::error(StatusCode::bad_keys,
                         "logical keys must be int64, got " + std::string(dtype_name(keys.dtype)));
  if (keys.width != 2 && keys.width != 3)
    return Status::error(StatusCode::bad_keys,
                         "logical keys must have 2 or 3 columns, got " + std::to_string(keys.width));
  if (keys.rows != tokens)
    return Status::error(StatusCode::bad_keys, "logical keys have " + std::to_string(keys.rows) + " rows for " +
                                                   std::to_string(tokens) + " token rows");
  if (keys.rows > 0 && keys.data == nullptr) return Status::error(StatusCode::bad_keys, "logical keys are null");
  return Status::success();
}

Status validate_logical_keys(const LogicalKeysView& keys, std::int64_t tokens, const float* g, std::int64_t g_cols) {
  if (Status s = validate_key_shape(keys, tokens); !s.ok()) return s;
  const CanonicalOrder order = canonical_order(keys);
  for (std::size_t i = 1; i < order.rows.size(); ++i) {
    const std::int64_t a = order.rows[i - 1], b = order.rows[i];
    if (compare_keys(keys.row(a), keys.row(b), keys.width) == 0)
      return Status::error(StatusCode::duplicate_key, "rows " + std::to_string(a) + " and " + std::to_string(b) +
                                                          " share the key " + describe_key(keys.row(a), keys.width));
  }
  if (g == nullptr) return Status::success();
  for (std::int64_t t = 0; t < tokens; ++t) {
    if (!keys.is_padding(t)) continue;
    for (std::int64_t n = 0; n < g_cols; ++n) {
      const float v = g[t * g_cols + n];
      // NaN fails this comparison too: a NaN gradient in a dropped row would vanish silently.
      if (!(v == 0.0f))
        return Status::error(StatusCode::padding_gradient_nonzero,
                             "padding row " + std::to_string(t) + " (key " + describe_key(keys.row(t), keys.width) +
                                 ") has gradient " + describe_float(v) + " in column " + std::to_string(n));
    }
  }
  return Status::success();
}

CanonicalOrder canonical_order(const LogicalKeysView& keys) {
  assert(keys.width == 2 || keys.width == 3);
  CanonicalOrder order;
  for (std::int64_t t = 0; t < keys.rows; ++t)
    if (!keys.is_padding(t)) order.rows.push_back(t);
  std::stable_sort(order.rows.begin(), order.rows.end(), [&](std::int64_t a, std::int64_t b) {
    return compare_keys(keys.row(a), keys.row(b), keys.width) < 0;
  });
  order.already_canonical =
      static_cast<std::int64_t>(order.rows.size()) == keys.rows && std::is_sorted(order.rows.begin(), order.rows.end());
  return order;
}

CanonicalOrder call_order(std::int64_t tokens) {
  CanonicalOrder order;
  order.rows.resize(static_cast<std::size_t>(tokens));
  std::iota(order.rows.begin(), order.rows.end(), std::int64_t{0});
  order.already_canonical = true;
  return order;
}

}  // namespace ordo
