#pragma once
// T-FDPA steps (oracle/tc_fdpa_model.h) for a tile of independent chains at once: kTcRows rows of A
// against one panel of kTcLanes columns of B, every (row, column) lane its own chain. Lanes never mix,
// so every element keeps its order; the bits are tc_fdpa_step's, lane by lane, for finite operands and
// a finite C (special values and overflow to Inf are left to the scalar model: see TcLaneState).
//
// The model's integer arithmetic is done exactly in FP32 and binary64 (exact products of significands,
// powers of two, truncating conversions, integer sums): the case for it, step by step, opens
// tc_fdpa_lanes.cpp.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/problem.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::oracle {

inline constexpr int kTcRows = 4;    // rows of A per tile: each loaded B vector serves 4 rows
inline constexpr int kTcLanes = 16;  // columns of B per panel (the FMA path's panel width)

// The exponent given to a zero operand. A product with a zero factor is zero and, in the model, has
// exponent e_zero, which never sets E: C is always a term, with exponent >= -126 > e_zero when it is
// non-zero and e_zero itself when it is zero. Any exponent below every possible E works, and a sum
// of two of these stays far inside int32.
inline constexpr std::int32_t kTcZeroExponent = -10000;

// A finite operand v as the model decomposes it (tc_fdpa_model.cpp's decompose): v = significand *
// 2^exponent, the exponent the field minus 127, -126 for a subnormal (never renormalised) and
// kTcZeroExponent for +-0; the significand in [0, 2), with v's sign.
std::int32_t tc_operand_exponent(float v);
float tc_operand_significand(float v);

// Whether a step's product terms sum exactly in int32 (L * 65025 * 2^(F - 14) < 2^31; sm_80 and sm_90
// qualify); the kernel otherwise sums them in binary64, a little slower.
bool tc_lane_kernel_is_narrow(const TcFdpaParams& p);

// e_zero as the lane kernel uses it: an e_zero below every non-zero term's exponent (-252, two
// subnormal factors) gives the same E as any other such value, so it is raised to -300, which keeps
// 2^(F - E) and 2^(E - F) inside binary64.
std::int32_t tc_effective_e_zero(int e_zero);

// B (the rows of W) decomposed once, in panels of kTcLanes columns, k-major, each panel's K padded
// with zero terms to k_len (a multiple of L): sig[(panel * k_len + k) * kTcLanes + j] and exp[...] are
// B[panel * kTcLanes + j, k] decomposed. Columns past N are zero.
struct TcPanels {
  std::int64_t panels = 0, k_len = 0;
  std::vector<float> sig;
  std::vector<std::int32_t> exp;
  const float* panel_sig(std::int64_t panel) const { return sig.data() + panel * k_len * kTcLanes; }
  const std::int32_t* panel_exp(std::int64_t panel) const { return exp.data() + panel * k_len * kTcLanes; }
};
// Non-finite operands are packed as zeros; their lanes must take the scalar path.
TcPanels pack_tc_panels(const ForwardProblem& p, std::int64_t k_len, unsigned threads = 0);

// A (the rows of X) decomposed once: sig[m * k_len + k] and exp[...] (each row zero-padded to k_len);
// zero_sig() and zero_exp() serve the rows of a tile past M.
struct TcRowsPacked {
  std::int64_t rows = 0, k_len = 0;
  std::vector<float> sig;
  std::vector<std::int32_t> exp;
  const float* row_sig(std::int64_t m) const { return sig.data() + m * k_len; }
  const std::int32_t* row_exp(std::int64_t m) const { return exp.data() + m * k_len; }
  const float* zero_sig() const { return row_sig(rows); }
  const std::int32_t* zero_exp() const { return row_exp(rows); }
};
TcRowsPacked pack_tc_rows(const ForwardProblem& p, std::int64_t k_len, unsigned threads = 0);

// Whether any of v[0, n) is NaN or +-Inf.
bool any_non_finite(const float* v, std::int64_t n);

// One tile's operands: kTcRows rows of A and one panel of B.
struct TcTileOperands {
  const float* row_sig[kTcRows];
  const std::int32_t* row_exp[kTcRows];
  const float* panel_sig;
  const std::int32_t* panel_exp;
};

// The running accumulators of one tile. `overflow` is set in a lane whose step reached 2^128 (the
// model's result is +-Inf, and later steps follow the special-value rules): its C is no longer the
// model's, and the caller recomputes that element with the scalar model.
struct TcLaneState {
  float c[kTcRows][kTcLanes];
  std::int32_t overflow[kTcRows][kTcLanes];
};

// The kernel: the steps of L products over the terms [k0, k1) of every lane, each step's C the lane's
// running accumulator: st.c[r][j] = tc_fdpa_step(p, a_r + k, b_j + k, L, st.c[r][j]) for k = k0, k0 + L,
// ... k0 and k1 - k0 are multiples of p.L, k1 <= k_len; every operand and every st.c is finite; e_zero
// is tc_effective_e_zero(p.e_zero).
using TcLaneKernel = void (*)(const TcFdpaParams& p, std::int32_t e_zero, const TcTileOperands& t, std::int64_t k0,
                              std::int64_t k1, TcLaneState& st);

// The kernel is compiled for three ISAs; every one gives the same bits (its arithmetic is exact), only
// the speed differs. The best one this CPU runs is what emulate_dot uses; tests run them all.
enum class TcLaneIsa { avx512, avx2, generic };
std::string_view tc_lane_isa_name(TcLaneIsa isa);
bool tc_lane_isa_supported(TcLaneIsa isa);
TcLaneIsa tc_lane_isa_best();
// The kernel for an ISA this CPU supports (std::invalid_argument otherwise) and the parameters' sum.
TcLaneKernel tc_lane_kernel(TcLaneIsa isa, const TcFdpaParams& p);

}  // namespace ordo::oracle
