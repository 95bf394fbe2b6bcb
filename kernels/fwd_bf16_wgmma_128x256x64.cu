// Variant "sm90.fwd.bf16.wgmma.128x256x64" of contract fwd.bf16.tc-fdpa-sm90/1: the Hopper BF16
// tensor-core forward GEMM. One block of three warpgroups computes a 128x256 output tile:
//   * warpgroup 0 is the producer: one thread streams 128x64 tiles of X and 256x64 tiles of W into a
//     4-stage shared-memory ring with TMA (128-byte swizzle), signalling "full" mbarriers;
//   * warpgroups 1 and 2 are consumers: each owns 64 rows x 256 columns and, per 64-wide k tile,
//     issues up to four wgmma.mma_async.m64n256k16 (k ascending), then releases the stage.
//
// The order (the contract): the FP32 accumulators start at +0 and are the C operand of every
// instruction (scale-d = 1), k ascending in steps of 16; TMA fills elements past M, N or K with +0,
// so the last step's missing products are zero products. A 64-wide k tile past K's last 16-wide step
// issues no instruction for it (ceil(K/16) steps in all, as the contract's chain has). The bias is
// added once after the chain with __fadd_rn; Y is FP32, or BF16 with one __float2bfloat16_rn.
//
// Needs K % 8 == 0 and 16-byte aligned X and W (TMA: row strides are multiples of 16 bytes); the
// variant declares both, and validation refuses other calls.
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cstring>
#include <mutex>
#include <string>

#include "kernels/forward_internal.h"
#include "kernels/probe_api.h"
#include "kernels/sm90/async_ops.cuh"
#include "kernels/sm90/wgmma_bf16.cuh"

namespace ordo::kernels {
namespace detail {
namespace {

constexpr int kBM = 128, kBN = 256, kBK = 64;
constexpr int kStages = 4;
constexpr int kConsumers = 2;  // warpgroups, 64 rows each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kStageBytes = (kBM + kBN) * kBK * 2;
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + barriers + alignment slack

struct KernelArgs {
  const float* bias;
  float* y;
  std::uint16_t* y_bf16;
  int M, N, K;
  unsigned tiles_m, tiles_n;
  bool paired_stores;  // N even and Y aligned to two elements: column pairs are stored as one access
  // Probe mode only: C [tiles][16][16] is the accumulators' start value and D [tiles][16][16] the result
  // for the 16x16 corner of block b's tile at (16b, 16b); scale_d_first is the first instruction's scale-d.
  const float* probe_c;
  float* probe_d;
  int scale_d_first;
};

template <bool kProbe>
__global__ void __launch_bounds__(kThreads, 1)
    fwd_bf16_wgmma_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                          const KernelArgs a) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using namespace sm90;
  extern __shared__ unsigned char smem_raw[];
  // 128-byte swizzled TMA tiles must start on a 1024-byte boundary.
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) &
                                                         ~std::uintptr_t{1023});
  auto* x_tiles = reinterpret_cast<std::uint16_t*>(smem);
  auto* w_tiles = x_tiles + kStages * kBM * kBK;
  auto* full = reinterpret_cast<std::uint64_t*>(w_tiles + kStages * kBN * kBK);
  auto* empty = full + kStages;

  int m0, n0;
  if constexpr (kProbe) {
    m0 = n0 = 16 * static_cast<int>(blockIdx.x);
  } else {
    constexpr unsigned kGroupM = 8;  // rasterisation: 8 tile rows share each W tile while it is in L2
    const unsigned per_group = kGroupM * a.tiles_n;
    const unsigned first_m = (blockIdx.x / per_group) * kGroupM;
    const unsigned rows = min(a.tiles_m - first_m, static_cast<unsigned>(kGroupM));
    const unsigned in_group = blockIdx.x % per_group;
    m0 = static_cast<int>(first_m + in_group % rows) * kBM;
    n0 = static_cast<int>(in_group / rows) * kBN;
  }
  const int k_tiles = (a.K + kBK - 1) / kBK;
  const int wg = static_cast<int>(threadIdx.x) / 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kConsumers * 128);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (wg == 0) {  // producer
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % kStages;
        if (kt >= kStages) mbarrier_wait(&empty[s], static_cast<std::uint32_t>((kt / kStages - 1) & 1));
        mbarrier_arrive_expect_tx(&full[s], kStageBytes);
        tma_load_2d(x_tiles + s * kBM * kBK, &map_x, &full[s], kt * kBK, m0);
        tma_load_2d(w_tiles + s * kBN * kBK, &map_w, &full[s], kt * kBK, n0);
      }
    }
    return;
  }

  const int c = wg - 1;  // consumer index: rows [64c, 64c + 64) of the tile
  const int warp = (static_cast<int>(threadIdx.x) % 128) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  float d[kBN / 2];
