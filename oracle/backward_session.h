#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/status.h"
#include "oracle/backward_emulator.h"
#include "oracle/weight_grad_accumulator.h"

namespace ordo::oracle {

// dW and db of one batch accumulated over several calls (microbatches), with the bits of one
// whole-batch emulate_backward_weight call over all their rows, for any split and any arrival order
// the mode allows. Two modes:
//
//   expected keys: created with every active key of the batch, in canonical (ascending) order. A
//     microbatch may arrive in any order and hold any subset of the keys (its rows in any order,
//     padding rows anywhere). Rows that continue the canonical order are folded in at once; rows
//     ahead of a gap wait in a buffer until the gap is filled, then fold in.
//   in order: no key list. Microbatches must arrive in canonical order: with keys, every active key
//     of a microbatch after every key already consumed (its own rows in any order); without keys,
//     the batch is the microbatches' rows in call order. A microbatch that would need reordering is
//     refused (key_out_of_order), since the session keeps nothing it could reorder with.
//
// Memory, beyond the inputs of the call in progress:
//   - always: the FP32 accumulators, N*K floats for dW and N for db;
//   - the BF16 contracts: a carry of up to 15 consumed token rows (15*(K+N) floats; k_width - 1 in
//     general), the start of a 16-token group whose rest has not arrived, so that the groups are those of the whole batch and
//     do not depend on the split;
//   - expected keys: the key list (width int64 per key), and K+N floats for each row waiting behind a
//     gap, until the gap is filled. Arrival in canonical order buffers nothing.
//
// Fail closed: a refused microbatch (any status but ok) changes nothing, and the session goes on.
// Codes: the problem's own (validate_for_plan, core/logical_keys.h); inconsistent_size or
// wrong_dtype when N, K, db or the operand type differ from the session's; bad_keys for keys of
// another width or missing keys in expected-keys mode, or keys in a keyless in-order session (and
// the reverse); unexpected_key for a key not in the list; duplicate_key for a key that already arrived;
// key_out_of_order as above; missing_keys from finish() while expected keys have not arrived.
struct BackwardSessionConfig {
  std::int64_t N = 0, K = 0;
  bool with_bias_grad = false;
  bool bf16_operands = false;
  ReductionPlan plan;  // a backward_weight plan with one chain per element (KStructure::chain)
  std::optional<LogicalKeys> expected_keys;  // canonical order, no padding; nullopt: in-order mode
  unsigned threads = 0;
};

class BackwardSession {
 public:
  // Throws std::invalid_argument if N or K < 1, the operand type does not match the plan, the plan is
  // segmented (a session streams chains), or the expected keys are not unique, active and ascending with width 2 or 3.
  explicit BackwardSession(BackwardSessionConfig config);

  Status submit(const BackwardWeightProblem& microbatch);

  // dW and db of every row received. missing_keys (and nothing changes) while expected keys are
  // outstanding. After a successful finish the session takes nothing more.
  BackwardWeightOutcome finish();

  std::int64_t consumed_tokens() const { return acc_.consumed_tokens(); }
  std::int64_t buffered_tokens() const { return static_cast<std::int64_t>(buffer_.size()); }
  std::int64_t carried_tokens() const { return acc_.carried_tokens(); }

 private:
  struct BufferedRow {
    std::vector<float> x, g;
  };
  Status check_compatible(const BackwardWeightProblem& mb) const;
  Status submit_expected(const BackwardWeightProblem& mb, const CanonicalOrder& order);
  Status submit_in_order(const BackwardWeightProblem& mb, const CanonicalOrder& order);
  std::int64_t expected_count() const;
  const std::int64_t* expected_key(std::int64_t i) const;

  BackwardSessionConfig config_;
  WeightGradAccumulator acc_;
  bool finished_ = false;
  std::int64_t next_ = 0;                       // expected keys: the position of the first missing key
  std::map<std::int64_t, BufferedRow> buffer_;  // expected keys: rows ahead of a gap, by position
  std::optional<bool> keyed_;                   // in order: whether the microbatches carry keys
  std::vector<std::int64_t> last_key_;          // in order: the last key consumed
};

}  // namespace ordo::oracle
