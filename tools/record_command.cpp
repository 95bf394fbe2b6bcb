#include <cstdio>
#include <filesystem>

#include "backends/backend.h"
#include "core/build_info.h"
#include "kernels/forward_api.h"
#include "properties/forward_case.h"
#include "properties/golden_corpus.h"
#include "tools/commands.h"

namespace ordo::tools {
namespace {

struct RecordOptions {
  int cases = 30;
  std::uint64_t seed = 1;
  std::string out_dir = "corpus/golden";
};

int run_record(const RecordOptions& o) {
  const kernels::DeviceInfo gpu = kernels::device_info(0);
  if (!gpu.present) {
    std::printf("ordo record-golden: not run: no usable CUDA device (%s)\n", gpu.reason.c_str());
    return 3;
  }
  std::filesystem::create_directories(o.out_dir);
  // Small shapes across the tile edges and every value family: cheap to store, cheap to replay.
  const properties::ShapeLimits limits{.max_m = 33, .max_n = 33, .max_k = 70, .max_volume = 1 << 12};
  int written = 0;
  for (const KernelVariant& v : kernels::forward_variants()) {
    if (v.is_mutant || gpu.sm < v.min_sm || (v.max_sm != 0 && gpu.sm > v.max_sm)) continue;
    auto kernel = make_cuda_backend(v.id);
    properties::GoldenFile f;
    f.variant = v.id;
    f.contract = v.contract_id;
    f.gpu = gpu.name + ", sm_" + std::to_string(gpu.sm) + ", CUDA driver API " + std::to_string(gpu.driver_version);
    f.commit = build_git_commit();
    const auto gen = properties::gen_forward_case(
        limits, properties::all_families(),
        {.bf16_operands = v.operand_dtype == DType::bf16, .k_multiple = v.k_multiple, .bf16_output_sometimes = v.bf16_output});
    rc::Random root(o.seed);
    for (int i = 0; i < o.cases; ++i) {
      const properties::ForwardCase c = gen(root.split(), rc::kNominalSize).value();
      const ForwardProblem p = c.materialize();
      BackendResult r = kernel->forward(p);
      if (!r.status.ok()) {
        std::printf("ordo record-golden: %s refused a case: %s\n", v.id.c_str(), r.status.to_string().c_str());
        return 1;
      }
      f.cases.push_back({std::string(properties::family_name(c.family)), p, std::move(r.y)});
    }
    const std::string path = o.out_dir + "/" + v.id + ".json";
    properties::write_golden_file(f, path);
    std::printf("recorded %d cases of %s on %s into %s\n", o.cases, v.id.c_str(), f.gpu.c_str(), path.c_str());
    ++written;
  }
  return written > 0 ? 0 : 1;
}

}  // namespace

void register_record(CLI::App& app, int& exit_code) {
  static RecordOptions o;
  CLI::App* cmd = app.add_subcommand(
      "record-golden",
      "Record golden vectors: small problems and the output bits of every production variant this GPU runs, one JSON "
      "file per variant (corpus/README.md). CI replays them through the host emulator. Exit 3 without a GPU.");
  cmd->add_option("--cases", o.cases, "cases per variant")->capture_default_str()->check(CLI::Range(1, 10000));
  cmd->add_option("--seed", o.seed, "seed of the generated cases")->capture_default_str();
  cmd->add_option("--out", o.out_dir, "folder for the golden files")->capture_default_str();
  cmd->callback([&exit_code] { exit_code = run_record(o); });
}

}  // namespace ordo::tools
