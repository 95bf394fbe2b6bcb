// The 4-warp 128x128 tile's source (kernels/f32_simt_outer_128x128.cu) compiled as C++ against the shim, in a
// translation unit of its own; ordo_kernels_host_emulation runs it through the by-shape tables.
#include "kernels/f32_simt_outer_128x128.cu"
