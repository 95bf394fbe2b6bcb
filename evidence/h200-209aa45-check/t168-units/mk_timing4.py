# On top of mk_timing3.py's output: per unit of the 168-column kernel, when consumer 0's warp 0 starts the unit,
# ends its k loop and ends its stores, and when it entered consume (clock64, same SM).
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def rep(old, new):
    global s
    assert s.count(old) == 1, (old, s.count(old))
    s = s.replace(old, new)
rep('''  for (unsigned u = cluster; u < units; u += clusters) {
    const Unit w = block_unit<kProbe, kCluster, kRowsA>(a, u, rank);
    // Single blocks only''', '''  constexpr bool kT4 = kOps == Ops::forward && kRingW == kBN168 && !kProbe;
  const bool rec = kT4 && c == 0 && warp == 0 && lane == 0 && (blockIdx.x < 4 || blockIdx.x == 57);
  long long* ts = g_diag_units[blockIdx.x < 4 ? blockIdx.x : 4];
  if (rec) ts[0] = clock64();
  int ui = 0;
  for (unsigned u = cluster; u < units; u += clusters, ++ui) {
    if (rec && ui < 4) ts[1 + 3 * ui] = clock64();
    const Unit w = block_unit<kProbe, kCluster, kRowsA>(a, u, rank);
    // Single blocks only''')
rep('''    wgmma_wait_all();
    for (int j = max(0, k_tiles - pending); j < k_tiles; ++j)
      release_stage<kCluster>(&empty[(it - k_tiles + j) % kRingStages], lane);
''', '''    wgmma_wait_all();
    for (int j = max(0, k_tiles - pending); j < k_tiles; ++j)
      release_stage<kCluster>(&empty[(it - k_tiles + j) % kRingStages], lane);
    if (rec && ui < 4) ts[2 + 3 * ui] = clock64();
''')
rep('''          a.y[at] = v0;
          if (col + 1 < a.N) a.y[at + 1] = v1;
        }
      }
    }
  }
  // No block leaves with a staged store in flight''', '''          a.y[at] = v0;
          if (col + 1 < a.N) a.y[at + 1] = v1;
        }
      }
    }
    if (rec && ui < 4) ts[3 + 3 * ui] = clock64();
  }
  if (rec) ts[13] = ui;
  // No block leaves with a staged store in flight''')
rep('__device__ long long g_diag[5][9][8];\n', '__device__ long long g_diag[5][9][8];\n__device__ long long g_diag_units[5][16];\n')
rep('''      const long long* p = h[b][8];''', '''      long long hu[5][16];
      cudaMemcpyFromSymbol(hu, g_diag_units, sizeof hu);
      const long long* q = hu[b];
      std::printf("DIAG block %d units %lld | from consume's entry: ", b == 4 ? 57 : b, q[13]);
      for (int k = 0; k < 4 && k < q[13]; ++k)
        std::printf("unit %d start %lld loop_end %lld stores_end %lld; ", k, q[1 + 3 * k] - q[0], q[2 + 3 * k] - q[0],
                    q[3 + 3 * k] - q[0]);
      std::printf("\\n");
      const long long* p = h[b][8];''')
open(dst, 'w').write(s)
