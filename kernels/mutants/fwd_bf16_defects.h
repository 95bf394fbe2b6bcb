#pragma once
// The defects of the BF16 forward mutants of contract fwd.bf16.tc-fdpa-sm90/1, as functions of one
// accumulator element: nvcc applies them to every element of the wmma accumulator fragment
// (fwd_bf16_mutants.cu), the host twin to the T-FDPA model's chain (subjects/mutants/
// host_fwd_bf16_mutants.cpp). The contract: one chain of 16-wide tensor-core steps from +0, the running
// FP32 accumulator the C operand of every step; the FP32 bias add; a BF16 Y is one round-to-nearest-even
// cast at the store.
#include "kernels/mutants/mutant_arith.h"

namespace ordo::mutants {

enum class Bf16Defect { acc_rounded, chain_restart, output_rtz };

constexpr const char* kBf16AccRoundedId = "mutant.fwd.bf16.acc-rounded-bf16";
constexpr const char* kBf16AccRoundedDefect =
    "the FP32 accumulator is rounded to BF16 (nearest even) between k tiles of 32 (every second instruction)";
constexpr const char* kBf16ChainRestartId = "mutant.fwd.bf16.chain-restart-per-tile";
constexpr const char* kBf16ChainRestartDefect =
    "every k tile of 32 is its own tensor-core chain from +0; the tiles' partials are added in FP32 (add_rn)";
constexpr const char* kBf16OutputRtzId = "mutant.fwd.bf16.output-round-toward-zero";
constexpr const char* kBf16OutputRtzDefect = "a BF16 Y drops the low 16 bits of the FP32 result (round toward zero)";

constexpr int kBf16Instruction = 16;  // k per instruction
constexpr int kBf16KTile = 32;        // the k tile whose boundaries the defects act at

// After the instruction over k0 .. k0+15 of a K-term reduction: the defect's change of one accumulator
// element `acc` (and of the running FP32 total of chain_restart).
ORDO_MUTANT_HD void after_instruction(Bf16Defect d, int k0, int K, float& acc, float& total) {
  const bool tile_end = (k0 + kBf16Instruction) % kBf16KTile == 0, more = k0 + kBf16Instruction < K;
  if (d == Bf16Defect::acc_rounded && tile_end && more) acc = round_bf16_rne(acc);
  if (d == Bf16Defect::chain_restart && (tile_end || !more)) {
    total = add_rn(total, acc);
    acc = 0.0f;
  }
}

// The FP32 result of the chain, before the bias.
ORDO_MUTANT_HD float chain_result(Bf16Defect d, float acc, float total) {
  return d == Bf16Defect::chain_restart ? total : acc;
}

// The BF16 store of an FP32 output.
ORDO_MUTANT_HD float bf16_store(Bf16Defect d, float out) {
  return d == Bf16Defect::output_rtz ? truncate_bf16(out) : round_bf16_rne(out);
}

}  // namespace ordo::mutants
