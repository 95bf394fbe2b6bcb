// ordo_kernels_host_emulation: runs the kernel sources of ordo_kernels on CPU threads (through the
// cuda_runtime.h shim beside this file) and checks every output's bits against the contract's chain
// acc = +0; for k ascending: acc = fma(x, w, acc); y = bias ? acc + b : acc (GPU NaN canonicalised),
// for shapes with partial tiles, K tails, the float4 and the scalar load paths (via 4-byte offsets),
// signed-zero, Inf and NaN families; and checks that nothing outside y is written and that each
// mutant is caught. No GPU needed. Exit code 0 = all ok.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// The kernel sources themselves, compiled as C++ against the shim.
#include "kernels/backward_internal.h"
#include "kernels/fwd_f32_simt_128x128x16.cu"
#include "kernels/fwd_f32_simt_naive16x16.cu"
#include "kernels/mutants/fwd_f32_mutants.cu"
// kernels/bwd_f32_simt_narrow.cu is its own translation unit (narrow_tile.cpp): its tile constants share
// names with the 128x128 tile's.

namespace {

using ordo::kernels::detail::LaunchFn;
using ordo::kernels::detail::LaunchParams;

std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float contract_chain(const LaunchParams& p, int m, int n) {
  float acc = 0.0f;
  for (int k = 0; k < p.K; ++k)
    acc = emu_gpu_nan(std::fma(p.x[static_cast<size_t>(m) * p.K + k], p.w[static_cast<size_t>(n) * p.K + k], acc));
  return p.bias ? emu_gpu_nan(acc + p.bias[n]) : acc;
}

enum class Family { uniform, tiny_signed_zero, with_inf, with_nan };
const char* family_name(Family f) {
  switch (f) {
    case Family::uniform:
      return "uniform";
    case Family::tiny_signed_zero:
      return "tiny(-0)";
    case Family::with_inf:
      return "inf";
    case Family::with_nan:
      return "nan";
  }
  return "?";
}

int failures = 0;

// Element i of an operand (W when is_w) of family fam; draws from u only where the family does, so the
// sequence of values is the one every check has used.
float family_value(Family fam, std::size_t i, bool is_w, std::uniform_real_distribution<float>& u, std::mt19937& rng) {
  switch (fam) {
    case Family::tiny_signed_zero:
      return is_w ? 1e-30f : (i % 2 ? -1e-30f : 1e-30f);  // products underflow
    case Family::with_inf:
      return i % 17 == 3 ? INFINITY : u(rng);
    case Family::with_nan:
      return i % 23 == 5 ? NAN : u(rng);
    case Family::uniform:
      break;
  }
  return u(rng);
}

// dX = G W of a dX launcher against the contract's chain dx[m,k] = fma over n ascending from +0, on the
// shapes and families of check(); nothing outside dx may be written.
void check_dx(const char* name, ordo::kernels::detail::BackwardDataLaunchFn launch, int M, int N, int K, int offset,
              Family fam) {
  std::mt19937 rng(static_cast<unsigned>(M * 131 + N * 7 + K));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto value = [&](std::size_t i, bool is_w) { return family_value(fam, i, is_w, u, rng); };
  const float sentinel = 12345.0f;
  std::vector<float> gs(static_cast<size_t>(M) * N + 8), ws(static_cast<size_t>(N) * K + 8),
      ds(static_cast<size_t>(M) * K + 8, sentinel);
  for (std::size_t i = 0; i < gs.size(); ++i) gs[i] = value(i, false);
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = value(i, true);
  ordo::kernels::detail::BackwardDataLaunch p;
  p.g = gs.data() + offset;
  p.w = ws.data() + offset;
  p.dx = ds.data() + offset;
  p.M = M;
  p.N = N;
  p.K = K;
  launch(p);
  long differ = 0, outside = 0;
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) {
      float acc = 0.0f;
      for (int n = 0; n < N; ++n)
        acc = emu_gpu_nan(std::fma(p.g[static_cast<size_t>(m) * N + n], p.w[static_cast<size_t>(n) * K + k], acc));
      const float got = p.dx[static_cast<size_t>(m) * K + k];
      if (bits(acc) != bits(got)) {
        if (differ < 3) std::printf("    %s m=%d k=%d: contract %08x, kernel %08x\n", name, m, k, bits(acc), bits(got));
        ++differ;
      }
    }
  for (int i = 0; i < offset; ++i) outside += ds[static_cast<size_t>(i)] != sentinel;
  for (std::size_t i = static_cast<size_t>(M) * K + offset; i < ds.size(); ++i) outside += ds[i] != sentinel;
  const bool ok = outside == 0 && differ == 0;
  failures += !ok;
  std::printf("%-6s %-28s M=%4d N=%4d K=%4d dX     %s %-9s %ld/%ld differ, %ld outside dx\n", ok ? "ok" : "FAIL", name,
              M, N, K, offset ? "scalar" : "vec4  ", family_name(fam), differ, static_cast<long>(M) * K, outside);
}

