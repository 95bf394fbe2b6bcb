// Targeted kernel checks on the GPU beyond the generated suite (tests/gpu/suite_test.cpp runs that).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "subjects/forward_subject.h"
#include "core/contract_file.h"
#include "core/contract.h"
#include "backward_gpu_support.h"
#include "core/float_bits.h"
#include "forced_tile_cases.h"
#include "gpu_test_support.h"
#include "kernels/forward_api.h"
#include "kernels/forward_internal.h"
#include "properties/backward_case.h"
#include "properties/forward_checks.h"
#include "properties/suite.h"

namespace ordo::properties {
namespace {

using ordo::testing::GpuTest;

// The emulator of the contract a variant claims.
ForwardSubject& emulator_for(const std::string& variant_id) {
  static std::map<std::string, std::unique_ptr<ForwardSubject>> cache;
  const std::string contract = kernels::find_forward_variant(variant_id)->contract_id;
  auto& slot = cache[contract];
  if (!slot) slot = make_emulator_subject(resolve_contract(contract));
  return *slot;
}

// The case as variant `id` takes it: bfloat16 operands for bf16 variants.
// The case as the variant takes it: its operand type, K rounded up to its K granularity, and for
// variants with a bf16 output, a bf16 Y in every other case (by seed).
ForwardCase for_variant(ForwardCase c, const std::string& id) {
  const KernelVariant* v = kernels::find_forward_variant(id);
  c.bf16_operands = v->operand_dtype == DType::bf16;
  c.K = (c.K + v->k_multiple - 1) / v->k_multiple * v->k_multiple;
  c.bf16_output = v->bf16_output && (c.seed & 1) != 0;
  return c;
}

ForwardSubject& kernel(const std::string& id) {
  static std::map<std::string, std::unique_ptr<ForwardSubject>> cache;
  auto& slot = cache[id];
  if (!slot) slot = make_cuda_forward_subject(id);
  return *slot;
}

class KernelProperties : public GpuTest {};

TEST_F(KernelProperties, ReviewersOrderValuesOnTileEdges) {
  // 1, 2^-24, -1 in both orders at K = 1..3 and around the 16-wide k slab and the 128 tile.
  for (std::int64_t K : {3, 15, 16, 17, 127, 128, 129}) {
    ForwardCase c;
    c.M = 129;
    c.N = 130;
    c.K = K;
    c.family = ValueFamily::order_2m24;
    c.seed = static_cast<std::uint64_t>(K);
    for (const std::string& id : ordo::testing::production_forward_variants()) {
      const CheckResult r = check_bitwise_equal(kernel(id), emulator_for(id), for_variant(c, id));
      EXPECT_TRUE(r.passed) << id << ": " << r.detail;
    }
  }
}

// Row 0 of variant `id`'s case (1 x N x K, cancellation values, a bias) computed alone equals the same row
// inside each batch of `batches` rows, placed first, last and at a random position, bit for bit. Batches
// of fewer than 2 rows, or of more than max_outputs outputs, are left out.
void expect_row_alone_equals_row_in_batches(const std::string& id, std::int64_t N, std::int64_t K,
                                            const std::vector<std::int64_t>& batches, std::int64_t max_outputs,
                                            const std::string& what) {
  for (std::int64_t rows : batches) {
    if (rows < 2 || rows * N > max_outputs) continue;
    // Cancellation for an order-sensitive chain, uniform values so that every row's output depends on its
    // own data: cancellation's pairs cancel exactly, so with an even K every row's output is the bias and a
    // kernel that computed a row from another row's data (or from zeros) would pass on it alone.
    for (const ValueFamily family : {ValueFamily::cancellation, ValueFamily::uniform}) {
      ForwardCase c;
      c.M = 1;
      c.N = N;
      c.K = K;
      c.family = family;
      c.has_bias = true;
      c.seed = static_cast<std::uint64_t>(rows * 131 + N);
      const CheckResult r = check_batch_invariance(kernel(id), for_variant(c, id), rows);
      EXPECT_TRUE(r.passed) << what << ": N = " << N << ", batch of " << rows << " rows, " << family_name(family)
                            << ": " << r.detail;
    }
  }
}

// Every tile of sm80.fwd.f32.fma.simt.by-shape, forced by LaunchOptions::fp32.tile, on random shapes of up to two of its
// tiles plus two rows and columns (partial tiles in M and N), reductions across its ring with a tail, every
// value family, with and without a bias: kernel == emulator, bit for bit. The rule runs its first tiles only on
// grids of many waves, which the generated suite does not reach.
TEST_F(KernelProperties, EveryByShapeTileEqualsEmulator) {
  const std::string id = "sm80.fwd.f32.fma.simt.by-shape";
  const auto& families = all_families();
  Rng rng(20261202);
  int cases = 0;
  for (const kernels::detail::ByShapeTile& tile : kernels::detail::by_shape_tiles()) {
    kernels::LaunchOptions forced;
    forced.fp32.tile = tile.name;
    const std::unique_ptr<ForwardSubject> subject = make_cuda_forward_subject(id, forced);
    for (int i = 0; i < 60; ++i) {
      ForwardCase c = ordo::testing::case_around_tile(rng, tile, i, families);
      c.has_bias = i % 3 != 0;
      const CheckResult r = check_bitwise_equal(*subject, emulator_for(id), for_variant(c, id));
      EXPECT_TRUE(r.passed) << tile.name << ": " << r.detail;
      ++cases;
    }
  }
  std::printf("by-shape: %d cases over %zu forced tiles\n", cases, kernels::detail::by_shape_tiles().size());
}

int sm_count_of_device0() {
  int sm_count = 0;
  ordo::testing::check_cuda(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0), "SM count");
  return sm_count;
}

// sm90.fwd.bf16.wgmma.128x256x64 with M <= 64 on a grid that is all quarters (N <= 33 tiles of 256 columns on
// 132 SMs) or all halves (34..66 tiles) runs a small-M kernel: 64-row A tiles shared by a cluster. Quarters
// grids run as units of 48 columns (m64n48k16) where those make more blocks, else as quarters; halves with two
// consumer warpgroups per block on the column halves of each unit (m64n64k16). Measurement switches run the
// quarters with two consumers (m64n32k16: --wgmma-small-m-width 64) and every small-M kernel with one
// (--wgmma-small-m-consumers 1). All three settings, on random shapes of either kind (units cut by N, units
// wholly past N, the second consumer's columns past N, reductions across the rings of 8 stages 128 deep, 13 and
// 9 stages with a tail), every value family, with and without a bias, FP32 and BF16 Y: kernel == emulator, bit
// for bit.
TEST_F(KernelProperties, WgmmaSmallMKernelsEqualEmulator) {
  const std::string id = "sm90.fwd.bf16.wgmma.128x256x64";
  if (const std::string why = ordo::testing::outside_sm_range(*kernels::find_forward_variant(id)); !why.empty())
    GTEST_SKIP() << why << ": not run on this GPU";
  if (sm_count_of_device0() != 132) GTEST_SKIP() << "the shapes below are all-quarter and all-half grids on 132 SMs";
  const auto& families = all_families();
  Rng rng(20261203);
  int cases = 0;
  using kernels::WgmmaSmallMConsumers;
  using kernels::WgmmaSmallMWidth;
  const std::vector<std::pair<WgmmaSmallMWidth, WgmmaSmallMConsumers>> settings{
      {WgmmaSmallMWidth::by_shape, WgmmaSmallMConsumers::by_shape},
      {WgmmaSmallMWidth::quarters, WgmmaSmallMConsumers::by_shape},
      {WgmmaSmallMWidth::quarters, WgmmaSmallMConsumers::one}};
  for (const auto& [width, consumers] : settings) {
    kernels::LaunchOptions options;
    options.wgmma.small_m_width = width;
    options.wgmma.small_m_consumers = consumers;
    const std::unique_ptr<ForwardSubject> subject = make_cuda_forward_subject(id, options);
    const std::string setting = "options:" + kernels::launch_options_text(options);
    for (int i = 0; i < 48; ++i) {
      ForwardCase c;
      c.M = i % 4 == 0 ? 64 : rng.in_range(1, 64);
      const bool halves = i % 2 == 1;
      c.N = halves ? rng.in_range(33 * 256 + 1, 66 * 256) : rng.in_range(1, 33 * 256);
      if (i % 8 == 2) c.N = rng.in_range(1, 40);  // one unit, the second consumer's columns past N
      if (i % 8 == 3) c.N = 16128;                // the seed's fused Q/K/V width: 63 tiles, 126 halves
      if (i % 8 == 4) c.N = rng.in_range(1, 2048);
      // Long reductions (past the 13-stage ring) on narrow grids; the wide ones stay short for the emulator.
      c.K = rng.in_range(1, c.N <= 2048 ? 64 * 17 + 40 : 200);
      c.family = families[static_cast<std::size_t>(i) % families.size()];
      c.has_bias = i % 3 != 1;
      c.seed = rng.next();
      const CheckResult r = check_bitwise_equal(*subject, emulator_for(id), for_variant(c, id));
      EXPECT_TRUE(r.passed) << setting << ": " << r.detail;
      ++cases;
    }
  }
  std::printf("wgmma small-M kernels: %d cases, 48-column units, quarters with two consumers and with one\n", cases);
}

// Runs the wgmma forward on [M, N] (K = 72, bias) into Y placed 0, 2 (BF16) or 4 (FP32), 8 and 16 bytes past
// a 16-byte boundary in a poisoned buffer with 64 guard bytes either side: Y equals the emulator's, bit for
// bit, and nothing outside Y is written.
void expect_wgmma_forward_writes_exactly_the_output(std::int64_t M, std::int64_t N, bool bf16_output,
                                                    std::uint64_t seed) {
  const std::string id = "sm90.fwd.bf16.wgmma.128x256x64";
  constexpr std::size_t kGuard = 64;
  const std::size_t element_bytes = bf16_output ? 2 : 4;
  ForwardCase c;
  c.M = M;
  c.N = N;
  c.K = 72;
  c.family = ValueFamily::uniform;
  c.has_bias = true;
  c.seed = seed;
  c.bf16_operands = true;
  c.bf16_output = bf16_output;
  const ForwardProblem p = c.materialize();
  const BackendResult want = emulator_for(id).forward(p);
  ASSERT_TRUE(want.status.ok()) << want.status.to_string();
  const ordo::testing::DeviceArray x = ordo::testing::upload_operand(p.x, true);
  const ordo::testing::DeviceArray w = ordo::testing::upload_operand(p.w, true);
  const ordo::testing::DeviceArray bias = ordo::testing::DeviceArray::from(*p.bias);
  const std::size_t y_bytes = static_cast<std::size_t>(M * N) * element_bytes;
  for (const std::size_t offset : {std::size_t{0}, element_bytes, std::size_t{8}, std::size_t{16}}) {
    ordo::testing::DeviceArray buffer(kGuard + offset + y_bytes + kGuard);
    buffer.fill(ordo::testing::kPoison);
    kernels::ForwardArgs a;
    a.x = {x.get(), DType::bf16, M, c.K};
    a.w = {w.get(), DType::bf16, N, c.K};
    a.bias = {bias.get(), DType::f32, 1, N};
    a.y = static_cast<char*>(buffer.get()) + kGuard + offset;
    a.y_dtype = bf16_output ? DType::bf16 : DType::f32;
    a.y_rows = M;
    a.y_cols = N;
    const std::string where = c.summary() + (bf16_output ? ", BF16 Y " : ", FP32 Y ") + std::to_string(offset) +
                              " bytes past a 16-byte boundary";
    ASSERT_TRUE(kernels::forward(id, a).ok()) << where;
    ordo::testing::check_cuda(cudaDeviceSynchronize(), "forward kernel");
    const std::vector<unsigned char> bytes = buffer.read<unsigned char>();
    std::vector<float> got(static_cast<std::size_t>(M * N));
    for (std::size_t i = 0; i < got.size(); ++i) {
      const std::size_t at = kGuard + offset + element_bytes * i;
      std::uint32_t word = std::uint32_t{bytes[at]} | std::uint32_t{bytes[at + 1]} << 8;
      word = bf16_output ? word << 16 : word | std::uint32_t{bytes[at + 2]} << 16 | std::uint32_t{bytes[at + 3]} << 24;
      got[i] = float_of(word);
    }
    EXPECT_EQ(first_difference(got, want.y, "Y (kernel vs emulator)"), "") << where;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const bool inside = i >= kGuard + offset && i < kGuard + offset + y_bytes;
      if (!inside && bytes[i] != ordo::testing::kPoison) {
        ADD_FAILURE() << where << ": byte " << static_cast<std::int64_t>(i - kGuard - offset)
                      << " relative to Y was written";
        break;
      }
    }
  }
}

