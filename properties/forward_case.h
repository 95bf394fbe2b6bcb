#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/problem.h"
#include "properties/value_families.h"

namespace ordo::properties {

// Bounds on the shapes a property may generate. Volume (M*N*K) is bounded separately so that a
// case with one large dimension keeps the others small, and the host oracle stays affordable.
struct ShapeLimits {
  std::int64_t max_m = 64, max_n = 64, max_k = 256;
  std::int64_t max_volume = 1 << 16;
};

// A generated forward case: shapes, a value family and one seed from which every value is drawn.
// Shrinking acts on these few fields; `explicit_values` holds a minimised case's values once the
// runner has simplified them (and then replaces the seed).
struct ForwardCase {
  std::int64_t M = 1, N = 1, K = 1;
  ValueFamily family = ValueFamily::uniform;
  bool has_bias = false;
  std::uint64_t seed = 0;
  bool bf16_operands = false;  // X and W rounded to bfloat16 (for contracts with bf16 operands)
  bool bf16_output = false;    // Y written as bfloat16 (variants with bf16_output)
  std::optional<ForwardProblem> explicit_values;

  ForwardProblem materialize() const;
  std::string summary() const;  // "M=3 N=5 K=129 bias family=ties seed=0x..."
};

// Sizes at and around the kernels' tile edges (1, 16, 32, 64, 128, ...) are drawn with high weight.
rc::Gen<std::int64_t> gen_dimension(std::int64_t max);
// What a variant needs of its cases: bf16 operands, K a multiple of k_multiple, N of n_multiple and M
// of m_multiple (rounded up, so shrinking keeps it: a TMA-fed backward variant needs its operand rows
// to be whole 16-byte units, the case's K and N for dX's G and W, its M and N for dW's G and X), and,
// with bf16_output_sometimes, half the cases with a bf16 Y.
struct CaseOptions {
  bool bf16_operands = false;
  int k_multiple = 1;
  int n_multiple = 1;
  int m_multiple = 1;
  bool bf16_output_sometimes = false;
};
rc::Gen<ForwardCase> gen_forward_case(ShapeLimits limits, std::vector<ValueFamily> families, CaseOptions options);
rc::Gen<ForwardCase> gen_forward_case(ShapeLimits limits, std::vector<ValueFamily> families,
                                      bool bf16_operands = false);
// Cases with many output tiles and a K of a few hundred (M in [1024, 4096], N in [1024, 6000], K in [256, 300]):
// grids of several waves, so that work split across waves (a tail of smaller tiles; the FP32 by-shape variants
// split only over reductions of 256 steps or more) is exercised, while the host emulator stays affordable.
rc::Gen<ForwardCase> gen_large_grid_case(std::vector<ValueFamily> families, CaseOptions options);
// Cases of few rows and many columns (M in [1, 128], N in [16000, 22000], K in [1, 64]), the shape of a
// fused projection or a vocabulary at small batch: one wave of wide tiles, where a variant may pick
// another tile width for the whole grid (the wgmma forward's 128x168 units, wgmma_forward_unit_width).
rc::Gen<ForwardCase> gen_wide_rows_case(std::vector<ValueFamily> families, CaseOptions options);
// dW cases of weight-sized outputs over few tokens, read as dW's (N, K, T) = (M, N, K): N in [512, 1800],
// K in [2048, 3000], T in [1, 100]. 32 to 180 output tiles of 128 x 256: grids of one partial wave (which the
// wgmma dW runs in 128 x 128 halves when at most half full), of one wave of whole tiles, and of a wave and a
// tail; whole tiles are the ones whose gathered rows the wgmma dW copies without per-chunk checks. Most token
// counts end in a partial 64-token stage and a partial 16-token step.
rc::Gen<ForwardCase> gen_weight_grid_case(std::vector<ValueFamily> families, CaseOptions options);

// RapidCheck prints counterexamples through this.
void showValue(const ForwardCase& c, std::ostream& os);

// Values of a problem in hex, for failure details (truncated to `max_values` per operand).
std::string dump_problem(const ForwardProblem& p, std::size_t max_values = 64);

}  // namespace ordo::properties
