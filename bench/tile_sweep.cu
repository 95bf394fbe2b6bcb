// ordo_bench_tiles: every block tile of the FP32 variant sm80.fwd.f32.fma.simt.by-shape (--op fwd),
// sm80.bwd.dx.f32.fma.simt.by-shape (--op dx: dX [M,K] = G [M,N] W [N,K] of the forward shape M x N x K) or
// sm80.bwd.dw.f32.fma.simt.by-shape (--op dw: dW [N,K] = G^T X over the M tokens, in place and gathered) on
// each shape, against cublasSgemm (no TF32) in the same process, next to the physical floor of a strict
// chain measured on this GPU:
//   * FMA latency (cycles) and the SM clock: one thread's chain of dependent __fmaf_rn, timed in clock64
//     cycles and in events; a strict chain of K steps can take no less than K x latency / clock;
//   * FMA peak: every SM busy with independent chains (FMA/s); M N K FMAs take at least M N K / peak;
//   * HBM bandwidth: a device-to-device copy of 1 GiB (read + write bytes / s); a problem whose X, W and Y
//     do not fit in L2 moves at least their bytes once.
// The floor of a shape is the largest of the three; "of floor" = floor / time. Every tile's output must
// equal the table's first tile's bit for bit (the bits do not depend on the tile): a
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
#include "kernels/by_shape_cost.h"
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
      "usage: ordo_bench_tiles [--op fwd|dx|dw] [--shapes \"M,N,K;...\"] [--reps N] [--candidates] [--json PATH]\n"
      "Times every block tile of an FP32 by-shape variant on each shape of the forward Y [M,N] = X [M,K] W^T:\n"
      "  fwd  sm80.fwd.f32.fma.simt.by-shape (the default)\n"
      "  dx   sm80.bwd.dx.f32.fma.simt.by-shape: dX [M,K] = G [M,N] W [N,K]\n"
      "  dw   sm80.bwd.dw.f32.fma.simt.by-shape: dW [N,K] = G^T X over the M tokens, in place and gathered (a\n"
      "       fixed random order of the tokens), with db checked\n"
      "the tile its rule chooses and cublasSgemm (no TF32), with the measured floor of a strict FMA chain\n"
      "(latency, FMA peak, HBM), the fraction of it reached, and the tile cost model's prediction\n"
      "(kernels/by_shape_cost.h). Every tile's output must equal the table's first tile's bit for bit.\n"
      "--candidates also times the variant's candidate tiles (fwd and dx), which no rule runs yet; their rows\n"
      "are marked \"cand\".\n"
      "Exit codes: 0 ok, 1 error or a bit difference, 2 no GPU.\n",
      to);
}

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  std::string shapes_text, json_path, op = "fwd";
  int reps = 20;
  bool candidates = false;
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
      if (op != "fwd" && op != "dx" && op != "dw") die("--op: want fwd, dx or dw, not " + op);
    } else if (a == "--shapes") {
      shapes_text = value();
    } else if (a == "--reps") {
      reps = std::atoi(value().c_str());
      if (reps < 1 || reps > 1000) die("--reps: want 1..1000");
    } else if (a == "--candidates") {
      candidates = true;
    } else if (a == "--json") {
      json_path = value();
    } else {
      usage(stderr);
      die("unknown argument " + a);
    }
  }
  const bool dx = op == "dx", dw = op == "dw";
  if (candidates && dw) die("--candidates: the dW variant has no candidate tiles");
  if (shapes_text.empty())
    shapes_text = dw ? "64,32,5376;1024,32,5376;4096,32,5376;16384,32,5376;64,5376,32;1024,5376,32;4096,5376,32;"
                       "16384,5376,32;64,5376,5376;1024,5376,5376"
                     : "64,32,5376;1024,32,5376;4096,32,5376;16384,32,5376;64,5376,5376;1024,5376,5376";
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
  // The table's tiles, then (--candidates) the candidates: index t >= table_size is candidate t - table_size.
  std::vector<detail::ByShapeTile> tiles =
      dw ? detail::dw_by_shape_tiles() : dx ? detail::dx_by_shape_tiles() : detail::by_shape_tiles();
  const int table_size = static_cast<int>(tiles.size());
  if (candidates) {
    const auto& more = dx ? detail::dx_by_shape_candidate_tiles() : detail::by_shape_candidate_tiles();
    tiles.insert(tiles.end(), more.begin(), more.end());
  }
  std::string json = "{\"schema\":\"ordo.bench-tiles/1\",\"op\":\"" + op + "\",\"gpu\":\"" +
                     ordo::bench::json_escape(dev.name) + "\",\"sm\":" + std::to_string(dev.sm) +
                     ",\"floors\":{\"fma_latency_cycles\":" + std::to_string(f.fma_latency_cycles) +
                     ",\"clock_hz\":" + std::to_string(f.clock_hz) + ",\"fma_per_s\":" + std::to_string(f.fma_per_s) +
                     ",\"hbm_bytes_per_s\":" + std::to_string(f.hbm_bytes_per_s) + "},\"rows\":[";
  bool first_row = true, bits_ok = true;
  std::printf("op: %s\n", dw   ? "dW [N,K] = G^T X over M tokens (sm80.bwd.dw.f32.fma.simt.by-shape)"
                          : dx ? "dX [M,K] = G [M,N] W [N,K] (sm80.bwd.dx.f32.fma.simt.by-shape)"
                               : "Y [M,N] = X [M,K] W^T (sm80.fwd.f32.fma.simt.by-shape)");
  for (const Shape& s : shapes) {
    // fwd: a = X [M,K], out = Y [M,N]; dx: a = G [M,N], out = dX [M,K]; W [N,K] for both.
    // dw: a = G [M,N], w holds X [M,K], out = dW [N,K], db [N].
    const std::size_t na = static_cast<std::size_t>(s.M * (dx || dw ? s.N : s.K)),
                      nw = static_cast<std::size_t>(dw ? s.M * s.K : s.N * s.K),
                      ny = static_cast<std::size_t>(dw ? s.N * s.K : s.M * (dx ? s.K : s.N));
    // The output's rows and columns, and the reduction (the tiles' P, Q and R).
    const std::int64_t out_rows = dw ? s.N : s.M, out_cols = dw ? s.K : dx ? s.K : s.N, reduction = dw ? s.M : dx ? s.N : s.K;
    DeviceBuffer x(na * 4), w(nw * 4), yc(ny * 4), yk(ny * 4), yref(ny * 4), dbk(static_cast<std::size_t>(s.N) * 4),
        dbref(static_cast<std::size_t>(s.N) * 4), order(static_cast<std::size_t>(s.M) * 4);
    check_int(ordo::bench::fill_uniform(static_cast<float*>(x.get()), na, 1, stream), "fill");
    check_int(ordo::bench::fill_uniform(static_cast<float*>(w.get()), nw, 2, stream), "fill");
    if (dw) {
      // A fixed random order of the tokens (Fisher-Yates, SplitMix64) for the gathered rows.
      std::vector<int> perm(static_cast<std::size_t>(s.M));
      for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
      std::uint64_t z = 0x74696c6573000000ull ^ static_cast<std::uint64_t>(s.M);
      for (std::size_t i = perm.size(); i > 1; --i) {
        z += 0x9E3779B97F4A7C15ull;
        std::uint64_t q = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        q = (q ^ (q >> 27)) * 0x94D049BB133111EBull;
        std::swap(perm[i - 1], perm[static_cast<std::size_t>((q ^ (q >> 31)) % i)]);
      }
      check_cuda(cudaMemcpy(order.get(), perm.data(), perm.size() * 4, cudaMemcpyHostToDevice), "order");
    }
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
    detail::BackwardWeightLaunch r;
    r.g = static_cast<const float*>(x.get());
    r.x = static_cast<const float*>(w.get());
    r.R = p.M, r.N = p.N, r.K = p.K;
    r.stream = stream;
    // gathered: dW over the tokens in the fixed random order; db: with the bias gradient.
    const auto launch = [&](int t, void* out, bool gathered = false, float* db = nullptr) {
      if (dw) {
        r.dw = static_cast<float*>(out);
        r.rows = gathered ? static_cast<const int*>(order.get()) : nullptr;
        r.db = db;
        return detail::launch_bwd_dw_f32_by_shape_tile(r, t);
      }
      if (dx) {
        q.dx = static_cast<float*>(out);
        return t < table_size ? detail::launch_bwd_dx_f32_by_shape_tile(q, t)
                              : detail::launch_bwd_dx_f32_by_shape_candidate(q, t - table_size);
      }
      p.y = static_cast<float*>(out);
      return t < table_size ? detail::launch_fwd_f32_by_shape_tile(p, t)
                            : detail::launch_fwd_f32_by_shape_candidate(p, t - table_size);
    };
    const double cublas_ms = median_ms(
        [&] {
          if (dw)
            cublas.gemm_dw_f32(s, static_cast<const float*>(x.get()), static_cast<const float*>(w.get()),
                               static_cast<float*>(yc.get()));
          else if (dx)
            cublas.gemm_dx_f32(s, static_cast<const float*>(x.get()), static_cast<const float*>(w.get()),
                               static_cast<float*>(yc.get()));
          else
            cublas.gemm(ordo::DType::f32, ordo::DType::f32, s, x.get(), w.get(), yc.get());
        },
        reps, stream);
    const ordo::bench::Floor fl = ordo::bench::strict_chain_floor(
        f, static_cast<double>(s.M) * static_cast<double>(s.N) * static_cast<double>(s.K), reduction,
        4.0 * static_cast<double>(na + nw + ny));
    const int chosen = dw   ? detail::choose_dw_by_shape_tile(s.N, s.K, s.M, f.sm_count)
                       : dx ? detail::choose_dx_by_shape_tile(s.M, s.N, s.K, f.sm_count)
                            : detail::choose_by_shape_tile(s.M, s.N, s.K, f.sm_count);
    std::printf("\nM=%lld N=%lld K=%lld: cuBLAS %.4f ms; floor %.4f ms (%s)\n", static_cast<long long>(s.M),
                static_cast<long long>(s.N), static_cast<long long>(s.K), cublas_ms, fl.ms, fl.what);
    if (!dw) {
      // Where the variant splits the rows (docs/fp32-kernels.md), the rows below are still each tile over the
      // whole problem; the plan says which two the variant runs.
      const detail::ByShapePlan plan = dx ? detail::plan_dx_by_shape(s.M, s.N, s.K, f.sm_count)
                                          : detail::plan_by_shape(s.M, s.N, s.K, f.sm_count);
      if (plan.tail_tile >= 0)
        std::printf("the variant runs %s for rows [0, %lld) and %s for the rest (--fp32-split 0: one tile)\n",
                    tiles[static_cast<std::size_t>(plan.tile)].name, static_cast<long long>(plan.rows),
                    tiles[static_cast<std::size_t>(plan.tail_tile)].name);
    }
    std::printf("  %-30s %7s %10s %8s %9s %9s %6s%s\n", "tile", "blocks", "ms", "ratio", "of floor", "model ms", "bits",
                dw ? "  gathered ms  ratio  bits" : "");
    // The reference: tile 0, the table's first tile (for dW with db, in place and gathered).
    std::vector<float> ref(ny), got(ny), ref_g(ny), ref_db(static_cast<std::size_t>(s.N)), got_db(ref_db.size());
    check_cuda(launch(0, yref.get(), false, dw ? static_cast<float*>(dbref.get()) : nullptr), "reference tile");
    check_cuda(cudaStreamSynchronize(stream), "reference tile");
    check_cuda(cudaMemcpy(ref.data(), yref.get(), ny * 4, cudaMemcpyDeviceToHost), "copy");
    if (dw) {
      check_cuda(cudaMemcpy(ref_db.data(), dbref.get(), ref_db.size() * 4, cudaMemcpyDeviceToHost), "copy");
      check_cuda(launch(0, yref.get(), true), "reference tile (gathered)");
      check_cuda(cudaStreamSynchronize(stream), "reference tile (gathered)");  // a non-blocking stream: cudaMemcpy
                                                                               // does not wait for it
      check_cuda(cudaMemcpy(ref_g.data(), yref.get(), ny * 4, cudaMemcpyDeviceToHost), "copy");
    }
    // Runs tile t once into poisoned outputs and compares every bit with the reference's.
    const auto same_bits = [&](int t, bool gathered) {
      check_cuda(cudaMemsetAsync(yk.get(), 0xff, ny * 4, stream), "poison");
      check_cuda(cudaMemsetAsync(dbk.get(), 0xff, ref_db.size() * 4, stream), "poison");
      const bool with_db = dw && !gathered;
      check_cuda(launch(t, yk.get(), gathered, with_db ? static_cast<float*>(dbk.get()) : nullptr), "tile launch");
      check_cuda(cudaStreamSynchronize(stream), "tile run");
      check_cuda(cudaMemcpy(got.data(), yk.get(), ny * 4, cudaMemcpyDeviceToHost), "copy");
      bool same = std::memcmp((gathered ? ref_g : ref).data(), got.data(), ny * 4) == 0;
      if (with_db) {
        check_cuda(cudaMemcpy(got_db.data(), dbk.get(), got_db.size() * 4, cudaMemcpyDeviceToHost), "copy");
        same = same && std::memcmp(ref_db.data(), got_db.data(), ref_db.size() * 4) == 0;
      }
      return same;
    };
    for (int t = 0; t < static_cast<int>(tiles.size()); ++t) {
      const auto& tile = tiles[static_cast<std::size_t>(t)];
      const bool same = same_bits(t, false);
      bits_ok = bits_ok && same;
      const double ms = median_ms([&] { check_cuda(launch(t, yk.get()), "tile launch"); }, reps, stream);
      const detail::TileCost cost = detail::by_shape_tile_cost(tile, out_rows, out_cols, f.sm_count);
      const double model_ms = static_cast<double>(reduction) * cost.per_step / f.clock_hz * 1e3;
      std::printf("  %-30s %7lld %10.4f %8.3f %8.1f%% %9.4f %6s", tile.name, static_cast<long long>(cost.blocks), ms,
                  ms / cublas_ms, 100.0 * fl.ms / ms, model_ms, same ? "same" : "DIFFER");
      double gathered_ms = 0;
      bool gathered_same = true;
      if (dw) {
        gathered_same = same_bits(t, true);
        bits_ok = bits_ok && gathered_same;
        gathered_ms = median_ms([&] { check_cuda(launch(t, yk.get(), true), "tile launch"); }, reps, stream);
        std::printf("  %11.4f %6.3f %6s", gathered_ms, gathered_ms / cublas_ms, gathered_same ? "same" : "DIFFER");
      }
      std::printf("%s\n", t == chosen ? "  <- chosen" : t >= table_size ? "  cand" : "");
      json += std::string(first_row ? "" : ",") + "{\"M\":" + std::to_string(s.M) + ",\"N\":" + std::to_string(s.N) +
              ",\"K\":" + std::to_string(s.K) + ",\"tile\":\"" + tile.name +
              "\",\"chosen\":" + (t == chosen ? "true" : "false") +
              ",\"candidate\":" + (t >= table_size ? "true" : "false") + ",\"ms\":" + std::to_string(ms) +
              ",\"model_ms\":" + std::to_string(model_ms) + ",\"cublas_ms\":" + std::to_string(cublas_ms) +
              ",\"floor_ms\":" + std::to_string(fl.ms) + ",\"floor\":\"" + fl.what +
              "\",\"bits_equal_128x128\":" + (same ? "true" : "false") +
              (dw ? ",\"gathered_ms\":" + std::to_string(gathered_ms) +
                        ",\"gathered_bits_equal_128x128\":" + (gathered_same ? "true" : "false")
                  : std::string()) +
              "}";
      first_row = false;
    }
  }
  json += "]}\n";
  if (!json_path.empty()) {
    const std::string tmp = json_path + ".tmp";
    std::ofstream(tmp) << json;
    if (std::rename(tmp.c_str(), json_path.c_str()) != 0) die("cannot write " + json_path);
  }
  std::printf("\n%s\n", bits_ok ? "every tile's bits equal the first tile's" : "BIT DIFFERENCES (see DIFFER)");
  return bits_ok ? 0 : 1;
}
