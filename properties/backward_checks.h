#pragma once
// Checks of the backward contracts against a BackwardSubject (a CUDA variant or the host emulator),
// one generated forward case each (properties/backward_case.h turns it into a backward problem).
#include <cstdint>

#include "subjects/backward_subject.h"
#include "properties/check_result.h"
#include "properties/forward_case.h"

namespace ordo::properties {

// dX of the subject == dX of the reference, bit for bit.
CheckResult check_dx_equal(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c);

// dX, and dW/db (keys, padding), of the subject == the plain scalar interpreter of its contract's plan.
CheckResult check_dx_equals_reference(BackwardSubject& subject, const ForwardCase& c);
CheckResult check_dw_equals_reference(BackwardSubject& subject, const ForwardCase& c);

// dW and db of the subject == the reference's, bit for bit, on a problem with keys of width 0 (call
// order), 2 or 3 in random row order and, with keys, 0-5 padding rows anywhere (by the case's seed).
CheckResult check_dw_equal(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c);

// Keys the contract refuses (ascending-key row order): two active rows with one key, or a padding row
// whose gradient is not +-0 (1, the operand type's smallest subnormal or NaN: a sloppy zero test passes one of
// them). The
// subject must refuse the call with the status code the reference gives (duplicate_key,
// padding_gradient_nonzero); accepting it, or refusing with another code, fails.
CheckResult check_dw_refuses_invalid_keys(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c);

// The subject's dW and db do not change when the rows of (X, G, keys) are permuted jointly and
// padding rows (zero gradient, NaN/Inf inputs) are inserted anywhere.
CheckResult check_dw_permutation_invariance(BackwardSubject& subject, const ForwardCase& c);

// The subject's dW and db over microbatches that arrive in key order (each one's rows shuffled, and
// padding spread over them) == one whole-batch call. Cuts fall at multiples of `granularity` active
// tokens (16 for a tensor-core kernel without a carry between calls; 1 otherwise).
CheckResult check_dw_microbatches_equal_whole(BackwardSubject& subject, const ForwardCase& c, std::int64_t granularity);

// A contiguous shard of the output features (columns [n0, n1) of G: a tensor-parallel shard, or one of
// Q, K, V of a fused projection) gives exactly rows [n0, n1) of the whole dW and entries [n0, n1) of db.
CheckResult check_dw_shard_equals_slice(BackwardSubject& subject, const ForwardCase& c);

}  // namespace ordo::properties
