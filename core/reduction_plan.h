#pragma once
// A reduction plan states the arithmetic of one output element completely, as data: one generic
// interpreter (oracle/plan_emulator.h), its plain scalar reference and the error-bound selector
// (oracle/plan_error_bound.h) read it; no code anywhere dispatches on a contract's id.
//
// Every output is a reduction of K terms (a_k, b_k), in the order the operation gives them:
//   forward  Y[m,n]  = sum_k X[m,k] W[n,k]   (+ b[n])
//   dX       dX[m,k] = sum_n G[m,n] W[n,k]
//   dW       dW[n,k] = sum_t G[t,n] X[t,k]   over the tokens in `row_order`; db[n] = sum_t G[t,n]
// The plan then says, in this order of evaluation:
//   1. padding: the K terms are followed by zero products (+0 * +0) up to a multiple of
//      `k_padding_multiple` (masked loads of a K tail do this) and of the step's instruction width;
//   2. structure: one chain over all terms, or fixed segments of `segment_length` terms (independent of
//      M, N and the grid), each its own chain;
//   3. each chain starts at `start_value` (the first chain at the bias when the bias is the initial
//      accumulator) and folds the terms in ascending order with the step;
//   4. the segments' partial sums are combined: an ascending add_rn chain p0 + p1 + p2 ... (starting
//      from p0), or a fixed pairwise tree (adjacent pairs level by level; an odd last one moves up);
//   5. a bias placed after the chain is added with one add_rn;
//   6. the FP32 result is stored as FP32, or cast to BF16 with one round-to-nearest-even; any NaN
//      result has the plan's NaN bits (or any NaN, when the plan says so).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace ordo {

enum class StepKind {
  fma_rn,   // acc = fma_rn(a_k, b_k, acc): one product per rounding, round to nearest even
  tc_fdpa,  // tensor-core truncated fused dot-product-add of L products and acc (oracle/tc_fdpa_model.h)
};

// A tensor-core step: T-FDPA over L products (numerics: MMA-Sim, arXiv 2511.10909; Khattak & Mikaitis,
// arXiv 2512.07004). One instruction covers k_width terms as k_width / L consecutive steps, each
// taking the running accumulator as C: mma.sync.m16n8k16 on sm_80 is two L = 8 steps, on sm_90 one
// L = 16 step, as is wgmma ...k16.
struct TcFdpaStep {
  int L = 16;
  int F = 25;
  int e_zero = -133;
  int k_width = 16;
};

struct Step {
  StepKind kind = StepKind::fma_rn;
  TcFdpaStep tc;  // tc_fdpa only
  // Terms per instruction: 1 for fma_rn, tc.k_width for tc_fdpa. The terms are padded to a multiple.
  int width() const { return kind == StepKind::fma_rn ? 1 : tc.k_width; }
};

enum class KStructure { chain, segments };
enum class SegmentCombine { ascending_add_rn, pairwise_tree };

enum class BiasPlacement {
  after_chain_add_rn,   // y = add_rn(acc, b[n]) after the reduction; no bias given: y = acc
  initial_accumulator,  // the (first) chain starts at b[n] instead of the start value
  none,                 // the operation has no bias (dX, dW)
};

enum class RowOrder {
  call_order,             // tokens reduced as the rows arrive (t = 0 .. T-1); keys refused
  ascending_logical_key,  // active rows in ascending logical-key order, padding dropped; call order without keys
};

enum class BiasGradient {
  none,          // no db
  add_rn_chain,  // db[n]: acc = +0; acc = add_rn(acc, G[t,n]) over the tokens in the row order of dW
};

enum class ContractKind {
  forward,          // Y = X * W^T + b, reduced over k
  backward_data,    // dX = G * W, reduced over the output features n
  backward_weight,  // dW = G^T * X and db = sum_t G, reduced over the tokens t in a stated row order
};

struct ReductionPlan {
  DType operand_dtype = DType::f32;  // X, W (forward), G, W (dX), X, G (dW): f32 or bf16
  Step step;
  KStructure structure = KStructure::chain;
  std::int64_t segment_length = 0;  // segments only: terms per segment, a multiple of step.width()
  SegmentCombine combine = SegmentCombine::ascending_add_rn;
  std::int64_t k_padding_multiple = 1;  // zero products appended up to a multiple of this (1: none)
  bool start_negative_zero = false;     // start value -0 instead of +0
  BiasPlacement bias = BiasPlacement::after_chain_add_rn;
  std::vector<DType> output_dtypes{DType::f32};  // f32, and bf16 when the contract allows a BF16 output
  // The bits of every NaN result (FP32 output); a BF16 output stores the cast of that NaN.
  // nullopt: any NaN is accepted (the comparison then treats all NaNs as equal).
  std::optional<std::uint32_t> nan_bits = 0x7FFFFFFFu;
  RowOrder row_order = RowOrder::ascending_logical_key;  // backward_weight only
  BiasGradient bias_gradient = BiasGradient::add_rn_chain;  // backward_weight only

  // The terms one instruction needs, and the padded length of a K-term reduction.
  std::int64_t padding_multiple() const;
  std::int64_t padded_terms(std::int64_t K) const;
  bool allows_output(DType t) const;
  float start_value() const { return start_negative_zero ? -0.0f : 0.0f; }
};

// An empty string when the plan is well formed for `kind`, else what is wrong (naming the field).
std::string plan_problem(const ReductionPlan& plan, ContractKind kind);

std::string_view step_kind_name(StepKind k);
std::string_view structure_name(KStructure s);
std::string_view combine_name(SegmentCombine c);
std::string_view bias_placement_name(BiasPlacement b);
std::string_view row_order_name(RowOrder r);
std::string_view bias_gradient_name(BiasGradient b);
std::string_view contract_kind_name(ContractKind k);

// The plan as readable lines, one fact each (what `ordo list --contracts` prints).
std::vector<std::string> describe_plan(const ReductionPlan& plan, ContractKind kind);

}  // namespace ordo
