// The shape-chosen tiles' source (kernels/fwd_f32_simt_by_shape.cu) compiled as C++ against the shim, in a
// translation unit of its own (its names would clash with the other tiles'); ordo_kernels_host_emulation
// calls its launchers through kernels/forward_internal.h.
#include "kernels/fwd_f32_simt_by_shape.cu"
