# Experiment patch (python3 two_producer_gather.py kernels/bf16_wgmma_128x256x64.cu): the gathered dW kernels
# with two producer warpgroups (512 threads). The producers hand registers back with setmaxnreg.dec 56, the
# consumers take 200 (256 x 56 + 256 x 200 = 65,536, the launch's 128 x 512); each producer thread copies
# chunk t % 8 of rows t / 8 + 32 q (q = 0, 1) of every box: 12 copies per stage instead of 24.
import sys
p = sys.argv[1]
s = open(p).read()
def rep(old, new, count=1):
    global s
    assert s.count(old) == count, (old[:80], s.count(old))
    s = s.replace(old, new)
# Thread counts per kernel: producers x 128 + consumers x 128.
rep('''template <int kRowsA, int kSplit = 1>
constexpr int kThreadsFor = 128 * (1 + kConsumersFor<kRowsA, kSplit>);''',
'''template <int kRowsA, int kSplit = 1, int kProducers = 1>
constexpr int kThreadsFor = 128 * (kProducers + kConsumersFor<kRowsA, kSplit>);''')
rep('''template <Ops o>
constexpr bool kGathered = o == Ops::dw_gather || o == Ops::dw_gather_pipelined;''',
'''template <Ops o>
constexpr bool kGathered = o == Ops::dw_gather || o == Ops::dw_gather_pipelined;
template <Ops o>
constexpr int kProducersOf = kGathered<o> ? 2 : 1;  // producer warpgroups''')
rep('''__global__ void __launch_bounds__(kThreadsFor<kRowsA, kSplit>, 1)''',
'''__global__ void __launch_bounds__(kThreadsFor<kRowsA, kSplit, kProducersOf<kOps>>, 1)''')
rep('''      mbarrier_init(&full[s], kGathered<kOps> ? 128 : 1);''',
'''      mbarrier_init(&full[s], kGathered<kOps> ? 128 * kProducersOf<kOps> : 1);''')
rep('''  if (wg == 0) {  // producer
    if constexpr (kGathered<kOps>) {''',
'''  if (wg < kProducersOf<kOps>) {  // producer
    if constexpr (kGathered<kOps>) setmaxnreg_dec<56>();
    if constexpr (kGathered<kOps>) {''')
rep('''    consume<kProbe, kCluster, kOps, kRingW, kRowsA, kSplit>(a, x_tiles, w_tiles, staging, &map_y, full, empty, k_tiles,
                                                            wg - 1, rank, cluster, clusters);''',
'''    if constexpr (kGathered<kOps>) setmaxnreg_inc<200>();
    consume<kProbe, kCluster, kOps, kRingW, kRowsA, kSplit>(a, x_tiles, w_tiles, staging, &map_y, full, empty, k_tiles,
                                                            wg - kProducersOf<kOps>, rank, cluster, clusters);''')
# The producers' rows.
rep('''  constexpr int kRowsPerThread = kBK / 16;
  constexpr int kBoxElements = kNMajorBoxColumns * kBK;
  const int chunk = static_cast<int>(threadIdx.x) % 8, first_row = static_cast<int>(threadIdx.x) / 8;
  // The token of row first_row + 16 q of k tile kt, or -1 past K (zero fill).
  auto token_of = [&a, first_row](int kt, int q) {
    const int step = kt * kBK + first_row + 16 * q;''',
'''  constexpr int kProducerThreads = 128 * kProducersOf<Ops::dw_gather>, kRowStep = kProducerThreads / 8;
  constexpr int kRowsPerThread = kBK / kRowStep;
  constexpr int kBoxElements = kNMajorBoxColumns * kBK;
  const int chunk = static_cast<int>(threadIdx.x) % 8, first_row = static_cast<int>(threadIdx.x) / 8;
  // The token of row first_row + kRowStep q of k tile kt, or -1 past K (zero fill).
  auto token_of = [&a, first_row](int kt, int q) {
    const int step = kt * kBK + first_row + kRowStep * q;''')
rep('''    const int r = first_row + 16 * q;
    dst[q] = r * kNMajorBoxColumns + ((chunk ^ (r & 7)) * 8);''',
'''    const int r = first_row + kRowStep * q;
    dst[q] = r * kNMajorBoxColumns + ((chunk ^ (r & 7)) * 8);''')
# Launch configuration and occupancy with the kernel's thread count.
rep('''template <int kCluster, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1>
cudaLaunchConfig_t cluster_config(unsigned blocks, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreadsFor<kRowsA, kSplit>);''',
'''template <int kCluster, int kRingW = kBN, int kRowsA = kBM, int kSplit = 1, int kProducers = 1>
cudaLaunchConfig_t cluster_config(unsigned blocks, cudaStream_t stream, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kThreadsFor<kRowsA, kSplit, kProducers>);''')
rep('''  const cudaLaunchConfig_t config = cluster_config<kCluster, kRingW, kRowsA, kSplit>(kCluster, nullptr, &attribute);''',
'''  const cudaLaunchConfig_t config =
      cluster_config<kCluster, kRingW, kRowsA, kSplit, kProducersOf<kOps>>(kCluster, nullptr, &attribute);''')
rep('''  const cudaLaunchConfig_t config = cluster_config<kCluster, kRingW, kRowsA, kSplit>(blocks, c.stream, &attribute);''',
'''  const cudaLaunchConfig_t config =
      cluster_config<kCluster, kRingW, kRowsA, kSplit, kProducersOf<kOps>>(blocks, c.stream, &attribute);''')
open(p, 'w').write(s)
# setmaxnreg wrappers in kernels/sm90/async_ops.cuh (next to the kernel file).
import os
q = os.path.join(os.path.dirname(p), 'sm90', 'async_ops.cuh')
t = open(q).read()
anchor = '// Waits until at most kPending committed groups'
assert t.count(anchor) == 1
if 'setmaxnreg_dec' not in t:
    t = t.replace(anchor, '''// Hands registers back to the block's pool (dec) or takes them from it (inc), for every thread of the
// executing warpgroup (PTX ISA, setmaxnreg; sm_90a). ptxas allocates the code after an inc up to its count.
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegisters));
}

''' + anchor)
    open(q, 'w').write(t)
