#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

// The running state of dW and db over a stream of token rows that arrive already in the contract's
// row order (bwd.dw.f32.fma-chain/1, bwd.dw.bf16.tc-fdpa-sm80/1, -sm90/1). Both the whole-batch
// emulator and the microbatch session feed it, so a split of the stream cannot change the bits:
//   fma_chain: every dW element is its own FMA chain; a token is folded in as soon as it arrives.
//   tc_fdpa:   dW folds tokens in instructions of 16 consecutive tokens; up to 15 tokens wait in a
//              carry for the rest of their group, so the groups are those of the whole stream.
//   db:        an add_rn chain per column, folded in as soon as a token arrives (both models).
// Threaded over tiles of dW; within a tile every element keeps its own chain in stream order.
class WeightGradAccumulator {
 public:
  WeightGradAccumulator(std::int64_t N, std::int64_t K, bool with_bias_grad, AccumulationModel model,
                        unsigned threads = 0);

  // Folds in token rows, in order: x_rows[i] points at K values of X, g_rows[i] at N values of G.
  // The pointers need only stay valid during the call.
  void consume(const std::vector<const float*>& x_rows, const std::vector<const float*>& g_rows);

  // dW and db of everything consumed: a pending partial group is run zero padded; NaN results get
  // the bits 0x7fffffff. Call once.
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
  std::optional<TcFdpaParams> tc_;
  unsigned threads_;
  std::int64_t consumed_ = 0;
  std::vector<float> dw_;                 // [N, K]
  std::vector<float> db_;                 // [N] when with_bias_grad
  std::vector<float> carry_x_, carry_g_;  // tc_fdpa: the tokens of the unfinished group, [r, K] and [r, N]
};

// The tensor-core instruction of the BF16 contracts: 16 products as T-FDPA steps of p.L over ascending
// index, the accumulator passed as C of each step.
float tc_instruction16(const TcFdpaParams& p, const float* a, const float* b, float c);

// The T-FDPA parameters of a tensor-core accumulation model; nullopt for fma_chain.
std::optional<TcFdpaParams> tc_params_of(AccumulationModel model);

}  // namespace ordo::oracle