// sm90.fwd.bf16.wgmma.128x256x64 with a BF16 Y: the general kernel stores a 16-byte aligned Y with N % 8 == 0
// through shared memory and TMA boxes of 64 x 64 BF16 (which write only the elements inside Y), any other Y
// thread by thread. [2040, 2056]: 16 x 9 = 144 tiles, a wave of whole tiles and a last wave in quarters (not
// the 168-column kernel: wgmma_forward_unit_width keeps 256 there); the last tile column holds 8 columns (one
// live box of four, 8 of its 64 columns inside Y), the last tile row 120 rows. [700, 1288]: every tile in
// halves. [300, 1030]: N % 8 != 0, thread by thread.
TEST_F(KernelProperties, WgmmaStagedAndDirectBf16StoresWriteExactlyTheOutput) {
  const std::string id = "sm90.fwd.bf16.wgmma.128x256x64";
  if (const std::string why = ordo::testing::outside_sm_range(*kernels::find_forward_variant(id)); !why.empty())
    GTEST_SKIP() << why << ": not run on this GPU";
  std::uint64_t seed = 0x62663136;
  const int sm_count = sm_count_of_device0();
  for (const auto& [M, N] : std::vector<std::pair<std::int64_t, std::int64_t>>{{2040, 2056}, {700, 1288}, {300, 1030}}) {
    EXPECT_EQ(kernels::detail::wgmma_forward_unit_width(M, N, sm_count), 256) << M << " x " << N;
    expect_wgmma_forward_writes_exactly_the_output(M, N, true, ++seed);
  }
}