// dW [N,K] = G^T X and db [N] of a dW launcher over R of T token rows against the contract's chains:
// acc = +0 (or the output's value with accumulate); for r ascending: acc = fma(G[row(r), n], X[row(r), k], acc),
// db likewise with additions; row(r) = rows[r] when gathered (a permutation of T - 2 of the rows), else r.
// Nothing outside dW and db may be written.
struct DwCase {
  int N, K, T;
  bool gather, accumulate, db;
  int offset;  // 1: 4-byte aligned operands only (the scalar copy path)
};
void check_dw(const char* name, ordo::kernels::detail::BackwardWeightLaunchFn launch, const DwCase& c, Family fam) {
  std::mt19937 rng(static_cast<unsigned>(c.N * 131 + c.K * 7 + c.T * 3 + c.gather));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto value = [&](std::size_t i, bool is_x) { return family_value(fam, i, is_x, u, rng); };
  const float sentinel = 12345.0f;
  const std::size_t n_dw = static_cast<std::size_t>(c.N) * c.K;
  std::vector<float> gs(static_cast<std::size_t>(c.T) * c.N + 8), xs(static_cast<std::size_t>(c.T) * c.K + 8),
      dws(n_dw + 8, sentinel), dbs(static_cast<std::size_t>(c.N) + 8, sentinel);
  for (std::size_t i = 0; i < gs.size(); ++i) gs[i] = value(i, false);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = value(i, true);
  std::vector<int> rows;
  if (c.gather) {
    for (int t = 0; t < c.T; ++t) rows.push_back(t);
    std::shuffle(rows.begin(), rows.end(), rng);
    rows.resize(static_cast<std::size_t>(std::max(0, c.T - 2)));
  }
  const int R = c.gather ? static_cast<int>(rows.size()) : c.T;
  float* dw = dws.data() + c.offset;
  float* db = dbs.data() + c.offset;
  if (c.accumulate) {
    for (std::size_t i = 0; i < n_dw; ++i) dw[i] = u(rng);
    if (c.db)
      for (int n = 0; n < c.N; ++n) db[n] = u(rng);
  }
  const std::vector<float> dw0(dw, dw + n_dw), db0(db, db + c.N);
  ordo::kernels::detail::BackwardWeightLaunch p;
  p.g = gs.data() + c.offset;
  p.x = xs.data() + c.offset;
  p.rows = c.gather ? rows.data() : nullptr;
  p.R = R;
  p.dw = dw;
  p.db = c.db ? db : nullptr;
  p.N = c.N;
  p.K = c.K;
  p.accumulate = c.accumulate;
  launch(p);
  const auto row = [&](int r) { return static_cast<std::size_t>(c.gather ? rows[static_cast<std::size_t>(r)] : r); };
  long differ = 0, outside = 0;
  for (int n = 0; n < c.N; ++n) {
    for (int k = 0; k < c.K; ++k) {
      float acc = c.accumulate ? dw0[static_cast<std::size_t>(n) * c.K + k] : 0.0f;
      for (int r = 0; r < R; ++r) acc = emu_gpu_nan(std::fma(p.g[row(r) * c.N + n], p.x[row(r) * c.K + k], acc));
      const float got = dw[static_cast<std::size_t>(n) * c.K + k];
      if (bits(acc) != bits(got)) {
        if (differ < 3) std::printf("    %s n=%d k=%d: contract %08x, kernel %08x\n", name, n, k, bits(acc), bits(got));
        ++differ;
      }
    }
    if (c.db) {
      float acc = c.accumulate ? db0[static_cast<std::size_t>(n)] : 0.0f;
      for (int r = 0; r < R; ++r) acc = emu_gpu_nan(acc + p.g[row(r) * c.N + n]);
      if (bits(acc) != bits(db[n])) {
        if (differ < 3) std::printf("    %s db n=%d: contract %08x, kernel %08x\n", name, n, bits(acc), bits(db[n]));
        ++differ;
      }
    }
  }
  const auto count_outside = [&](const std::vector<float>& v, std::size_t used) {
    for (int i = 0; i < c.offset; ++i) outside += v[static_cast<std::size_t>(i)] != sentinel;
    for (std::size_t i = used + static_cast<std::size_t>(c.offset); i < v.size(); ++i) outside += v[i] != sentinel;
  };
  count_outside(dws, n_dw);
  count_outside(dbs, c.db ? static_cast<std::size_t>(c.N) : 0);
  const bool ok = outside == 0 && differ == 0;
  failures += !ok;
  std::printf("%-6s %-30s N=%4d K=%4d T=%4d dW%s%s%s %s %-9s %ld/%ld differ, %ld outside\n", ok ? "ok" : "FAIL", name,
              c.N, c.K, c.T, c.gather ? " gathered" : "", c.accumulate ? " accumulate" : "", c.db ? " db" : "",
              c.offset ? "scalar" : "vec4  ", family_name(fam), differ, static_cast<long>(n_dw), outside);
}

