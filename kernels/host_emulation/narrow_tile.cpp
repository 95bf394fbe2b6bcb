// The narrow-output tile's source (kernels/bwd_f32_simt_narrow.cu) compiled as C++ against the shim, in a
// translation unit of its own; ordo_kernels_host_emulation calls its forward launcher.
#include "kernels/bwd_f32_simt_narrow.cu"
