#pragma once
#include <vector>

#include "core/problem.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

// Host emulation of contracts fwd.bf16.tc-fdpa-sm80/1 and -sm90/1, written from the contract: each
// output is a chain of 16-wide instruction steps (K padded to a multiple of 16 with zero products),
// each instruction the T-FDPA steps of `params`, from +0; then an FP32 round-to-nearest bias add;
// NaN results are 0x7fffffff. x and w must hold bfloat16 values. Threaded over rows.
std::vector<float> emulate_forward_tc_chain(const ForwardProblem& p, const TcFdpaParams& params, unsigned threads = 0);

}  // namespace ordo::oracle
