#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/backward_problem.h"
#include "core/reduction_plan.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

// The running state of dW and db over a stream of token rows that arrive already in the contract's
// row order, for a backward_weight plan with one chain per element (KStructure::chain). The microbatch
// session feeds it, so a split of the stream cannot change the bits; it must equal the whole-batch
// emulator (oracle/backward_emulator.h), which a property checks:
//   fma_rn:  every dW element is its own FMA chain; a token is folded in as soon as it arrives.
//   tc_fdpa: dW folds tokens in instructions of k_width consecutive tokens; up to k_width - 1 tokens
//            wait in a carry for the rest of their group, so the groups are those of the whole stream.
//   db:      an add_rn chain per column, folded in as soon as a token arrives.
// Threaded over tiles of dW; within a tile every element keeps its own chain in stream order.
class WeightGradAccumulator {
 public:
  // Throws std::invalid_argument for N or K < 1 or a plan that is not a single chain.
  WeightGradAccumulator(std::int64_t N, std::int64_t K, bool with_bias_grad, const ReductionPlan& plan,
                        unsigned threads = 0);

  // Folds in token rows, in order: x_rows[i] points at K values of X, g_rows[i] at N values of G.
  // The pointers need only stay valid during the call.
  void consume(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows);

  // dW and db of everything consumed: a pending partial group is run zero padded, then any further
  // padding the plan asks for; NaN results get the plan's NaN bits. Call once.
  BackwardWeightResult finish();

  std::int64_t consumed_tokens() const { return consumed_; }
  std::int64_t carried_tokens() const { return static_cast<std::int64_t>(carry_x_.size()) / K_; }

 private:
  void consume_fma(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows);
  void consume_tc(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows);
  void run_tc_groups(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows,
                     std::size_t groups);
  void add_bias_grad(const std::vector<const float*>& g_rows);

  std::int64_t N_, K_;
  bool with_bias_grad_;
  ReductionPlan plan_;
  std::optional<TcFdpaParams> tc_;
  std::int64_t group_ = 1;  // tokens per instruction
  unsigned threads_;
  std::int64_t consumed_ = 0;
  std::vector<float> dw_;                 // [N, K]
  std::vector<float> db_;                 // [N] when with_bias_grad
  std::vector<float> carry_x_, carry_g_;  // tc_fdpa: the tokens of the unfinished group, [r, K] and [r, N]
};

// The T-FDPA parameters of a tensor-core step; nullopt for fma_rn.
std::optional<TcFdpaParams> tc_params_of(const Step& step);

}  // namespace ordo::oracle