#pragma unroll
  for (int i = 0; i < kBN / 2; ++i) d[i] = 0.0f;  // +0: the contract's start value
  if constexpr (kProbe) {
    if (c == 0 && warp == 0) {
      const float* cb = a.probe_c + static_cast<size_t>(blockIdx.x) * 256;
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int v = 0; v < 4; ++v) d[4 * i + v] = cb[(lane / 4 + 8 * (v / 2)) * 16 + 8 * i + 2 * (lane % 4) + v % 2];
    }
  }

  // One wgmma group (one k tile) stays in flight while the next is issued: instructions on the same
  // accumulators execute in issue order (PTX ISA, wgmma.fence), so the chain order is unchanged; a
  // stage is released once the group that read it has completed.
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kStages;
    mbarrier_wait(&full[s], static_cast<std::uint32_t>((kt / kStages) & 1));
    const int steps = min(kBK / 16, (a.K - kt * kBK + 15) / 16);
    const std::uint64_t desc_x = smem_desc_k_major_sw128(x_tiles + s * kBM * kBK + c * 64 * kBK);
    const std::uint64_t desc_w = smem_desc_k_major_sw128(w_tiles + s * kBN * kBK);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) {
      if (kk < steps) {
        const int scale_d = (kProbe && kt == 0 && kk == 0) ? a.scale_d_first : 1;
        wgmma_m64n256k16_bf16(d, desc_x + 2 * kk, desc_w + 2 * kk, scale_d);  // +32 bytes per k step
      }
    }
    wgmma_commit_group();
    wgmma_wait_all_but_one();
    if (kt > 0) mbarrier_arrive(&empty[(kt - 1) % kStages]);
  }
  wgmma_wait_all();
#pragma unroll
  for (int i = 0; i < kBN / 2; ++i) fence_register(d[i]);

  if constexpr (kProbe) {
    if (c == 0 && warp == 0) {
      float* db = a.probe_d + static_cast<size_t>(blockIdx.x) * 256;
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int v = 0; v < 4; ++v) db[(lane / 4 + 8 * (v / 2)) * 16 + 8 * i + 2 * (lane % 4) + v % 2] = d[4 * i + v];
    }
    return;
  }

  // Each thread holds pairs of adjacent columns; they are stored as one 8-byte (f32) or 4-byte (bf16)
  // access where the pair is inside N and aligned (a.paired_stores), else element by element.
  const int row0 = m0 + c * 64 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBN / 8; ++i) {
    const int col = n0 + 8 * i + 2 * (lane % 4);
    if (col >= a.N) continue;
    const bool pair = a.paired_stores && col + 1 < a.N;
    const float b0 = a.bias != nullptr ? a.bias[col] : 0.0f;
    const float b1 = a.bias != nullptr && col + 1 < a.N ? a.bias[col + 1] : 0.0f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row >= a.M) continue;
      float v0 = d[4 * i + 2 * h], v1 = d[4 * i + 2 * h + 1];
      if (a.bias != nullptr) {
        v0 = __fadd_rn(v0, b0);
        v1 = __fadd_rn(v1, b1);
      }
      const size_t at = static_cast<size_t>(row) * a.N + col;
      if (a.y_bf16 != nullptr) {
        const std::uint16_t u0 = __bfloat16_as_ushort(__float2bfloat16_rn(v0));
        const std::uint16_t u1 = __bfloat16_as_ushort(__float2bfloat16_rn(v1));
        if (pair) {
          *reinterpret_cast<std::uint32_t*>(a.y_bf16 + at) = static_cast<std::uint32_t>(u0) | (std::uint32_t{u1} << 16);
        } else {
          a.y_bf16[at] = u0;
          if (col + 1 < a.N) a.y_bf16[at + 1] = u1;
        }
      } else if (pair) {
        *reinterpret_cast<float2*>(a.y + at) = make_float2(v0, v1);
      } else {
        a.y[at] = v0;
        if (col + 1 < a.N) a.y[at + 1] = v1;
      }
    }
  }
#else
  __trap();  // compiled only for sm_90a; validation never launches this variant elsewhere
#endif
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

// The driver's tensor-map encoder, fetched once through the runtime (no link against libcuda).
EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return static_cast<EncodeTiled>(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(p);
  }();
  return fn;
}