// The forward's 128x168 kernel (wgmma_forward_unit_width) stores a 16-byte aligned Y through shared memory and
// TMA boxes of 64 rows x 24 FP32 (N % 4 == 0) or 56 BF16 (N % 8 == 0) columns, unswizzled, any other Y thread by
// thread. M = 1000: the last tile row holds 104 rows (its second consumer's box 40 rows inside Y). N = 5376:
// 32 whole units; N = 5168: the last unit holds 128 columns (FP32: five whole boxes and one of 8 columns inside
// Y, the seventh past N; BF16: two whole and one of 16); N = 5172: N % 8 != 0, so BF16 Y thread by thread,
// FP32 Y staged with a last unit of 132 columns. Both outputs, Y at four offsets (staged at 0 and 16 bytes
// past a 16-byte boundary): bit for bit the emulator's, nothing outside Y written.
TEST_F(KernelProperties, Wgmma168StagedAndDirectStoresWriteExactlyTheOutput) {
  const std::string id = "sm90.fwd.bf16.wgmma.128x256x64";
  if (const std::string why = ordo::testing::outside_sm_range(*kernels::find_forward_variant(id)); !why.empty())
    GTEST_SKIP() << why << ": not run on this GPU";
  std::uint64_t seed = 0x31363873;
  const int sm_count = sm_count_of_device0();
  for (const auto& [M, N] : std::vector<std::pair<std::int64_t, std::int64_t>>{{1000, 5376}, {1000, 5168}, {1000, 5172}}) {
    ASSERT_EQ(kernels::detail::wgmma_forward_unit_width(M, N, sm_count), kernels::detail::kWgmmaUnit168)
        << M << " x " << N << ": not the 168-column kernel, so the test would not test it";
    for (const bool bf16_output : {false, true}) expect_wgmma_forward_writes_exactly_the_output(M, N, bf16_output, ++seed);
  }
}

