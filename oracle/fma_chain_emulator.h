#pragma once
#include <vector>

#include "core/problem.h"

namespace ordo::oracle {

// Host emulation of contract fwd.f32.fma-chain/1, written from the contract (core/contract.cpp),
// not from any kernel: every output is one std::fma chain over ascending k from +0, then one
// round-to-nearest add of the bias; NaN results canonicalised to the GPU's 0x7fffffff.
//
// Fast path: vectorised across 16 output columns (lanes never mix: each lane is its own chain, so
// vectorising keeps every element's order) and threaded over row blocks. `threads` = 0 uses all cores.
std::vector<float> emulate_forward_fma_chain(const ForwardProblem& p, unsigned threads = 0);

// The deliberately plain scalar version of the same contract: one loop per element, no packing,
// no threads. The fast emulator is checked against it.
float reference_fma_chain_element(const ForwardProblem& p, std::int64_t m, std::int64_t n);
std::vector<float> reference_forward_fma_chain(const ForwardProblem& p);

}  // namespace ordo::oracle
