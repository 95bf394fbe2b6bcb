// The warp-specialised tiles' source (kernels/f32_simt_warp_specialized.cu) compiled as C++ against the shim, in a
// translation unit of its own: a producer thread group and consumer threads handing slabs over through
// kernels/slab_barrier.cuh's host barriers; ordo_kernels_host_emulation runs it through the by-shape table.
#include "kernels/f32_simt_warp_specialized.cu"