// A [rows, K] row-major bf16 matrix as TMA boxes of box_rows x 64, 128-byte swizzled, zero fill.
cudaError_t make_map(CUtensorMap* map, const std::uint16_t* base, int rows, int K, int box_rows) {
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(K) * 2};
  const cuuint32_t box[2] = {kBK, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<std::uint16_t*>(base), dims, strides,
                            box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

template <bool kProbe>
cudaError_t launch(const CUtensorMap& map_x, const CUtensorMap& map_w, const KernelArgs& args, unsigned blocks,
                   cudaStream_t stream) {
  static std::once_flag once;
  static cudaError_t attribute_error = cudaSuccess;
  std::call_once(once, [] {
    attribute_error = cudaFuncSetAttribute(fwd_bf16_wgmma_kernel<kProbe>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  });
  if (attribute_error != cudaSuccess) return attribute_error;
  fwd_bf16_wgmma_kernel<kProbe><<<blocks, kThreads, kSmemBytes, stream>>>(map_x, map_w, args);
  return cudaGetLastError();  // the launch's own error, and clears it
}

}  // namespace

cudaError_t launch_fwd_bf16_wgmma_128x256x64(const LaunchParams& p) {
  CUtensorMap map_x, map_w;
  cudaError_t e = make_map(&map_x, p.x_bf16, p.M, p.K, kBM);
  if (e == cudaSuccess) e = make_map(&map_w, p.w_bf16, p.N, p.K, kBN);
  if (e != cudaSuccess) return e;
  KernelArgs args{};
  args.bias = p.bias;
  args.y = p.y;
  args.y_bf16 = p.y_bf16;
  args.M = p.M;
  args.N = p.N;
  args.K = p.K;
  args.tiles_m = static_cast<unsigned>(ceil_div(p.M, kBM));
  args.tiles_n = static_cast<unsigned>(ceil_div(p.N, kBN));
  const std::uintptr_t y_address = p.y_bf16 != nullptr ? reinterpret_cast<std::uintptr_t>(p.y_bf16)
                                                       : reinterpret_cast<std::uintptr_t>(p.y);
  args.paired_stores = p.N % 2 == 0 && y_address % (p.y_bf16 != nullptr ? 4 : 8) == 0;
  args.scale_d_first = 1;
  return launch<false>(map_x, map_w, args, args.tiles_m * args.tiles_n, p.stream);
}

}  // namespace detail

namespace {

struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
};

Status cuda_status(cudaError_t e, const char* what) {
  return Status::error(StatusCode::launch_failed, std::string(what) + ": " + cudaGetErrorName(e) + ": " +
                                                      cudaGetErrorString(e));
}

}  // namespace

Status run_bf16_wgmma_tiles(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& bt,
                            const std::vector<float>& c, std::vector<float>& d, int tiles, bool accumulator_disabled) {
  const size_t n = static_cast<size_t>(tiles) * 256;
  if (tiles <= 0 || a.size() != n || bt.size() != n || c.size() != n)
    return Status::error(StatusCode::inconsistent_size, "probe tiles: every operand must hold tiles * 256 values");
  int device = 0, major = 0;
  cudaError_t e;
  if ((e = cudaGetDevice(&device)) || (e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device))) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, cudaGetErrorString(e));
  }
  int minor = 0;
  if ((e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device))) {
    (void)cudaGetLastError();
    return Status::error(StatusCode::no_device, cudaGetErrorString(e));
  }
  if (major * 10 + minor != 90)
    return Status::error(StatusCode::unsupported_device, "wgmma is an sm_90a instruction; this device is sm_" +
                                                             std::to_string(major * 10 + minor));
  DeviceBuffer da, db, dc, dd;
  if ((e = cudaMalloc(&da.p, n * 2)) || (e = cudaMalloc(&db.p, n * 2)) || (e = cudaMalloc(&dc.p, n * 4)) ||
      (e = cudaMalloc(&dd.p, n * 4)))
    return cuda_status(e, "cudaMalloc");
  if ((e = cudaMemcpy(da.p, a.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(db.p, bt.data(), n * 2, cudaMemcpyHostToDevice)) ||
      (e = cudaMemcpy(dc.p, c.data(), n * 4, cudaMemcpyHostToDevice)) || (e = cudaMemset(dd.p, 0xA5, n * 4)))
    return cuda_status(e, "cudaMemcpy");
  CUtensorMap map_a, map_b;
  const int rows = tiles * 16;
  if ((e = detail::make_map(&map_a, static_cast<const std::uint16_t*>(da.p), rows, 16, detail::kBM)) ||
      (e = detail::make_map(&map_b, static_cast<const std::uint16_t*>(db.p), rows, 16, detail::kBN)))
    return cuda_status(e, "cuTensorMapEncodeTiled");
  detail::KernelArgs args{};
  args.M = rows;
  args.N = rows;
  args.K = 16;
  args.probe_c = static_cast<const float*>(dc.p);
  args.probe_d = static_cast<float*>(dd.p);
  args.scale_d_first = accumulator_disabled ? 0 : 1;
  if ((e = detail::launch<true>(map_a, map_b, args, static_cast<unsigned>(tiles), nullptr)) ||
      (e = cudaDeviceSynchronize()))
    return cuda_status(e, "wgmma probe kernel");
  d.resize(n);
  if ((e = cudaMemcpy(d.data(), dd.p, n * 4, cudaMemcpyDeviceToHost))) return cuda_status(e, "cudaMemcpy");
  return Status::success();
}

}  // namespace ordo::kernels
