#pragma once
// How ordo's kernels run, never what they compute: every option keeps each output's chain, so the bits are
// the same whatever is set (the GPU tests check each setting against the emulator). The defaults below are
// the production rules; the other values exist to measure the alternatives, and docs/kernels.md ("Launch
// options") says what each one showed. Set by the `ordo` commands (tools/launch_option_flags.h), the benches
// and the GPU tests; no kernel reads the environment.
// Host code includes this header only through forward_api.h / backward_api.h; it has no CUDA types.
#include <string>
#include <string_view>
#include <vector>

namespace ordo::kernels {

// Which wgmma kernels a call may run.
enum class WgmmaKernels {
  by_shape,  // the kernel per shape: the general one, the quarters' ring, the 168-column units, small M
  general,   // every shape on the general kernel (4-stage ring, 256-column units split only in a last wave)
};

// How the wgmma consumers store their outputs.
enum class WgmmaStores {
  staged,  // through shared memory and TMA where Y allows it (the general and 168 kernels)
  direct,  // every thread stores its accumulators, in every kernel
};

// The unit width of the forward's small-M kernel (M <= 64) where quarters would run.
enum class WgmmaSmallMWidth {
  by_shape,  // 48-column units where they put more blocks on the GPU in one round (wgmma_small_m_unit_width)
  quarters,  // always the 64-column quarters
};

// The consumer warpgroups of a small-M kernel's block.
enum class WgmmaSmallMConsumers {
  by_shape,  // two on the two column halves of each unit where B splits there, else one
  one,       // one everywhere
};

// The L2 cache hints (evict_last for A, evict_first for B) of the forward's small-M halves kernel.
enum class WgmmaCacheHints {
  by_size,  // where B is larger than L2 (it streams from HBM whatever the policy)
  off,
  on,
};

// Which dW kernel runs.
enum class WgmmaDwKernel {
  by_accumulate,  // without accumulate the pipelined kernel (no start-value load), with it the start-value one
  serial,         // always the kernel that can load start values (ptxas serialises its wgmma), from +0 too
};

// The gathered dW's producers.
enum class WgmmaGather {
  no_wait,  // producers that do not wait for their own copies, on the kernel WgmmaDwKernel picks
  serial,   // the same producers, always on the start-value kernel
  wait,     // the earlier producers, which wait for their own copies two stages late (start-value kernel)
};

struct WgmmaOptions {
  WgmmaKernels kernels = WgmmaKernels::by_shape;
  // Blocks per cluster of the forward's general kernel: 1, or 2 (W tiles shared by TMA multicast).
  int cluster = 1;
  // The wgmma groups each consumer leaves in flight: 0 the rule (two on the rings of more than four stages
  // and in the gathered dW, one on the general kernel fed by TMA), or 1 or 2 everywhere.
  int pending_groups = 0;
  WgmmaStores stores = WgmmaStores::staged;
  WgmmaSmallMWidth small_m_width = WgmmaSmallMWidth::by_shape;
  WgmmaSmallMConsumers small_m_consumers = WgmmaSmallMConsumers::by_shape;
  WgmmaCacheHints cache_hints = WgmmaCacheHints::by_size;
  WgmmaDwKernel dw = WgmmaDwKernel::by_accumulate;
  WgmmaGather gather = WgmmaGather::no_wait;
};

struct Fp32Options {
  // The FP32 by-shape forward and dX variants on this one tile over the whole problem (a name of
  // by_shape_tiles() or dx_by_shape_tiles(): "128x128 4-warp", ...); empty: the tile the shape's rule picks. A
  // name the variant does not have fails its launch (launch_failed, the tiles listed on stderr).
  std::string tile;
  // Rows past a grid's whole waves in a second launch on a smaller tile, where the rule says so.
  bool split = true;
};

struct LaunchOptions {
  bool trace_launch = false;  // the wgmma variants print each call's schedule on stderr
  WgmmaOptions wgmma;
  Fp32Options fp32;
};
// The defaults, for launches made without a caller's options.
inline const LaunchOptions kDefaultLaunchOptions{};

// The options as command-line flags, one table for the `ordo` commands, the benches and the tests.
struct LaunchOptionFlag {
  const char* name;    // "--wgmma-stores"
  const char* values;  // "staged|direct"; empty for a switch that takes no value
  const char* help;
};
const std::vector<LaunchOptionFlag>& launch_option_flags();
const LaunchOptionFlag* find_launch_option_flag(std::string_view name);  // nullptr: no such flag
// Sets the option of `flag` from `value` (ignored for a switch); returns "" or what is wrong.
std::string set_launch_option(LaunchOptions* options, std::string_view flag, std::string_view value);
// The flags that give `options` (those that differ from the defaults), each with a leading space.
std::string launch_options_text(const LaunchOptions& options);

}  // namespace ordo::kernels
