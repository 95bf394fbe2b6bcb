#include "oracle/plan_emulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/float_bits.h"
#include "oracle/parallel_for.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {
namespace {

constexpr int kLanes = 16;  // output columns per panel: one AVX-512 register, two AVX2 registers
constexpr int kRows = 4;    // rows of A per micro-kernel call: reuses each loaded B vector 4 times

bool is_bf16_bits(float f) { return (bits_of(f) & 0xFFFFu) == 0; }

TcFdpaParams params_of(const TcFdpaStep& s) { return {s.L, s.F, s.e_zero}; }

std::int64_t segment_count(const ReductionPlan& plan, std::int64_t padded) {
  if (plan.structure == KStructure::chain || padded == 0) return 1;
  return (padded + plan.segment_length - 1) / plan.segment_length;
}

// B [C,K] repacked k-major in panels of kLanes columns: panel[p][k][j] = B[p*kLanes + j, k]. Columns past
// C are zero; their lanes are computed and thrown away.
std::vector<float> pack_panels(const ForwardProblem& p, std::int64_t panels) {
  std::vector<float> packed(static_cast<std::size_t>(panels * p.K * kLanes), 0.0f);
  for (std::int64_t n = 0; n < p.N; ++n) {
    const std::int64_t panel = n / kLanes, lane = n % kLanes;
    float* dst = packed.data() + panel * p.K * kLanes + lane;
    for (std::int64_t k = 0; k < p.K; ++k) dst[k * kLanes] = p.w_at(n, k);
  }
  return packed;
}

// kRows x kLanes independent FMA chains over the real terms [k0, k1) (k1 <= K), continuing from acc.
// target_clones compiles it for AVX-512, AVX2+FMA and a generic x86-64 (where std::fma is the correctly
// rounded library call): the same bits on every path, only the speed differs.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
void fma_chain_micro_kernel(const float* const* rows, const float* panel, std::int64_t k0, std::int64_t k1,
                            float (*acc)[kLanes]) {
  float a[kRows][kLanes];
  std::memcpy(a, acc, sizeof a);
  const float* x0 = rows[0];
  const float* x1 = rows[1];
  const float* x2 = rows[2];
  const float* x3 = rows[3];
  for (std::int64_t k = k0; k < k1; ++k) {
    const float* wk = panel + k * kLanes;
    const float a0 = x0[k], a1 = x1[k], a2 = x2[k], a3 = x3[k];
    for (int j = 0; j < kLanes; ++j) a[0][j] = std::fma(a0, wk[j], a[0][j]);
    for (int j = 0; j < kLanes; ++j) a[1][j] = std::fma(a1, wk[j], a[1][j]);
    for (int j = 0; j < kLanes; ++j) a[2][j] = std::fma(a2, wk[j], a[2][j]);
    for (int j = 0; j < kLanes; ++j) a[3][j] = std::fma(a3, wk[j], a[3][j]);
  }
  std::memcpy(acc, a, sizeof a);
}

// The partial sums of one tile, combined as the plan says. Ascending: folded in as each segment ends.
// Pairwise: kept until the last segment, then reduced level by level.
class Combiner {
 public:
  Combiner(const ReductionPlan& plan, std::int64_t segments)
      : pairwise_(plan.structure == KStructure::segments && plan.combine == SegmentCombine::pairwise_tree) {
    if (pairwise_) partials_.resize(static_cast<std::size_t>(segments) * kRows * kLanes);
  }
  void add(std::int64_t segment, const float (*acc)[kLanes]) {
    if (pairwise_) {
      std::memcpy(&partials_[static_cast<std::size_t>(segment) * kRows * kLanes], acc, sizeof total_);
    } else if (segment == 0) {
      std::memcpy(total_, acc, sizeof total_);
    } else {
      for (int r = 0; r < kRows; ++r)
        for (int j = 0; j < kLanes; ++j) total_[r][j] = total_[r][j] + acc[r][j];  // one add_rn each
    }
  }
  const float (*result())[kLanes] {
    if (!pairwise_) return total_;
    std::size_t count = partials_.size() / (kRows * kLanes);
    while (count > 1) {
      const std::size_t next = (count + 1) / 2;
      for (std::size_t i = 0; i < next; ++i) {
        float* dst = &partials_[i * kRows * kLanes];
        const float* lo = &partials_[2 * i * kRows * kLanes];
        if (2 * i + 1 < count) {
          const float* hi = &partials_[(2 * i + 1) * kRows * kLanes];
          for (int e = 0; e < kRows * kLanes; ++e) dst[e] = lo[e] + hi[e];
        } else if (dst != lo) {
          std::memcpy(dst, lo, sizeof total_);
        }
      }
      count = next;
    }
    std::memcpy(total_, partials_.data(), sizeof total_);
    return total_;
  }