int g_dw_tile = 0;
cudaError_t launch_one_dw_tile(const ordo::kernels::detail::BackwardWeightLaunch& p) {
  return ordo::kernels::detail::launch_bwd_dw_f32_by_shape_tile(p, g_dw_tile);
}

int g_dx_tile = 0;
cudaError_t launch_one_dx_tile(const ordo::kernels::detail::BackwardDataLaunch& p) {
  return ordo::kernels::detail::launch_bwd_dx_f32_by_shape_tile(p, g_dx_tile);
}

// One tile of the by-shape variant, whatever its rule would choose (check() takes a plain function).
int g_by_shape_tile = 0;
cudaError_t launch_one_by_shape_tile(const LaunchParams& p) {
  return ordo::kernels::detail::launch_fwd_f32_by_shape_tile(p, g_by_shape_tile);
}

// expect_equal = false: the variant is a mutant and at least one output must differ.
void check(const char* name, LaunchFn launch, int M, int N, int K, bool bias, int offset, Family fam,
           bool expect_equal = true) {
  std::mt19937 rng(static_cast<unsigned>(M * 131 + N * 7 + K));
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  auto value = [&](std::size_t i, bool is_w) { return family_value(fam, i, is_w, u, rng); };
  const float sentinel = 12345.0f;
  std::vector<float> xs(static_cast<size_t>(M) * K + 8), ws(static_cast<size_t>(N) * K + 8), bs(static_cast<size_t>(N)),
      ys(static_cast<size_t>(M) * N + 8, sentinel);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = value(i, false);
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = value(i, true);
  for (auto& v : bs) v = fam == Family::tiny_signed_zero ? 0.0f : u(rng);
  LaunchParams p;
  p.x = xs.data() + offset;  // offset 1 = 4-byte aligned only: the scalar load and store paths
  p.w = ws.data() + offset;
  p.bias = bias ? bs.data() : nullptr;
  p.y = ys.data() + offset;
  p.M = M;
  p.N = N;
  p.K = K;
  launch(p);
  long differ = 0, neg_zero = 0, outside = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const float want = contract_chain(p, m, n), got = p.y[static_cast<size_t>(m) * N + n];
      neg_zero += bits(want) == 0x80000000u;
      if (bits(want) != bits(got)) {
        if (expect_equal && differ < 3)
          std::printf("    %s m=%d n=%d: contract %08x, kernel %08x\n", name, m, n, bits(want), bits(got));
        ++differ;
      }
    }
  for (int i = 0; i < offset; ++i) outside += ys[static_cast<size_t>(i)] != sentinel;
  for (std::size_t i = static_cast<size_t>(M) * N + offset; i < ys.size(); ++i) outside += ys[i] != sentinel;
  const bool ok = outside == 0 && (expect_equal ? differ == 0 : differ > 0);
  failures += !ok;
  std::printf("%-6s %-28s M=%4d N=%4d K=%4d bias=%d %s %-9s %ld/%ld differ, %ld -0 outputs, %ld outside y\n",
              ok ? "ok" : "FAIL", name, M, N, K, bias, offset ? "scalar" : "vec4  ", family_name(fam), differ,
              static_cast<long>(M) * N, neg_zero, outside);
}

}  // namespace

