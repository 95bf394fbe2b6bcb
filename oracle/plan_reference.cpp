// The plain scalar interpreter of a reduction plan: every stage of the plan's definition
// (core/reduction_plan.h) spelled out for one element, with no shortcut the fast path takes (the zero
// products are appended and folded one by one; the pairwise tree is built level by level).
#include <cmath>
#include <stdexcept>

#include "oracle/plan_emulator.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

float reference_dot_element(const ReductionPlan& plan, const float* a, const float* b, std::int64_t K,
                            std::optional<float> bias, bool bf16_output) {
  // 1. padding with zero products.
  const std::int64_t padded = plan.padded_terms(K);
  std::vector<float> ta(static_cast<std::size_t>(padded), 0.0f), tb(ta.size(), 0.0f);
  for (std::int64_t k = 0; k < K; ++k) {
    ta[static_cast<std::size_t>(k)] = a[k];
    tb[static_cast<std::size_t>(k)] = b[k];
  }
  // 2. the structure: a list of [begin, end) ranges.
  std::vector<std::pair<std::int64_t, std::int64_t>> segments;
  if (plan.structure == KStructure::chain || padded == 0) {
    segments.emplace_back(0, padded);
  } else {
    for (std::int64_t s0 = 0; s0 < padded; s0 += plan.segment_length)
      segments.emplace_back(s0, std::min(padded, s0 + plan.segment_length));
  }
  // 3. one chain per segment.
  std::vector<float> partials;
  for (std::size_t s = 0; s < segments.size(); ++s) {
    float acc = plan.start_value();
    if (s == 0 && plan.bias == BiasPlacement::initial_accumulator && bias) acc = *bias;
    const auto [s0, s1] = segments[s];
    if (plan.step.kind == StepKind::fma_rn) {
      for (std::int64_t k = s0; k < s1; ++k)
        acc = std::fma(ta[static_cast<std::size_t>(k)], tb[static_cast<std::size_t>(k)], acc);
    } else {
      const TcFdpaParams params{plan.step.tc.L, plan.step.tc.F, plan.step.tc.e_zero};
      for (std::int64_t k = s0; k < s1; k += params.L)
        acc = tc_fdpa_step(params, &ta[static_cast<std::size_t>(k)], &tb[static_cast<std::size_t>(k)], params.L, acc);
    }
    partials.push_back(acc);
  }
  // 4. the combination of the partials.
  float r;
  if (plan.structure == KStructure::segments && plan.combine == SegmentCombine::pairwise_tree) {
    std::vector<float> level = partials;
    while (level.size() > 1) {
      std::vector<float> up;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) up.push_back(level[i] + level[i + 1]);
      if (level.size() % 2 == 1) up.push_back(level.back());
      level = up;
    }
    r = level[0];
  } else {
    r = partials[0];
    for (std::size_t i = 1; i < partials.size(); ++i) r = r + partials[i];
  }
  // 5. the bias after the reduction.
  if (plan.bias == BiasPlacement::after_chain_add_rn && bias) r = r + *bias;
  // 6. NaN bits and the output cast.
  return finish_output(plan, r, bf16_output);
}

std::vector<float> reference_dot(const ReductionPlan& plan, const ForwardProblem& p) {
  if (Status s = check_dot_problem(plan, p, true); !s.ok()) throw std::invalid_argument("reference_dot: " + s.to_string());
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  for (std::int64_t m = 0; m < p.M; ++m)
    for (std::int64_t n = 0; n < p.N; ++n)
      y[static_cast<std::size_t>(m * p.N + n)] =
          reference_dot_element(plan, p.x_row(m), p.w_row(n), p.K, p.bias_at(n), p.bf16_output);
  return y;
}

}  // namespace ordo::oracle
