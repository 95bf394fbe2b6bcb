// The by-shape dW tiles' source (kernels/bwd_dw_f32_simt_by_shape.cu) compiled as C++ against the shim, in a
// translation unit of its own; ordo_kernels_host_emulation calls its launchers through
// kernels/backward_internal.h.
#include "kernels/bwd_dw_f32_simt_by_shape.cu"
