#pragma once
// Which token rows the dW/db mutants reduce, in which order, and which keys they refuse: host code shared
// by the GPU mutants' dispatch (bwd_dw_mutants.cu reads the keys and the G rows back first) and the host
// twins, so that both refuse and order alike. Plain C++, no CUDA types.
#include <cstdint>
#include <vector>

#include "core/logical_keys.h"
#include "core/status.h"
#include "kernels/mutants/bwd_dw_defects.h"

namespace ordo::mutants {

// The mutant's id and its defect in one line (the registry's and the host twin's description).
const char* dw_defect_id(DwDefect d);
const char* dw_defect_text(DwDefect d);
const std::vector<DwDefect>& all_dw_defects();

struct DwOrders {
  Status status;             // a refused call: the key check the defect still makes
  std::vector<int> dw_rows;  // the rows dW reduces, in order
  std::vector<int> db_rows;  // the rows db reduces, in order (the same as dw_rows but for db_call_order)
};

// keys null: no keys (every row, in call order). g is G [T, N] on the host (the padding rows' gradients
// are checked). Every defect but duplicate_keys_accepted makes the contract's key checks
// (validate_logical_keys); that one checks the padding gradients only.
DwOrders dw_orders(DwDefect d, const LogicalKeysView* keys, std::int64_t T, const float* g, std::int64_t N);

}  // namespace ordo::mutants
