#pragma once
// How an operand tile lies in memory relative to the reduction, for the FP32 and BF16 SIMT / wmma tiles that read
// both layouts (forward B, dX's W, dW's G and X). One enum for all of them, and one switch that every test of a
// layout goes through, so that a third layout is a compile warning (-Wswitch) at that switch, never a silent else.
namespace ordo::kernels::detail {

enum class OperandLayout {
  reduction_contiguous,  // base[i * ld + r]: consecutive reduction steps of one output row are adjacent
  output_contiguous,     // base[row(r) * ld + i]: a reduction step is one row, consecutive outputs adjacent
};

__host__ __device__ constexpr bool reduction_contiguous(OperandLayout l) {
  switch (l) {
    case OperandLayout::reduction_contiguous:
      return true;
    case OperandLayout::output_contiguous:
      return false;
  }
  return false;
}

}  // namespace ordo::kernels::detail
