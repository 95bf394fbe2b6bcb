// Command line of ordo_bench_forward (bench_args.h).
#include "bench/bench_args.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "kernels/forward_api.h"

namespace ordo::bench {
namespace {

constexpr const char* kAllBf16 = "all-bf16";
constexpr const char* kAllF32 = "all-f32";

std::int64_t parse_int(const std::string& s, const char* what, bool allow_zero = false) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < 0 || (v == 0 && !allow_zero))
    die(std::string("bad ") + what + ": \"" + s + "\"");
  return v;
}

double parse_seconds(const std::string& s, const char* what) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
    die(std::string("bad ") + what + ": \"" + s + "\" (want seconds >= 0)");
  return v;
}

void split_commas(const std::string& s, std::vector<std::string>* out) {
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t c = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, c - pos);
    pos = c + 1;
    if (!item.empty()) out->push_back(item);
  }
}

std::vector<Shape> cross(std::initializer_list<std::pair<std::int64_t, std::int64_t>> kn) {
  std::vector<Shape> out;
  for (std::int64_t M : {64, 1024, 4096, 16384})
    for (auto [K, N] : kn) out.push_back({M, N, K});
  return out;
}

std::vector<std::string> effective_specs(const Options& o) {
  return o.variant_specs.empty() ? std::vector<std::string>{kDefaultVariant} : o.variant_specs;
}

}  // namespace

std::vector<Shape> parse_shapes(const std::string& spec) {
  std::vector<Shape> out;
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t semi = std::min(spec.find(';', pos), spec.size());
    const std::string item = spec.substr(pos, semi - pos);
    pos = semi + 1;
    if (item.empty()) continue;
    const std::size_t c1 = item.find(','), c2 = c1 == std::string::npos ? c1 : item.find(',', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos || item.find(',', c2 + 1) != std::string::npos)
      die("bad shape \"" + item + "\" (want M,N,K)");
    out.push_back({parse_int(item.substr(0, c1), "M"), parse_int(item.substr(c1 + 1, c2 - c1 - 1), "N"),
                   parse_int(item.substr(c2 + 1), "K")});
  }
  if (out.empty()) die("--shapes has no shape");
  return out;
}

void usage(std::FILE* f) {
  std::fprintf(
      f,
      "usage: ordo_bench_forward [options]\n"
      "Times fixed-order forward variants against cuBLAS on the current GPU, on the same inputs, in one\n"
      "process: FP32 variants against cublasSgemm (FP32, no TF32), BF16 variants against cublasGemmEx\n"
      "(A, B CUDA_R_16BF, C CUDA_R_32F or CUDA_R_16BF, CUBLAS_COMPUTE_32F). Y[M,N] = X[M,K] * W[N,K]^T.\n"
      "  --variant SPEC      what to time; repeatable, or a comma list. SPEC is a variant id, or\n"
      "                      all-bf16 / all-f32: every registered non-mutant variant of that operand\n"
      "                      dtype that runs on this GPU (others are skipped with a note).\n"
      "                      Default: %s. Variants of one operand dtype share the\n"
      "                      cuBLAS timing of each shape.\n"
      "  --shapes \"M,N,K;..\"  shapes to run, for every variant (default per operand dtype:\n"
      "                      FP32: M in {64,1024,4096,16384} x (K,N) in {(32,5376),(5376,32),(5376,5376)};\n"
      "                      BF16: M in {64,1024,4096,16384} x (K,N) in {(4096,5376),(5376,16128),(5376,5376)}).\n"
      "                      A shape whose K is not a multiple of a variant's k_multiple is skipped for it.\n"
      "  --out-dtype f32|bf16|both\n"
      "                      output dtype of the BF16 variants (default f32); bf16 only for variants\n"
      "                      with bf16 output (with 'both' the others run f32 only). FP32 variants: f32.\n"
      "  --reps N            timed runs per row and implementation (default 20); median reported\n"
      "  --warmup N          untimed runs before timing (default 3)\n"
      "  --max-seconds-per-row S\n"
      "                      stop timing an implementation on a row once its timed runs add up to S\n"
      "                      seconds (at least 3 runs); the reps done are reported (default 0: no limit)\n"
      "  --json PATH         also write the results as JSON\n"
      "  --trace-launch, --wgmma-kernel, --wgmma-stores, --fp32-tile ... VALUE\n"
      "                      launch options: how ordo's variants run, never what they compute\n"
      "                      (kernels/launch_options.h; the table in docs/kernels.md)\n"
      "  --help              this text\n"
      "Progress goes to stderr, one line per shape and output dtype; the table to stdout.\n"
      "Exit codes: 0 ok, 1 error (also: an unknown variant, or a named variant that cannot run on this GPU)\n"
      "or a kernel output that does not match cuBLAS, 2 no GPU.\n",
      kDefaultVariant);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--variant") {
      const std::size_t before = o.variant_specs.size();
      split_commas(value(), &o.variant_specs);
      if (o.variant_specs.size() == before) die("--variant has no variant");
    } else if (a == "--shapes") {
      o.shapes = parse_shapes(value());
    } else if (a == "--reps") {
      o.reps = static_cast<int>(std::min<std::int64_t>(parse_int(value(), "--reps"), 100000));
    } else if (a == "--warmup") {
      o.warmup = static_cast<int>(std::min<std::int64_t>(parse_int(value(), "--warmup", true), 100000));
    } else if (a == "--max-seconds-per-row") {
      o.max_seconds_per_row = parse_seconds(value(), "--max-seconds-per-row");
    } else if (a == "--out-dtype") {
      const std::string v = value();
      if (v == "f32")
        o.out_dtypes = OutDtypes::f32;
      else if (v == "bf16")
        o.out_dtypes = OutDtypes::bf16;
      else if (v == "both")
        o.out_dtypes = OutDtypes::both;
      else
        die("bad --out-dtype \"" + v + "\" (want f32, bf16 or both)");
    } else if (a == "--json") {
      o.json_path = value();
    } else if (const kernels::LaunchOptionFlag* f = kernels::find_launch_option_flag(a)) {
      const std::string e = kernels::set_launch_option(&o.launch, a, *f->values != '\0' ? value() : std::string());
      if (!e.empty()) die(e);
    } else {
      usage(stderr);
      die("unknown argument \"" + a + "\"");
    }
  }
  return o;
}

