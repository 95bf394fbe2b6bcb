#pragma once
// The tensor-core (tc_fdpa) path of emulate_dot (oracle/plan_emulator.h), two ways. emulate_dot runs
// the lane kernel of oracle/tc_fdpa_lanes.h on the best ISA of the CPU; here it can be asked for any
// ISA (the tests run each). The per-element path it replaced, tc_fdpa_step per element threaded over
// rows, stays callable: the throughput bench (bench/emulator_throughput.cpp) measures the two side by
// side, and the tests compare them.
#include <vector>

#include "core/problem.h"
#include "core/reduction_plan.h"
#include "oracle/tc_fdpa_lanes.h"

namespace ordo::oracle {

// emulate_dot's result for a tc_fdpa plan through the lane kernel compiled for `isa` (one this CPU
// supports). The problem must pass check_dot_problem and the plan's step must be tc_fdpa
// (std::invalid_argument otherwise).
std::vector<float> emulate_dot_tc_lanes(const ReductionPlan& plan, const ForwardProblem& p, TcLaneIsa isa,
                                        unsigned threads = 0);

// emulate_dot's result for a tc_fdpa plan, one element at a time with tc_fdpa_step. The problem must
// pass check_dot_problem and the plan's step must be tc_fdpa (std::invalid_argument otherwise).
std::vector<float> emulate_dot_tc_per_element(const ReductionPlan& plan, const ForwardProblem& p, unsigned threads = 0);

}  // namespace ordo::oracle