 private:
  bool pairwise_;
  float total_[kRows][kLanes] = {};
  std::vector<float> partials_;
};

// One tile (kRows rows of A, one panel of kLanes columns of B), every segment, combined.
void fma_tile(const ReductionPlan& plan, const ForwardProblem& p, const float* const* rows, const float* panel,
              std::int64_t n0, float (*out)[kLanes]) {
  const std::int64_t padded = plan.padded_terms(p.K);
  const std::int64_t segments = segment_count(plan, padded);
  const std::int64_t length = plan.structure == KStructure::chain ? padded : plan.segment_length;
  Combiner combine(plan, segments);
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t s0 = s * length, s1 = std::min(padded, s0 + length);
    float acc[kRows][kLanes];
    for (int j = 0; j < kLanes; ++j) {
      const std::int64_t n = std::min(n0 + j, p.N - 1);
      const float start = s == 0 && plan.bias == BiasPlacement::initial_accumulator && p.bias
                              ? (*p.bias)[static_cast<std::size_t>(n)]
                              : plan.start_value();
      for (int r = 0; r < kRows; ++r) acc[r][j] = start;
    }
    const std::int64_t real_end = std::min(s1, p.K);
    if (real_end > s0) fma_chain_micro_kernel(rows, panel, s0, real_end, acc);
    // Zero products after the real terms: fma_rn(+0, +0, acc) = add_rn(acc, +0), which changes only a
    // -0 (to +0), so one add stands for any number of them.
    if (s1 > std::max(real_end, s0))
      for (int r = 0; r < kRows; ++r)
        for (int j = 0; j < kLanes; ++j) acc[r][j] = acc[r][j] + 0.0f;
    combine.add(s, acc);
  }
  std::memcpy(out, combine.result(), sizeof(float) * kRows * kLanes);
}

// One element of a tensor-core plan: T-FDPA steps over the real terms of each segment (a short last step
// is the zero-padded step: zero products never change E), then any all-zero steps.
float tc_element(const ReductionPlan& plan, const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  const TcFdpaParams params = params_of(plan.step.tc);
  const std::int64_t padded = plan.padded_terms(p.K);
  const std::int64_t segments = segment_count(plan, padded);
  const std::int64_t length = plan.structure == KStructure::chain ? padded : plan.segment_length;
  const float* a = p.x_row(m);
  const float* b = p.w_row(n);
  std::vector<float> partials;
  partials.reserve(static_cast<std::size_t>(segments));
  for (std::int64_t s = 0; s < segments; ++s) {
    const std::int64_t s0 = s * length, s1 = std::min(padded, s0 + length);
    float acc = s == 0 && plan.bias == BiasPlacement::initial_accumulator && p.bias
                    ? (*p.bias)[static_cast<std::size_t>(n)]
                    : plan.start_value();
    const std::int64_t real_end = std::min(s1, p.K);
    std::int64_t k = s0;
    for (; k < real_end; k += params.L)
      acc = tc_fdpa_step(params, a + k, b + k, static_cast<int>(std::min<std::int64_t>(params.L, real_end - k)), acc);
    // An all-zero step returns C exactly, except that an exact zero sum is +0: a -0 becomes +0.
    if (s1 > k) acc = acc + 0.0f;
    partials.push_back(acc);
  }
  float r = partials[0];
  if (plan.structure == KStructure::segments && plan.combine == SegmentCombine::pairwise_tree) {
    while (partials.size() > 1) {
      std::vector<float> next;
      for (std::size_t i = 0; i < partials.size(); i += 2)
        next.push_back(i + 1 < partials.size() ? partials[i] + partials[i + 1] : partials[i]);
      partials.swap(next);
    }
    r = partials[0];
  } else {
    for (std::size_t i = 1; i < partials.size(); ++i) r = r + partials[i];
  }
  if (plan.bias == BiasPlacement::after_chain_add_rn && p.bias) r = r + (*p.bias)[static_cast<std::size_t>(n)];
  return r;
}

}  // namespace

