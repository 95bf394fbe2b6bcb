# Diagnostic build: clock64 per phase of the small-M 48-column forward kernel's consumer and producer loops,
# written to a device array (no printf in the kernel: a call would serialise the wgmma, ptxas C7510) and
# printed by the host after each launch.
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (old, s.count(old))
    s = s.replace(old, new)
rep('''    const int pending = a.pending_groups >= 2 ? 2 : 1;
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % kRingStages;
      mbarrier_wait(&full[s], static_cast<std::uint32_t>((it / kRingStages) & 1));
''', '''    const int pending = a.pending_groups >= 2 ? 2 : 1;
    constexpr bool kT = kOps == Ops::forward && kRowsA == 64 && kRingW == kSmallMUnit48;
    long long tw = 0, ti = 0, tg = 0, tr = 0, tmax = 0;
    const long long tA = clock64();
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int s = it % kRingStages;
      const long long t0 = clock64();
      mbarrier_wait(&full[s], static_cast<std::uint32_t>((it / kRingStages) & 1));
      const long long t1 = clock64();
''')
rep('''      wgmma_commit_group();
      if (pending == 2)
        wgmma_wait_group<2>();
      else
        wgmma_wait_all_but_one();
      if (kt >= pending) release_stage<kCluster>(&empty[(it - pending) % kRingStages], lane, warp, c);
    }
''', '''      wgmma_commit_group();
      const long long t2 = clock64();
      if (pending == 2)
        wgmma_wait_group<2>();
      else
        wgmma_wait_all_but_one();
      const long long t3 = clock64();
      if (kt >= pending) release_stage<kCluster>(&empty[(it - pending) % kRingStages], lane, warp, c);
      const long long t4 = clock64();
      tw += t1 - t0; ti += t2 - t1; tg += t3 - t2; tr += t4 - t3;
      if (kt > 0 && t1 - t0 > tmax) tmax = t1 - t0;
    }
    if (kT && lane == 0 && (blockIdx.x < 4 || blockIdx.x == 57)) {
      long long* o = g_diag[(blockIdx.x < 4 ? blockIdx.x : 4)][warp];
      o[0] = k_tiles; o[1] = clock64() - tA; o[2] = tw; o[3] = ti; o[4] = tg; o[5] = tr; o[6] = tmax; o[7] = tA;
    }
''')
rep('''        for (int kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = it % kRingStages;
          if (it >= kRingStages) mbarrier_wait(&empty[s], static_cast<std::uint32_t>((it / kRingStages - 1) & 1));
          mbarrier_arrive_expect_tx(&full[s], static_cast<std::uint32_t>(a_bytes + w_bytes));
          if constexpr (kAMMajor<kOps>) {''', '''        constexpr bool kT = kOps == Ops::forward && kRowsA == 64 && kRingW == kSmallMUnit48;
        long long pe = 0, pt = 0; const long long pA = clock64();
        for (int kt = 0; kt < k_tiles; ++kt, ++it) {
          const int s = it % kRingStages;
          const long long q0 = clock64();
          if (it >= kRingStages) mbarrier_wait(&empty[s], static_cast<std::uint32_t>((it / kRingStages - 1) & 1));
          const long long q1 = clock64();
          pe += q1 - q0;
#ifdef ORDO_DIAG_NOLOAD
          if constexpr (kT) { mbarrier_arrive(&full[s]); continue; }
#endif
          mbarrier_arrive_expect_tx(&full[s], static_cast<std::uint32_t>(a_bytes + w_bytes));
          if constexpr (kAMMajor<kOps>) {''')
rep('''            tma_load_2d(w_tiles + s * kRingW * kBK, map, &full[s], kt * kBK, w.n0);
          }
        }
''', '''            tma_load_2d(w_tiles + s * kRingW * kBK, map, &full[s], kt * kBK, w.n0);
          }
          pt += clock64() - q1;
        }
        if (kT && (blockIdx.x < 4 || blockIdx.x == 57)) {
          long long* o = g_diag[(blockIdx.x < 4 ? blockIdx.x : 4)][4];
          o[0] = k_tiles; o[1] = clock64() - pA; o[2] = pe; o[3] = pt; o[7] = pA;
        }
''')
# the device array, before the first kernel code
anchor = 'enum class Ops {'
rep(anchor, '__device__ long long g_diag[5][5][8];\n' + anchor)
# host print after the launch
rep('''  if (e != cudaSuccess) (void)cudaGetLastError();  // the launch's own error, and clears it
  return e;
}''', '''  if (e != cudaSuccess) (void)cudaGetLastError();  // the launch's own error, and clears it
  if constexpr (kOps == Ops::forward && kRowsA == 64 && kRingW == kSmallMUnit48) {
    long long h[5][5][8];
    cudaDeviceSynchronize();
    cudaMemcpyFromSymbol(h, g_diag, sizeof h);
    for (int b = 0; b < 5; ++b) {
      for (int w = 0; w < 4; ++w) {
        const long long* o = h[b][w];
        const double n = o[0] > 0 ? double(o[0]) : 1.0;
        std::printf("DIAG block %d warp %d tiles %lld loop %lld start %lld | per tile: wait_full %.1f issue %.1f "
                    "wgmma_wait %.1f release %.1f | max wait_full %lld\\n", b == 4 ? 57 : b, w, o[0], o[1], o[7],
                    o[2] / n, o[3] / n, o[4] / n, o[5] / n, o[6]);
      }
      const long long* p = h[b][4];
      const double n = p[0] > 0 ? double(p[0]) : 1.0;
      std::printf("DIAG block %d producer tiles %lld loop %lld start %lld | per tile: wait_empty %.1f issue %.1f\\n",
                  b == 4 ? 57 : b, p[0], p[1], p[7], p[2] / n, p[3] / n);
    }
  }
  return e;
}''')
if '#include <cstdio>' not in s:
    s = '#include <cstdio>\n' + s
open(dst, 'w').write(s)
