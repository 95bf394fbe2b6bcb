// ordo_bench_tiles: every block tile of the FP32 variant sm80.fwd.f32.fma.simt.by-shape (--op fwd) or
// sm80.bwd.dx.f32.fma.simt.by-shape (--op dx: dX [M,K] = G [M,N] W [N,K] of the forward shape M x N x K) on
// each shape, against cublasSgemm (no TF32) in the same process, next to the physical floor of a strict
// chain measured on this GPU:
//   * FMA latency (cycles) and the SM clock: one thread's chain of dependent __fmaf_rn, timed in clock64
//     cycles and in events; a strict chain of K steps can take no less than K x latency / clock;
//   * FMA peak: every SM busy with independent chains (FMA/s); M N K FMAs take at least M N K / peak;
//   * HBM bandwidth: a device-to-device copy of 1 GiB (read + write bytes / s); a problem whose X, W and Y
//     do not fit in L2 moves at least their bytes once.
// The floor of a shape is the largest of the three; "of floor" = floor / time. Every tile's output must
// equal the production 128x128 tile's (the table's first entry) bit for bit (the bits do not depend on the tile): a
// difference fails the run (exit 1). Timings: median of --reps launches after 3 warm-ups, CUDA events.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bench/bench_args.h"
#include "bench/bench_common.h"
#include "bench/bench_kernels.h"
#include "bench/cublas_reference.h"
#include "bench/physical_floors.h"
#include "core/large_allocations.h"
#include "kernels/backward_internal.h"
#include "kernels/forward_internal.h"

namespace {

using ordo::bench::check_cuda;
using ordo::bench::check_int;
using ordo::bench::DeviceBuffer;
using ordo::bench::die;
using ordo::bench::Shape;
namespace detail = ordo::kernels::detail;

using ordo::bench::PhysicalFloors;

double event_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms;
}

template <class Fn>
double median_ms(const Fn& launch, int reps, cudaStream_t stream) {
  cudaEvent_t e0, e1;
  check_cuda(cudaEventCreate(&e0), "event");
  check_cuda(cudaEventCreate(&e1), "event");
  for (int i = 0; i < 3; ++i) launch();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    check_int(ordo::bench::enqueue_spin(stream, 20000), "spin");  // hides the host side of the launch
    check_cuda(cudaEventRecord(e0, stream), "record");
    launch();
    check_cuda(cudaEventRecord(e1, stream), "record");
    check_cuda(cudaStreamSynchronize(stream), "timed launch");
    ms.push_back(event_ms(e0, e1));
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ordo::bench::median(ms);
}

