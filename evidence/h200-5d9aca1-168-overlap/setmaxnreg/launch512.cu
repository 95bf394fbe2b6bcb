__global__ void __launch_bounds__(512,1) k(float* out, const float* in, int n) {
  int wg = __shfl_sync(0xffffffffu, threadIdx.x / 128, 0);
  if (wg < 2) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 56;\n");
    out[threadIdx.x] = 1.f;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 200;\n");
    float acc[170];
#pragma unroll
    for (int i = 0; i < 170; ++i) acc[i] = in[i * 512 + threadIdx.x];
    for (int j = 0; j < n; ++j) {
#pragma unroll
      for (int i = 0; i < 170; ++i) acc[i] = fmaf(acc[i], acc[(i + 1) % 170], 1.0f);
    }
#pragma unroll
    for (int i = 0; i < 170; ++i) out[i * 512 + threadIdx.x] = acc[i];
  }
}