// sm80.fwd.f32.fma.simt.by-shape picks its block tile from (M, N), and where a 128x128 tile's grid would end in
// a last wave at most half full, a second tile for the rows past its whole waves (kernels::detail::
// plan_by_shape): at every M in 1..16384 where the plan changes (a tile; up to 2048 rows also the second tile
// or the row it starts at, ordo::testing::plan_code; for output widths around and between the tiles' widths),
// a row alone (M = 1, the smallest tile) equals the same row inside batches of M_switch - 1 and M_switch rows
// (each side's plan), first (the first tile), last (the second tile, where there is one) and at a random
// position, bit for bit. Also the batch of 16384 rows.
TEST_F(KernelProperties, ByShapeRowBitsDoNotChangeAcrossTheTileSwitchPoints) {
  const std::string id = "sm80.fwd.f32.fma.simt.by-shape";
  const int sm_count = sm_count_of_device0();
  // A K tail in every tile's slab (8 to 256 steps), and long enough for the split of the rows past a 128x128
  // tile's whole waves (reductions of at least 256 steps).
  constexpr std::int64_t kK = 261;
  int switches = 0, split_batches = 0;
  for (std::int64_t N : {1, 16, 31, 32, 33, 64, 100, 129, 512, 5376}) {
    const auto plan = [&](std::int64_t M) { return kernels::detail::plan_by_shape(M, N, kK, sm_count); };
    const std::vector<std::int64_t> batches = ordo::testing::switch_point_batches(
        [&](std::int64_t M) { return ordo::testing::plan_code(plan(M), M); }, 16384, &switches);
    for (std::int64_t rows : batches) split_batches += rows * N <= (std::int64_t{1} << 26) && plan(rows).tail_tile >= 0;
    expect_row_alone_equals_row_in_batches(id, N, kK, batches, std::int64_t{1} << 26, "by-shape tile switch");
  }
  EXPECT_GT(switches, 0) << "the rule never switched: the property would test nothing";
  EXPECT_GT(split_batches, 0) << "no batch ran two tiles: the split would go untested";
  std::printf("by-shape: %d switch points over M = 1..16384 tested, %d batches in two tiles\n", switches,
              split_batches);
}