void usage(std::FILE* to) {
  std::fputs(
      "usage: ordo_bench_tiles [--op fwd|dx] [--shapes \"M,N,K;...\"] [--reps N] [--json PATH]\n"
      "Times every block tile of sm80.fwd.f32.fma.simt.by-shape (--op fwd, the default) or of\n"
      "sm80.bwd.dx.f32.fma.simt.by-shape (--op dx: dX [M,K] = G [M,N] W [N,K] of the forward shape M x N x K),\n"
      "the tile its rule chooses and cublasSgemm (no TF32) on each shape, with the measured floor of a strict\n"
      "FMA chain (latency, FMA peak, HBM) and the fraction of it reached. Every tile's output must equal the\n"
      "128x128 production tile's bit for bit.\n"
      "Exit codes: 0 ok, 1 error or a bit difference, 2 no GPU.\n",
      to);
}

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  std::string shapes_text = "64,32,5376;1024,32,5376;4096,32,5376;16384,32,5376;64,5376,5376;1024,5376,5376";
  std::string json_path, op = "fwd";
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--op") {
      op = value();
      if (op != "fwd" && op != "dx") die("--op: want fwd or dx, not " + op);
    } else if (a == "--shapes") {
      shapes_text = value();
    } else if (a == "--reps") {
      reps = std::atoi(value().c_str());
      if (reps < 1 || reps > 1000) die("--reps: want 1..1000");
    } else if (a == "--json") {
      json_path = value();
    } else {
      usage(stderr);
      die("unknown argument " + a);
    }
  }
  const std::vector<Shape> shapes = ordo::bench::parse_shapes(shapes_text);
  const ordo::kernels::DeviceInfo dev = ordo::kernels::device_info(0);
  if (!dev.present) die("no usable CUDA device: " + dev.reason, ordo::bench::kExitNoGpu);
  cudaStream_t stream;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  const PhysicalFloors f = ordo::bench::measure_physical_floors(stream);
  std::printf("GPU: %s (sm_%d, %d SMs, L2 %d MiB)\n", dev.name.c_str(), dev.sm, f.sm_count, f.l2_bytes >> 20);
  std::printf("measured: FMA latency %.2f cycles at %.3f GHz; FMA peak %.2f TFLOP/s; HBM copy %.2f TB/s\n",
              f.fma_latency_cycles, f.clock_hz * 1e-9, 2 * f.fma_per_s * 1e-12, f.hbm_bytes_per_s * 1e-12);
  ordo::bench::CublasReference cublas(stream);
  const bool dx = op == "dx";
  const auto& tiles = dx ? detail::dx_by_shape_tiles() : detail::by_shape_tiles();
  std::string json = "{\"schema\":\"ordo.bench-tiles/1\",\"op\":\"" + op + "\",\"gpu\":\"" +
                     ordo::bench::json_escape(dev.name) + "\",\"sm\":" + std::to_string(dev.sm) +
                     ",\"floors\":{\"fma_latency_cycles\":" + std::to_string(f.fma_latency_cycles) +
                     ",\"clock_hz\":" + std::to_string(f.clock_hz) + ",\"fma_per_s\":" + std::to_string(f.fma_per_s) +
                     ",\"hbm_bytes_per_s\":" + std::to_string(f.hbm_bytes_per_s) + "},\"rows\":[";
  bool first_row = true, bits_ok = true;
  std::printf("op: %s\n", dx ? "dX [M,K] = G [M,N] W [N,K] (sm80.bwd.dx.f32.fma.simt.by-shape)"
                             : "Y [M,N] = X [M,K] W^T (sm80.fwd.f32.fma.simt.by-shape)");
  for (const Shape& s : shapes) {
    // fwd: a = X [M,K], out = Y [M,N]; dx: a = G [M,N], out = dX [M,K]; W [N,K] for both.
    const std::size_t na = static_cast<std::size_t>(s.M * (dx ? s.N : s.K)), nw = static_cast<std::size_t>(s.N * s.K),
                      ny = static_cast<std::size_t>(s.M * (dx ? s.K : s.N));
    DeviceBuffer x(na * 4), w(nw * 4), yc(ny * 4), yk(ny * 4), yref(ny * 4);
    check_int(ordo::bench::fill_uniform(static_cast<float*>(x.get()), na, 1, stream), "fill");
    check_int(ordo::bench::fill_uniform(static_cast<float*>(w.get()), nw, 2, stream), "fill");
    detail::LaunchParams p;
    p.x = static_cast<const float*>(x.get());
    p.w = static_cast<const float*>(w.get());
    p.M = static_cast<int>(s.M), p.N = static_cast<int>(s.N), p.K = static_cast<int>(s.K);
    p.stream = stream;
    detail::BackwardDataLaunch q;
    q.g = static_cast<const float*>(x.get());
    q.w = static_cast<const float*>(w.get());
    q.M = p.M, q.N = p.N, q.K = p.K;
    q.stream = stream;
    const auto launch = [&](int t, void* out) {
      if (dx) {
        q.dx = static_cast<float*>(out);
        return detail::launch_bwd_dx_f32_by_shape_tile(q, t);
      }
      p.y = static_cast<float*>(out);
      return detail::launch_fwd_f32_by_shape_tile(p, t);
    };
    check_cuda(launch(0, yref.get()), "reference tile");  // tile 0: the production 128x128 tile
    check_cuda(cudaStreamSynchronize(stream), "reference tile");
    const double cublas_ms = median_ms(
        [&] {
          if (dx)
            cublas.gemm_dx_f32(s, static_cast<const float*>(x.get()), static_cast<const float*>(w.get()),
                               static_cast<float*>(yc.get()));
          else
            cublas.gemm(ordo::DType::f32, ordo::DType::f32, s, x.get(), w.get(), yc.get());
        },
        reps, stream);
    // dX's chains run over N: its latency floor is N steps.
    const ordo::bench::Floor fl = ordo::bench::strict_chain_floor(
        f, static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K), dx ? s.N : s.K,
        4.0 * static_cast<double>(na + nw + ny));
    const int chosen = dx ? detail::choose_dx_by_shape_tile(s.M, s.N, s.K, f.sm_count)
                          : detail::choose_by_shape_tile(s.M, s.N, s.K, f.sm_count);
    std::printf("\nM=%lld N=%lld K=%lld: cuBLAS %.4f ms; floor %.4f ms (%s)\n", static_cast<long long>(s.M),
                static_cast<long long>(s.N), static_cast<long long>(s.K), cublas_ms, fl.ms, fl.what);
    std::printf("  %-26s %7s %10s %8s %9s %6s\n", "tile", "blocks", "ms", "ratio", "of floor", "bits");
    std::vector<float> ref(ny), got(ny);
    check_cuda(cudaMemcpy(ref.data(), yref.get(), ny * 4, cudaMemcpyDeviceToHost), "copy");
    const long long out_cols = dx ? s.K : s.N;
    for (int t = 0; t < static_cast<int>(tiles.size()); ++t) {
      const auto& tile = tiles[static_cast<std::size_t>(t)];
      check_cuda(cudaMemsetAsync(yk.get(), 0xff, ny * 4, stream), "poison");
      check_cuda(launch(t, yk.get()), "tile launch");
      check_cuda(cudaStreamSynchronize(stream), "tile run");
      check_cuda(cudaMemcpy(got.data(), yk.get(), ny * 4, cudaMemcpyDeviceToHost), "copy");
      const bool same = std::memcmp(ref.data(), got.data(), ny * 4) == 0;
      bits_ok = bits_ok && same;
      const double ms = median_ms([&] { check_cuda(launch(t, yk.get()), "tile launch"); }, reps, stream);
      const long long blocks = ((s.M + tile.bm - 1) / tile.bm) * ((out_cols + tile.bn - 1) / tile.bn);
      std::printf("  %-26s %7lld %10.4f %8.3f %8.1f%% %6s%s\n", tile.name, blocks, ms, ms / cublas_ms,
                  100.0 * fl.ms / ms, same ? "same" : "DIFFER", t == chosen ? "  <- chosen" : "");
      json += std::string(first_row ? "" : ",") + "{\"M\":" + std::to_string(s.M) + ",\"N\":" + std::to_string(s.N) +
              ",\"K\":" + std::to_string(s.K) + ",\"tile\":\"" + tile.name +
              "\",\"chosen\":" + (t == chosen ? "true" : "false") + ",\"ms\":" + std::to_string(ms) +
              ",\"cublas_ms\":" + std::to_string(cublas_ms) + ",\"floor_ms\":" + std::to_string(fl.ms) +
              ",\"floor\":\"" + fl.what + "\",\"bits_equal_128x128\":" + (same ? "true" : "false") + "}";
      first_row = false;
    }
  }
  json += "]}\n";
  if (!json_path.empty()) {
    const std::string tmp = json_path + ".tmp";
    std::ofstream(tmp) << json;
    if (std::rename(tmp.c_str(), json_path.c_str()) != 0) die("cannot write " + json_path);
  }
  std::printf("\n%s\n", bits_ok ? "every tile's bits equal the 128x128 tile's" : "BIT DIFFERENCES (see DIFFER)");
  return bits_ok ? 0 : 1;
}
