#pragma once
// A dW/db reduction over microbatches on the GPU: the device counterpart of oracle::BackwardSession
// (oracle/backward_session.h), built on the dW variants of kernels/backward_api.h. The result is the
// bits of one whole-batch backward_weight call over all the rows received, for any split into
// microbatches and any arrival order the mode allows, FP32 and BF16 variants alike. Two modes:
//
//   expected keys: created with every active key of the batch, in canonical (ascending) order. A
//     microbatch may arrive in any order and hold any subset of the keys (its rows in any order,
//     padding rows anywhere). Rows that continue the canonical order are reduced at once; rows ahead
//     of a gap are copied to a device staging buffer until the gap is filled, then reduced.
//   in order: no key list. Microbatches must arrive in canonical order: with keys, every active key
//     of a microbatch after every key already consumed (its own rows in any order); without keys,
//     the batch is the microbatches' rows in call order. A microbatch that would need reordering is
//     refused (key_out_of_order), since the session keeps nothing it could reorder with.
//
// BF16 variants fold the active tokens in instructions of 16 consecutive tokens. So that the groups are
// those of the whole batch whatever the split, the session reduces only whole groups of 16 before
// finish(); the rest of the consumed rows (at most 15 in order, the carry) stays staged, and finish()
// reduces it as the batch's last, zero-filled group. FP32 variants reduce every consumed row at once.
//
// Memory, beyond the caller's dW [N, K] and db [N] (the FP32 accumulators, updated in place) and the
// inputs of the call in progress:
//   - device staging: K+N operand elements (4 bytes each for FP32, 2 for BF16) per staged row, in slots
//     of a buffer that grows by doubling and is released by the destructor, so the cost is the largest
//     number of rows staged at one time. Staged rows are: rows waiting behind a gap (expected keys);
//     the BF16 carry (< 16 rows in order; in expected-keys mode the tail of the consecutive prefix
//     that does not fill a group); and, while a gap is being filled, the microbatch's rows that come
//     before the last staged row of the prefix (plus, for BF16, the few that complete its group), so
//     that the prefix is reduced in one launch over the staging buffer. Arrival in canonical order
//     stages nothing for FP32 and at most 15 rows for BF16;
//   - a device index array: 4 bytes per reduction step of the largest launch that needs one (rows not
//     read in place); it grows and is released like the staging buffer;
//   - host: the expected keys (width int64 per key), a position -> slot map of the staged rows, and,
//     during submit, the microbatch's keys read back (T*width int64, as validation also does).
// So the in-order FP32 case with rows already in canonical order costs nothing beyond dW and db.
//
// Streams: every copy and launch is queued on the session's stream. submit() waits on the stream where
// backward_weight does (the keys read back for validation), once more to read the keys for the
// session's own checks, and when the staging buffer or the index array grows. The caller keeps x, g
// and keys alive until the stream has passed the submit, as with backward_weight. finish() returns
// once the last launch is queued; dW and db are complete when the stream reaches that point. The
// slots of reduced rows return to a free list and are reused lowest first (stream-ordered after the
// launches that read them), so the staging never needs to move rows.
//
// Fail closed: a refused submit (any status but ok) changes nothing (dW, db, the staging buffer and the
// session's state), and the session goes on. Codes: every code of backward_weight (validation of the
// microbatch against the session's variant, dW and db: unknown_variant .. padding_gradient_nonzero,
// so inconsistent_size for N or K other than the session's and wrong_dtype for operands not of the
// variant's dtype); bad_keys for a microbatch without keys in expected-keys mode, keys of another
// width, or keys in a keyless in-order session (and the reverse); unexpected_key for a key not in the
// list; duplicate_key for a key that already arrived; key_out_of_order as above; bad_size when the
// staging would exceed the kernels' row limit; missing_keys from finish() while expected keys have not
// arrived (nothing changes, the session goes on). launch_failed when a CUDA call fails after the work
// began: the session is then broken and refuses everything (tool_error), dW and db undefined.
// tool_error also for a submit or finish after a successful finish.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/logical_keys.h"
#include "core/status.h"
#include "kernels/backward_api.h"

namespace ordo::kernels {

struct BackwardWeightSessionConfig {
  std::string variant_id;  // a registered canonical-order dW variant (not a mutant)
  std::int64_t N = 0, K = 0;
  OutputRef dw;  // [N, K] f32, device memory
  OutputRef db;  // [1, N] f32, or data == nullptr for no bias gradient
  // false: the chains start from +0 (finish() writes +0 when no row was active). true: they continue
  // from the current contents of dW (and db), as backward_weight's accumulate.
  bool accumulate = false;
  void* stream = nullptr;  // cudaStream_t; nullptr = the legacy default stream
  // Canonical order (unique, ascending, no padding key, width 2 or 3): expected-keys mode; nullopt:
  // in-order mode.
  std::optional<LogicalKeys> expected_keys;
};

struct BackwardWeightSessionState;  // internal (CUDA resources)

class BackwardWeightSession {
 public:
  // Checks the variant (unknown_variant, also for a mutant), the device (no_device, unsupported_device),
  // dW and db as backward_weight does with T = 0, and the expected keys (bad_keys for a width other
  // than 2 or 3, a partial row or a padding key; duplicate_key for keys not strictly ascending). On
  // success *out holds the session; otherwise it is reset. Writes nothing to dW or db.
  static Status create(BackwardWeightSessionConfig config, std::unique_ptr<BackwardWeightSession>* out);
  ~BackwardWeightSession();
  BackwardWeightSession(const BackwardWeightSession&) = delete;
  BackwardWeightSession& operator=(const BackwardWeightSession&) = delete;

  // One microbatch: x [T, K] and g [T, N] of the variant's operand dtype and keys [T, width] int64 (or
  // none, in-order mode only), in device memory, exactly as backward_weight takes them.
  Status submit(const TensorRef& x, const TensorRef& g, const TensorRef& keys);

  // Reduces what remains staged (the BF16 variants' last partial group). missing_keys, changing
  // nothing, while expected keys have not arrived. After a successful finish the session takes
  // nothing more.
  Status finish();

  std::int64_t reduced_tokens() const;  // active rows already folded into dW and db
  std::int64_t staged_tokens() const;   // active rows in the staging buffer
  std::int64_t staging_capacity() const;  // rows the staging buffer holds before it grows

 private:
  explicit BackwardWeightSession(std::unique_ptr<BackwardWeightSessionState> state);
  std::unique_ptr<BackwardWeightSessionState> s_;
};

}  // namespace ordo::kernels
