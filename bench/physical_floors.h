#pragma once
// The physical floors of a strict-chain FP32 GEMM, measured on the GPU the bench runs on (physical_floors.cu),
// and the floor of one problem. Under the contracts every output is one chain of fma_rn in a fixed order,
// so no kernel can beat the largest of:
//   * the chain: its length x the FMA latency / the SM clock (steps of one chain cannot overlap);
//   * the FMA peak: the problem's multiply-adds / the GPU's FMA rate;
//   * HBM: the bytes of the inputs and outputs / the bandwidth, when they do not fit in L2 together.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace ordo::bench {

struct PhysicalFloors {
  double fma_latency_cycles = 0;  // one dependent __fmaf_rn
  double clock_hz = 0;            // SM clock while the chain ran
  double fma_per_s = 0;           // every SM, independent chains
  double hbm_bytes_per_s = 0;     // a device-to-device copy, read + write bytes
  int l2_bytes = 0, sm_count = 0;
};

// About half a second: a one-thread chain, a full-GPU FMA kernel and a 1 GiB copy, each best of a few.
PhysicalFloors measure_physical_floors(cudaStream_t stream);

struct Floor {
  double ms = 0;
  const char* what = "";  // "chain latency", "FMA peak" or "HBM bandwidth"
};

// fmas multiply-adds in chains of chain_length steps, reading and writing `bytes` in all.
Floor strict_chain_floor(const PhysicalFloors& f, double fmas, std::int64_t chain_length, double bytes);

}  // namespace ordo::bench
