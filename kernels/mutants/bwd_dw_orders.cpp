#include "kernels/mutants/bwd_dw_orders.h"

#include <algorithm>
#include <string>

namespace ordo::mutants {
namespace {

std::vector<int> as_int(const std::vector<std::int64_t>& rows) { return {rows.begin(), rows.end()}; }

// The padding check alone: every G of a padding row is +0 or -0.
Status padding_gradients_zero(const LogicalKeysView& keys, std::int64_t T, const float* g, std::int64_t N) {
  for (std::int64_t t = 0; t < T; ++t) {
    if (!keys.is_padding(t)) continue;
    for (std::int64_t n = 0; n < N; ++n)
      if (!(g[t * N + n] == 0.0f))
        return Status::error(
            StatusCode::padding_gradient_nonzero,
            "padding row " + std::to_string(t) + " has a nonzero gradient in column " + std::to_string(n));
  }
  return Status::success();
}

}  // namespace

const char* dw_defect_id(DwDefect d) {
  switch (d) {
    case DwDefect::atomics:
      return "mutant.bwd.dw.f32.atomics";
    case DwDefect::call_order:
      return "mutant.bwd.dw.f32.call-order";
    case DwDefect::padding_reduced:
      return "mutant.bwd.dw.f32.padding-reduced";
    case DwDefect::duplicate_keys_accepted:
      return "mutant.bwd.dw.f32.duplicate-keys-accepted";
    case DwDefect::accumulate_restarts:
      return "mutant.bwd.dw.f32.accumulate-restarts";
    case DwDefect::db_call_order:
      return "mutant.bwd.dw.f32.db-call-order";
  }
  return "?";
}

const char* dw_defect_text(DwDefect d) {
  switch (d) {
    case DwDefect::atomics:
      return "split over tokens: every chunk of 16 tokens (in key order) adds its partial sums into dW and db with "
             "atomics, in whatever order the chunks finish";
    case DwDefect::call_order:
      return "the active rows are reduced in call order: padding is dropped and the keys are validated, yet never "
             "sorted (the seed's original defect)";
    case DwDefect::padding_reduced:
      return "padding rows are reduced with the others (sorted by key, negative first) instead of dropped: their "
             "X enters dW as x * (+-0)";
    case DwDefect::duplicate_keys_accepted:
      return "two active rows with the same key are both reduced instead of refused with duplicate_key";
    case DwDefect::accumulate_restarts:
      return "accumulate restarts the chain: each call's chain starts from +0 and is added to dW and db once";
    case DwDefect::db_call_order:
      return "dW follows the key order but db sums the active rows in call order";
  }
  return "?";
}

const std::vector<DwDefect>& all_dw_defects() {
  static const std::vector<DwDefect> all{DwDefect::atomics,
                                         DwDefect::call_order,
                                         DwDefect::padding_reduced,
                                         DwDefect::duplicate_keys_accepted,
                                         DwDefect::accumulate_restarts,
                                         DwDefect::db_call_order};
  return all;
}

DwOrders dw_orders(DwDefect d, const LogicalKeysView* keys, std::int64_t T, const float* g, std::int64_t N) {
  DwOrders out;
  if (keys == nullptr) {
    out.dw_rows = as_int(call_order(T).rows);
    out.db_rows = out.dw_rows;
    return out;
  }
  out.status =
      d == DwDefect::duplicate_keys_accepted ? validate_key_shape(*keys, T) : validate_logical_keys(*keys, T, g, N);
  if (out.status.ok() && d == DwDefect::duplicate_keys_accepted) out.status = padding_gradients_zero(*keys, T, g, N);
  if (!out.status.ok()) return out;
  const std::vector<std::int64_t> canonical = canonical_order(*keys).rows;  // stable: equal keys keep call order
  std::vector<std::int64_t> active_in_call_order = canonical;
  std::sort(active_in_call_order.begin(), active_in_call_order.end());
  switch (d) {
    case DwDefect::call_order:
      out.dw_rows = as_int(active_in_call_order);
      break;
    case DwDefect::padding_reduced: {
      std::vector<std::int64_t> all = call_order(T).rows;
      std::stable_sort(all.begin(), all.end(), [&](std::int64_t a, std::int64_t b) {
        return compare_keys(keys->row(a), keys->row(b), keys->width) < 0;
      });
      out.dw_rows = as_int(all);
      break;
    }
    case DwDefect::atomics:
    case DwDefect::duplicate_keys_accepted:
    case DwDefect::accumulate_restarts:
    case DwDefect::db_call_order:
      out.dw_rows = as_int(canonical);
      break;
  }
  out.db_rows = d == DwDefect::db_call_order ? as_int(active_in_call_order) : out.dw_rows;
  return out;
}

}  // namespace ordo::mutants
