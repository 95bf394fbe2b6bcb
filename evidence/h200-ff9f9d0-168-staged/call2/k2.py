# Experiment: the 168 kernel with stages of two k sub-tiles (128 deep), 3 stages, direct stores.
p='kernels/bf16_wgmma_128x256x64.cu'
s=open(p).read()
def rep(a,b):
    global s
    assert a in s, a
    s=s.replace(a,b)
rep("static constexpr int k_sub = kRowsA == 64 && kRingW == 48 ? 2 : 1;",
    "static constexpr int k_sub = (kRowsA == 64 && kRingW == 48) || kRingW == 168 ? 2 : 1;")
rep('''                                : kRingW == 64  ? 8
                                                : 5;''','''                                : kRingW == 64  ? 8
                                                : 3;''')
rep("static constexpr bool staged_stores = (kRingW == kBN || kRingW == 168) && kRowsA == kBM;",
    "static constexpr bool staged_stores = (kRingW == kBN) && kRowsA == kBM;")
rep('''      static_assert(kSub == 1 || (kSharesA && !kAMMajor<kOps> && !kBNMajor<kOps>),''','''      static_assert(kSub == 1 || (!kAMMajor<kOps> && !kBNMajor<kOps>),''')
rep('''          } else {
            tma_load_2d(x_tiles + s * kRowsA * kBK, &map_x, &full[s], kt * kBK, w.m0);
          }''','''          } else {
#pragma unroll
            for (int j = 0; j < kSub; ++j) {
              if (j >= subs) break;
              tma_load_2d(x_tiles + s * kRowsA * kStageK + j * kRowsA * kBK, &map_x, &full[s], kt * kStageK + j * kBK, w.m0);
            }
          }''')
rep('''static_assert(kSub == 1 || (kSplit == 1 && !kProbe && kRingW != kBN), "k sub-tiles: one consumer, one unit width");''',
    '''static_assert(kSub == 1 || kRingW != kBN, "k sub-tiles: one unit width");''')
open(p,'w').write(s)