// sm90.fwd.bf16.wgmma.128x256x64 runs a grid's last wave in 128-column halves (64-column quarters) when it
// is at most half (a quarter) full, and a grid of one such wave entirely in them (kernels::detail::
// wgmma_schedule, one block per SM), a grid of quarters on the kernel with the deeper ring (with M <= 64,
// the small-M kernel: 64-row A tiles shared by clusters of four; every tile in halves with M <= 64: the
// small-M halves kernel, clusters of two), and some grids in 128x168 units on their
// own kernel (wgmma_forward_unit_width): at every M in 1..16384 where the kind of schedule changes (whole
// tiles; the last wave in pieces; every tile in pieces; halves or quarters; the small-M kernel; 168-column
// units), for output widths of one
// tile, 5376 and 16128 columns, a row alone equals the same row inside batches of M_switch - 1 and
// M_switch rows (first, last and at a random position), bit for bit, with a
// BF16 Y in half the batches. Batches of up to 16M outputs: the switch points of the widest rows repeat
// every 128 rows, and those up to M = 1040 are tested.
TEST_F(KernelProperties, WgmmaRowBitsDoNotChangeAcrossTheScheduleSwitchPoints) {
  const std::string id = "sm90.fwd.bf16.wgmma.128x256x64";
  if (const std::string why = ordo::testing::outside_sm_range(*kernels::find_forward_variant(id)); !why.empty())
    GTEST_SKIP() << why << ": not run on this GPU";
  const int sm_count = sm_count_of_device0();
  constexpr std::int64_t kK = 200;  // 4 k tiles of 64, the last one a single 16-wide step (8 terms, 8 zeros)
  int switches = 0;
  for (std::int64_t N : {256, 5376, 16128}) {
    const auto kind = [&](std::int64_t M) {
      if (kernels::detail::wgmma_forward_unit_width(M, N, sm_count) != 256) return std::int64_t{100};
      const std::int64_t tiles = kernels::detail::ceil_div(M, 128) * kernels::detail::ceil_div(N, 256);
      const kernels::detail::WgmmaSchedule s = kernels::detail::wgmma_schedule(tiles, sm_count);
      // every tile in quarters (halves) with M <= 64: the small-M kernels (64-row A tiles shared by clusters
      // of four (two), two consumers per block on column halves)
      if (s.full_units == 0 && s.units > 0 && M <= 64) return std::int64_t{200 + s.pieces};
      // whole tiles; the last wave in pieces; every tile in pieces; and the pieces' width
      return std::int64_t{(s.full_units == s.units ? 0 : s.full_units == 0 ? 2 : 1) + 3 * s.pieces};
    };
    const std::vector<std::int64_t> batches = ordo::testing::switch_point_batches(kind, 16384, &switches);
    expect_row_alone_equals_row_in_batches(id, N, kK, batches, std::int64_t{1} << 24, "wgmma schedule switch");
  }
  EXPECT_GT(switches, 0) << "the schedule never switched: the property would test nothing";
  std::printf("wgmma: %d schedule switch points over M = 1..16384 tested\n", switches);
}

}  // namespace
}  // namespace ordo::properties
