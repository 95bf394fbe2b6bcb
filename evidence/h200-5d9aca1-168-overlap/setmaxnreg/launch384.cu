#include <cstdint>
__global__ void __launch_bounds__(384,1) k(float* out, const float* in, int n) {
  int wg = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    out[threadIdx.x] = 1.f;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    float acc[200];
#pragma unroll
    for (int i = 0; i < 200; ++i) acc[i] = in[i * 384 + threadIdx.x];
    for (int j = 0; j < n; ++j) {
#pragma unroll
      for (int i = 0; i < 200; ++i) acc[i] = fmaf(acc[i], acc[(i + 1) % 200], 1.0f);
    }
#pragma unroll
    for (int i = 0; i < 200; ++i) out[i * 384 + threadIdx.x] = acc[i];
  }
}
