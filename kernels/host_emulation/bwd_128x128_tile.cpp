// The production 128x128 backward tiles' source (kernels/bwd_f32_simt_128x128x16.cu) compiled as C++ against the
// shim, in a translation unit of its own: the by-shape dX variant's table leads with its dX tile.
#include "kernels/bwd_f32_simt_128x128x16.cu"
