#pragma once
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/status.h"

namespace ordo::oracle {

// Host emulation of the backward contracts (core/contract.cpp), written from the contracts. `model` is
// the contract's accumulation: fma_chain for bwd.*.f32.fma-chain/1, tc_fdpa_sm80 / tc_fdpa_sm90 for
// bwd.*.bf16.tc-fdpa-sm80/1 and -sm90/1 (which need bf16_operands). NaN results are 0x7fffffff.

// dX (bwd.dx.*): dX[m,k] is one chain over n ascending of G[m,n]*W[n,k], from +0. That is the forward
// chain of the same contract family with X = G and W^T in place of W, so the vectorised, threaded
// forward emulators run it on a transposed copy of W. Throws std::invalid_argument when validate(p)
// fails or `model` does not match p.bf16_operands.
std::vector<float> emulate_backward_data(const BackwardDataProblem& p, AccumulationModel model, unsigned threads = 0);

struct BackwardWeightOutcome {
  Status status;
  BackwardWeightResult result;  // empty unless status is ok
};

// dW and db (bwd.dw.*) over the whole batch: validates the problem and its keys (fail closed: a
// rejected problem gives no result), then folds the rows of token_order(p) into a
// WeightGradAccumulator. Rows are read where they lie: with keys already canonical this is the
// kernels' in-place reduction, otherwise the order visits them through an index, never a copy.
BackwardWeightOutcome emulate_backward_weight(const BackwardWeightProblem& p, AccumulationModel model,
                                              unsigned threads = 0);

// Status of a problem for a model: validate(p), then wrong_dtype unless bf16_operands is set exactly
// for the tensor-core models.
Status validate_for_model(const BackwardDataProblem& p, AccumulationModel model);
Status validate_for_model(const BackwardWeightProblem& p, AccumulationModel model);

// The deliberately plain scalar versions (backward_reference.cpp): one loop per element, no packing,
// no threads, their own sort of the keys, T-FDPA steps called directly. The fast emulators are
// checked against them. They assume a valid problem.
std::vector<float> reference_backward_data(const BackwardDataProblem& p, AccumulationModel model);
BackwardWeightResult reference_backward_weight(const BackwardWeightProblem& p, AccumulationModel model);

}  // namespace ordo::oracle