float finish_output(const ReductionPlan& plan, float v, bool bf16_output) {
  if (std::isnan(v)) v = float_of(plan.nan_bits.value_or(kCanonicalNaNBits));
  // cvt.rn.bf16.f32: round to nearest even; every NaN becomes the bfloat16 NaN 0x7fff.
  return bf16_output ? round_to_bf16(v) : v;
}

Status check_dot_problem(const ReductionPlan& plan, const ForwardProblem& p, bool allow_empty_k) {
  const bool shapes = p.M >= 1 && p.N >= 1 && (p.K >= 1 || (allow_empty_k && p.K == 0)) &&
                      holds_exactly(p.x.size(), p.M, p.K) && holds_exactly(p.w.size(), p.N, p.K) &&
                      checked_product(p.M, p.N).has_value() && (!p.bias || holds_exactly(p.bias->size(), 1, p.N));
  if (!shapes)
    return Status::error(StatusCode::inconsistent_size,
                         "problem shapes: M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" +
                             std::to_string(p.K) + " with " + std::to_string(p.x.size()) + " x and " +
                             std::to_string(p.w.size()) + " w values");
  if (plan.operand_dtype == DType::bf16) {
    for (const std::vector<float>* v : {&p.x, &p.w})
      for (std::size_t i = 0; i < v->size(); ++i)
        if (!is_bf16_bits((*v)[i]))
          return Status::error(StatusCode::wrong_dtype, std::string(v == &p.x ? "x" : "w") + "[" + std::to_string(i) +
                                                            "] = " + describe_float((*v)[i]) +
                                                            " is not a bfloat16 value (the plan's operands are bf16)");
  }
  if (!plan.allows_output(p.bf16_output ? DType::bf16 : DType::f32))
    return Status::error(StatusCode::wrong_dtype,
                         std::string("the plan does not allow a ") + (p.bf16_output ? "bf16" : "f32") + " output");
  if (p.bias && plan.bias == BiasPlacement::none)
    return Status::error(StatusCode::unsupported_shape, "the plan has no bias, but the problem gives one");
  return Status::success();
}

std::vector<float> emulate_dot(const ReductionPlan& plan, const ForwardProblem& p, unsigned threads) {
  if (Status s = check_dot_problem(plan, p, true); !s.ok()) throw std::invalid_argument("emulate_dot: " + s.to_string());
  std::vector<float> y(static_cast<std::size_t>(p.M * p.N));
  if (plan.step.kind == StepKind::tc_fdpa) {
    parallel_for(
        p.M,
        [&](std::int64_t m) {
          for (std::int64_t n = 0; n < p.N; ++n)
            y[static_cast<std::size_t>(m * p.N + n)] = finish_output(plan, tc_element(plan, p, m, n), p.bf16_output);
        },
        threads);
    return y;
  }
  const std::int64_t panels = (p.N + kLanes - 1) / kLanes;
  const std::int64_t row_blocks = (p.M + kRows - 1) / kRows;
  const std::vector<float> packed = pack_panels(p, panels);
  const std::vector<float> zero_row(static_cast<std::size_t>(std::max<std::int64_t>(p.K, 1)), 0.0f);  // rows past M
  parallel_for(
      row_blocks * panels,
      [&](std::int64_t task) {
        const std::int64_t rb = task / panels, panel = task % panels;
        const float* rows[kRows];
        for (int r = 0; r < kRows; ++r) {
          const std::int64_t m = rb * kRows + r;
          rows[r] = m < p.M ? p.x.data() + m * p.K : zero_row.data();
        }
        float out[kRows][kLanes];
        fma_tile(plan, p, rows, packed.data() + panel * p.K * kLanes, panel * kLanes, out);
        for (int r = 0; r < kRows; ++r) {
          const std::int64_t m = rb * kRows + r;
          if (m >= p.M) break;
          for (int j = 0; j < kLanes; ++j) {
            const std::int64_t n = panel * kLanes + j;
            if (n >= p.N) break;
            float v = out[r][j];
            if (plan.bias == BiasPlacement::after_chain_add_rn && p.bias) v = v + (*p.bias)[static_cast<std::size_t>(n)];
            y[static_cast<std::size_t>(m * p.N + n)] = finish_output(plan, v, p.bf16_output);
          }
        }
      },
      threads);
  return y;
}

}  // namespace ordo::oracle
