#pragma once
// Command line of ordo_bench_forward: options, --help text, default shapes, and the resolution of
// --variant specs (ids, "all-bf16", "all-f32") against the registry and the current GPU.
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "core/variant.h"
#include "kernels/launch_options.h"

namespace ordo::bench {

inline constexpr const char* kDefaultVariant = "sm80.fwd.f32.fma.simt.128x128x16";

enum class OutDtypes { f32, bf16, both };

struct Options {
  std::vector<std::string> variant_specs;  // as given, comma lists split; empty: kDefaultVariant
  std::vector<Shape> shapes;               // empty: the default shapes of each operand dtype
  int reps = 20;
  int warmup = 3;
  double max_seconds_per_row = 0;         // 0: no limit
  OutDtypes out_dtypes = OutDtypes::f32;  // BF16 variants only
  std::string json_path;
  kernels::LaunchOptions launch;  // --trace-launch, --wgmma-*, --fp32-* (kernels/launch_options.h)
};

void usage(std::FILE* f);
// Parses argv; prints the help and exits 0 on --help, exits 1 on a malformed command line.
Options parse_args(int argc, char** argv);

// "M,N,K;M,N,K;..." (empty items skipped); exits 1 naming a malformed item or an empty list.
std::vector<Shape> parse_shapes(const std::string& spec);

// M in {64,1024,4096,16384} x (K,N) in {(32,5376),(5376,32),(5376,5376)}.
std::vector<Shape> default_f32_shapes();
// M in {64,1024,4096,16384} x (K,N) in {(4096,5376),(5376,16128),(5376,5376)}.
std::vector<Shape> default_bf16_shapes();

// Exits 1 naming the first spec that is neither "all-bf16", "all-f32" nor a registered variant id, or
// an explicitly named variant whose dtype cannot give what --out-dtype asks. Needs no GPU.
void check_variant_specs(const Options& o);

bool runnable_on(const KernelVariant& v, int sm);

// The variants to time on a GPU of compute capability `sm`, in registry order, without duplicates.
// An explicitly named variant that cannot run on `sm` is an error (exit 1); the all-* groups skip
// such variants and mutants, printing a note on stdout for each one skipped for its SM.
std::vector<const KernelVariant*> resolve_variants(const Options& o, int sm);

}  // namespace ordo::bench