std::vector<Shape> default_f32_shapes() { return cross({{32, 5376}, {5376, 32}, {5376, 5376}}); }

std::vector<Shape> default_bf16_shapes() { return cross({{4096, 5376}, {5376, 16128}, {5376, 5376}}); }

void check_variant_specs(const Options& o) {
  for (const std::string& spec : effective_specs(o)) {
    if (spec == kAllBf16 || spec == kAllF32) continue;
    const KernelVariant* v = kernels::find_forward_variant(spec);
    if (!v) {
      std::string known;
      for (const KernelVariant& k : kernels::forward_variants())
        if (!k.is_mutant) known += "\n  " + k.id;
      die(std::string("unknown variant \"")
              .append(spec)
              .append("\"; registered (besides the mutants): ")
              .append(known)
              .append("\n  all-bf16\n  all-f32"));
    }
    if (v->operand_dtype != DType::f32 && v->operand_dtype != DType::bf16)
      die("variant " + v->id + " has operand dtype " + std::string(dtype_name(v->operand_dtype)) +
          "; the bench times f32 and bf16 operands only");
    if (v->operand_dtype == DType::bf16 && o.out_dtypes == OutDtypes::bf16 && !v->bf16_output)
      die("--out-dtype bf16: variant " + v->id + " writes f32 output only (use --out-dtype f32 or both)");
  }
}

bool runnable_on(const KernelVariant& v, int sm) { return v.runs_on(sm); }

std::vector<const KernelVariant*> resolve_variants(const Options& o, int sm) {
  std::vector<const KernelVariant*> chosen;
  auto add = [&](const KernelVariant* v) {
    if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
  };
  auto sm_range = [](const KernelVariant& v) {
    if (v.sm.max == v.sm.min) return "sm_" + std::to_string(v.sm.min) + " only";
    return "sm_" + std::to_string(v.sm.min) + (v.sm.max ? " to sm_" + std::to_string(v.sm.max) : " or newer");
  };
  for (const std::string& spec : effective_specs(o)) {
    if (spec == kAllBf16 || spec == kAllF32) {
      const DType want = spec == kAllBf16 ? DType::bf16 : DType::f32;
      int n = 0;
      for (const KernelVariant& v : kernels::forward_variants()) {
        if (v.is_mutant || v.operand_dtype != want) continue;
        if (!runnable_on(v, sm)) {
          std::printf("note: %s: skipping %s (runs on %s; this GPU is sm_%d)\n", spec.c_str(), v.id.c_str(),
                      sm_range(v).c_str(), sm);
          continue;
        }
        if (want == DType::bf16 && o.out_dtypes == OutDtypes::bf16 && !v.bf16_output) {
          std::printf("note: %s: skipping %s (--out-dtype bf16; it writes f32 output only)\n", spec.c_str(),
                      v.id.c_str());
          continue;
        }
        add(&v);
        ++n;
      }
      if (n == 0) die(spec + ": no registered variant of that kind runs on this GPU (sm_" + std::to_string(sm) + ")");
      continue;
    }
    const KernelVariant* v = kernels::find_forward_variant(spec);
    if (!v) die("unknown variant \"" + spec + "\"");
    if (!runnable_on(*v, sm))
      die("variant " + v->id + " runs on " + sm_range(*v) + " (contract " + v->contract_id + "); this GPU is sm_" +
          std::to_string(sm));
    add(v);
  }
  // Registry order, so that a run's rows do not depend on the order of the specs.
  std::vector<const KernelVariant*> ordered;
  for (const KernelVariant& v : kernels::forward_variants())
    if (std::find(chosen.begin(), chosen.end(), &v) != chosen.end()) ordered.push_back(&v);
  return ordered;
}

}  // namespace ordo::bench