int main() {
  using namespace ordo::kernels::detail;
  struct Shape {
    int M, N, K;
  };
  const Shape shapes[] = {{1, 1, 1}, {130, 129, 37}, {128, 128, 16}, {5, 200, 64}, {257, 3, 33}, {64, 64, 100}};
  for (const Shape s : shapes)
    for (int bias = 0; bias < 2; ++bias)
      for (int offset = 0; offset < 2; ++offset) {
        check("sm80.fwd.f32.fma.simt.128x128x16", launch_fwd_f32_simt_128x128x16, s.M, s.N, s.K, bias, offset,
              Family::uniform);
        check("sm80.fwd.f32.fma.simt.naive16x16", launch_fwd_f32_simt_naive16x16, s.M, s.N, s.K, bias, offset,
              Family::uniform);
        check("sm80.fwd.f32.fma.simt.narrow.16x32x32", launch_fwd_f32_simt_narrow, s.M, s.N, s.K, bias, offset,
              Family::uniform);
      }
  // The narrow tile's own edges: N around its 32 columns, K around its 32-step slabs and the two-slab
  // register prefetch (1, 2, 3, 4 and 5 slabs), M around its 16 rows.
  for (const Shape s : {Shape{17, 32, 5376}, Shape{16, 33, 96}, Shape{31, 31, 65}, Shape{1, 64, 160}, Shape{40, 7, 31}})
    for (int offset = 0; offset < 2; ++offset)
      check("sm80.fwd.f32.fma.simt.narrow.16x32x32", launch_fwd_f32_simt_narrow, s.M, s.N, s.K, true, offset,
            Family::uniform);
  for (Family fam : {Family::tiny_signed_zero, Family::with_inf, Family::with_nan})
    for (int K : {1, 4, 5, 16, 20})
      for (int offset = 0; offset < 2; ++offset) {
        check("sm80.fwd.f32.fma.simt.128x128x16", launch_fwd_f32_simt_128x128x16, 3, 5, K, false, offset, fam);
        check("sm80.fwd.f32.fma.simt.narrow.16x32x32", launch_fwd_f32_simt_narrow, 3, 5, K, false, offset, fam);
      }
  // Every tile of the by-shape variant: partial tiles in M and N, K tails inside a slab and across the ring
  // (1 to 7 slabs of 8-32 steps), both copy paths, the zero-sign, Inf and NaN families.
  const auto& tiles = by_shape_tiles();
  for (int t = 0; t < static_cast<int>(tiles.size()); ++t) {
    g_by_shape_tile = t;
    const std::string name = std::string("by-shape ") + tiles[static_cast<std::size_t>(t)].name;
    // 3 BK + 5 steps: full slabs back to back (the registers read ahead cross from one into the next), then
    // a partial one.
    const auto& tile = tiles[static_cast<std::size_t>(t)];
    for (const Shape s : {Shape{1, 1, 1}, Shape{tile.bm + 3, tile.bn + 1, 37}, Shape{5, 33, 200}, Shape{9, 17, 4},
                          Shape{6, 9, 3 * tile.bk + 5}})
      for (int offset = 0; offset < 2; ++offset)
        check(name.c_str(), launch_one_by_shape_tile, s.M, s.N, s.K, true, offset, Family::uniform);
    for (Family fam : {Family::tiny_signed_zero, Family::with_inf, Family::with_nan})
      for (int K : {1, 3, 5, 7, 20, 39, 71})  // last slabs of 1-7 steps, both copy paths
        check(name.c_str(), launch_one_by_shape_tile, 3, 5, K, false, K % 2, fam);
  }
  // Every tile of the by-shape dX variant (W read output-contiguous), the same edges; N is the reduction.
  const auto& dx_tiles = dx_by_shape_tiles();
  for (int t = 0; t < static_cast<int>(dx_tiles.size()); ++t) {
    g_dx_tile = t;
    const auto& tile = dx_tiles[static_cast<std::size_t>(t)];
    const std::string name = std::string("dx by-shape ") + tile.name;
    for (const Shape s : {Shape{1, 1, 1}, Shape{tile.bm + 3, 37, tile.bn + 1}, Shape{5, 200, 36}, Shape{9, 4, 17},
                          Shape{6, 3 * tile.bk + 5, 12}})
      for (int offset = 0; offset < 2; ++offset)
        check_dx(name.c_str(), launch_one_dx_tile, s.M, s.N, s.K, offset, Family::uniform);
    for (Family fam : {Family::tiny_signed_zero, Family::with_inf, Family::with_nan})
      for (int N : {1, 3, 5, 7, 20, 39, 71})  // last slabs of 1-7 steps, both copy paths
        check_dx(name.c_str(), launch_one_dx_tile, 3, N, 8, N % 2, fam);
  }
  // Every tile of the by-shape dW variant: partial tiles in N and K, token tails inside a slab and across the
  // ring, in place and gathered, accumulate and db, both copy paths, the zero-sign, Inf and NaN families. The
  // two 128x128 tiles (entries 0 and 1) launch their db chains through one kernel of their own
  // (launch_bwd_db_f32), by the untyped cudaLaunchKernel, which the shim does not take: they run here without db
  // (that db runs in every GPU test of the variant).
  const auto& dw_tiles = dw_by_shape_tiles();
  for (int t = 0; t < static_cast<int>(dw_tiles.size()); ++t) {
    g_dw_tile = t;
    const auto& tile = dw_tiles[static_cast<std::size_t>(t)];
    const std::string name = std::string("dw by-shape ") + tile.name;
    const bool db = tile.bm != 128;
    for (const DwCase& c : {DwCase{1, 1, 1, false, false, db, 0}, DwCase{tile.bm + 4, tile.bn + 4, 37, false, false, db, 0},
                            DwCase{tile.bm + 3, tile.bn + 1, 37, true, true, db, 1}, DwCase{36, 20, 3 * tile.bk + 5, true, false, db, 0},
                            DwCase{8, 12, 3 * tile.bk + 5, false, true, db, 0}, DwCase{5, 33, 2 * tile.bk, true, true, db, 1},
                            DwCase{12, 8, 0, false, true, db, 0}})
      check_dw(name.c_str(), launch_one_dw_tile, c, Family::uniform);
    for (Family fam : {Family::tiny_signed_zero, Family::with_inf, Family::with_nan})
      for (int T : {1, 3, 5, 7, 20, 39, 71})  // last slabs of 1-7 steps, both copy paths
        check_dw(name.c_str(), launch_one_dw_tile, DwCase{4, 8, T, T % 3 == 0, T % 5 == 0, db, T % 2}, fam);
  }
  check_dw("sm80.bwd.dw.f32.fma.simt.by-shape", launch_bwd_dw_f32_simt_by_shape, DwCase{32, 200, 70, true, false, true, 0},
           Family::uniform);
  check_dw("sm80.bwd.dw.f32.fma.simt.by-shape", launch_bwd_dw_f32_simt_by_shape, DwCase{200, 32, 33, false, true, true, 0},
           Family::uniform);
  check_dx("sm80.bwd.dx.f32.fma.simt.by-shape", launch_bwd_dx_f32_simt_by_shape, 130, 37, 129, 0, Family::uniform);
  check_dx("sm80.bwd.dx.f32.fma.simt.by-shape", launch_bwd_dx_f32_simt_by_shape, 2, 70, 3, 1, Family::uniform);
  // The rule itself, at both ends of its table: a large problem (the 128x128 tile) and a tiny one.
  check("sm80.fwd.f32.fma.simt.by-shape", launch_fwd_f32_simt_by_shape, 130, 129, 37, true, 0, Family::uniform);
  check("sm80.fwd.f32.fma.simt.by-shape", launch_fwd_f32_simt_by_shape, 2, 3, 70, true, 1, Family::uniform);
  // The rule on the seed's shapes with the H200's 132 SMs picks the tiles measured best or near it
  // (evidence/h200-ec46e69-by-shape-tiles/, h200-7fbabab-fp32-tiles/, h200-c157493-fp32-latency-tiles/): a change of the table or the
  // rule shows here.
  struct Pick {
    int M, N;
    const char* tile;
  };
  for (const Pick& k :
       {Pick{64, 32, "4x8x256.t1x1.s3.ws.r4"}, Pick{1024, 32, "8x32x64.t2x1.s4.w4x8"}, Pick{4096, 32, "32x32x32.t4x2.s4"},
        Pick{16384, 32, "32x32x32.t4x4.s4"}, Pick{64, 5376, "32x32x32.t4x2.s4"},
        Pick{1024, 5376, "128x128x16 (production)"}, Pick{4096, 5376, "128x128x16 (production)"},
        Pick{16384, 5376, "128x128x8.t8x16.s3.outer"}}) {
    const std::string got = by_shape_tiles()[static_cast<std::size_t>(choose_by_shape_tile(k.M, k.N, 5376, 132))].name;
    const bool ok = got == k.tile;
    failures += !ok;
    std::printf("%-6s by-shape rule M=%d N=%d on 132 SMs: %s (want %s)\n", ok ? "ok" : "FAIL", k.M, k.N, got.c_str(),
                k.tile);
  }
  // dX [M, K] of the same shapes: K plays the forward's N (dX [M, 32] reduces over N = 5376).
  for (const Pick& k : {Pick{64, 32, "4x16x128.t1x1.s4"}, Pick{1024, 32, "8x32x64.t2x1.s4.w4x8.r"},
                        Pick{4096, 32, "32x32x32.t4x2.s4"}, Pick{16384, 32, "32x32x32.t4x4.s4"},
                        Pick{1024, 5376, "128x128x16 (production)"}, Pick{4096, 5376, "128x128x8.t8x16.s3.outer"},
                        Pick{16384, 5376, "128x128x8.t8x16.s3.outer"}}) {
    const std::string got =
        dx_by_shape_tiles()[static_cast<std::size_t>(choose_dx_by_shape_tile(k.M, 5376, k.N, 132))].name;
    const bool ok = got == k.tile;
    failures += !ok;
    std::printf("%-6s dX by-shape rule M=%d K=%d on 132 SMs: %s (want %s)\n", ok ? "ok" : "FAIL", k.M, k.N, got.c_str(),
                k.tile);
  }
  // The rows past a 128x128 tile's whole waves (plan_by_shape, plan_dx_by_shape) on the seed's square shapes.
  struct Split {
    int M;
    const char *tile, *tail;
    int rows;
  };
  const auto plan_ok = [&](const char* what, const std::vector<ByShapeTile>& table, const ByShapePlan& got,
                           const Split& k) {
    const std::string tail = got.tail_tile < 0 ? "-" : table[static_cast<std::size_t>(got.tail_tile)].name;
    const bool ok = table[static_cast<std::size_t>(got.tile)].name == std::string(k.tile) && tail == k.tail &&
                    got.rows == k.rows;
    failures += !ok;
    std::printf("%-6s %s plan M=%d x 5376 on 132 SMs: %s for %lld rows, then %s (want %s, %d, %s)\n",
                ok ? "ok" : "FAIL", what, k.M, table[static_cast<std::size_t>(got.tile)].name,
                static_cast<long long>(got.rows), tail.c_str(), k.tile, k.rows, k.tail);
  };
  for (const Split& k : {Split{1024, "128x128x8.t8x16.s3.outer", "64x64x16.t4x4.s4", 768},
                         Split{2048, "128x128x16 (production)", "-", 2048},
                         Split{4096, "128x128x8.t8x16.s3.outer", "32x32x32.t4x4.s4", 3968},
                         Split{16384, "128x128x8.t8x16.s3.outer", "128x128x16 (production)", 16000}})
    plan_ok("forward", by_shape_tiles(), plan_by_shape(k.M, 5376, 5376, 132), k);
  for (const Split& k : {Split{1024, "128x128x8.t8x16.s3.outer", "64x64x16.t4x4.s4", 768},
                         Split{4096, "128x128x8.t8x16.s3.outer", "32x32x32.t4x4.s4", 3968},
                         Split{16384, "128x128x8.t8x16.s3.outer", "128x128x16 (production)", 16000}})
    plan_ok("dX", dx_by_shape_tiles(), plan_dx_by_shape(k.M, 5376, 5376, 132), k);
  // Both launches of a split plan write their own rows: on 4 SMs, 1152 x 129 is 18 blocks of the 128x128 tile
  // (two waves of 8 and 2 blocks), so rows [0, 1024) run the 4-warp 128x128 tile and rows [1024, 1152) a 32x32
  // tile.
  emu_sm_count = 4;
  {
    const ByShapePlan p = plan_by_shape(1152, 129, 261, 4), q = plan_dx_by_shape(1152, 261, 129, 4);
    const bool ok = p.tile == 0 && p.rows == 1024 && p.tail_tile >= 0 && q.tile == 0 && q.rows == 1024 && q.tail_tile >= 0;
    failures += !ok;
    std::printf("%-6s split plans on 4 SMs: forward rows %lld then tile %d, dX rows %lld then tile %d\n",
                ok ? "ok" : "FAIL", static_cast<long long>(p.rows), p.tail_tile, static_cast<long long>(q.rows),
                q.tail_tile);
  }
  check("sm80.fwd.f32.fma.simt.by-shape split", launch_fwd_f32_simt_by_shape, 1152, 129, 261, true, 0, Family::uniform);
  check("sm80.fwd.f32.fma.simt.by-shape split", launch_fwd_f32_simt_by_shape, 1152, 129, 261, true, 1, Family::with_nan);
  check_dx("sm80.bwd.dx.f32.fma.simt.by-shape split", launch_bwd_dx_f32_simt_by_shape, 1152, 261, 129, 0,
           Family::uniform);
  check_dx("sm80.bwd.dx.f32.fma.simt.by-shape split", launch_bwd_dx_f32_simt_by_shape, 1152, 261, 129, 1,
           Family::tiny_signed_zero);
  {
    // A reduction shorter than the split's minimum runs one grid.
    const ByShapePlan p = plan_by_shape(1152, 129, 255, 4), q = plan_dx_by_shape(1152, 255, 129, 4);
    const bool ok = p.tail_tile < 0 && p.rows == 1152 && q.tail_tile < 0 && q.rows == 1152;
    failures += !ok;
    std::printf("%-6s no split on 4 SMs under 256 reduction steps\n", ok ? "ok" : "FAIL");
  }
  emu_sm_count = 132;
  // dW [N, K] of the seed's shapes: the cost model's choice is the tile measured fastest
  // (evidence/h200-91d06eb-dw-tiles/).
  for (const Pick& k : {Pick{32, 5376, "32x64x32.t4x4.s4"}, Pick{5376, 32, "64x32x32.t4x4.s4"},
                        Pick{5376, 5376, "128x128x8.t8x16.s3.outer"}}) {
    for (const std::int64_t tokens : {64, 16384}) {
      const std::string got =
          dw_by_shape_tiles()[static_cast<std::size_t>(choose_dw_by_shape_tile(k.M, k.N, tokens, 132))].name;
      const bool ok = got == k.tile;
      failures += !ok;
      std::printf("%-6s dW by-shape rule N=%d K=%d T=%lld on 132 SMs: %s (want %s)\n", ok ? "ok" : "FAIL", k.M, k.N,
                  static_cast<long long>(tokens), got.c_str(), k.tile);
    }
  }
  check("mutant.fwd.f32.k-reversed", launch_mutant_k_reversed, 33, 17, 64, true, 0, Family::uniform, false);
  check("mutant.fwd.f32.k-split-halves", launch_mutant_k_split_halves, 33, 17, 64, true, 0, Family::uniform, false);
  check("mutant.fwd.f32.bias-first", launch_mutant_bias_first, 33, 17, 64, true, 0, Family::uniform, false);
  std::printf("%s\n", failures ? "FAILURES" : "all ok");
  return failures ? 1 : 0;
}
