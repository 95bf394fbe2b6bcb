#include <cstdio>
#include <filesystem>

#include "subjects/forward_subject.h"
#include "subjects/backward_subject.h"
#include "core/build_info.h"
#include "core/contract_file.h"
#include "kernels/backward_api.h"
#include "kernels/forward_api.h"
#include "properties/backward_case.h"
#include "protocol/corpus_entry.h"
#include "properties/forward_case.h"
#include "properties/suite.h"
#include "tools/cli_values.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"

namespace ordo::tools {
namespace {

struct RecordOptions {
  int cases = 30;
  std::uint64_t seed = 1;
  std::string out_dir = "corpus/golden";
};

std::string gpu_text(const kernels::DeviceInfo& gpu) {
  return gpu.name + ", sm_" + std::to_string(gpu.sm) + ", CUDA driver API " + std::to_string(gpu.driver_version);
}

// One golden entry (ordo.corpus/1, corpus/README.md) of a variant, cases to follow.
protocol::CorpusEntry golden_entry(const KernelVariant& v, const kernels::DeviceInfo& gpu) {
  protocol::CorpusEntry e;
  e.kind = protocol::EntryKind::golden;
  e.why = protocol::golden_why(v.id, v.contract_id);
  e.contract = resolve_contract(v.contract_id);
  e.subject = v.id;
  e.gpu = gpu_text(gpu);
  e.commit = build_git_commit();
  return e;
}

// Backward variants: dX cases for dX variants, dW/db cases (keys of width 0, 2 or 3, padding rows) for
// dW variants, one entry each, beside the forward ones. Returns the number of files written.
int record_backward(const RecordOptions& o, const kernels::DeviceInfo& gpu) {
  const properties::ShapeLimits limits{.max_m = 24, .max_n = 24, .max_k = 70, .max_volume = 1 << 12};
  int written = 0;
  for (const auto* list : {&kernels::backward_data_variants(), &kernels::backward_weight_variants()}) {
    for (const KernelVariant& v : *list) {
      if (v.is_mutant || !v.runs_on(gpu.sm)) continue;
      const bool is_data = list == &kernels::backward_data_variants();
      auto kernel = make_backward_cuda_subject(v.id);
      protocol::CorpusEntry f = golden_entry(v, gpu);
      const auto gen =
          properties::gen_forward_case(limits, properties::all_families(), properties::backward_case_options(kernel->traits()));
      rc::Random root(o.seed);
      for (int i = 0; i < o.cases; ++i) {
        const properties::ForwardCase c = gen(root.split(), rc::kNominalSize).value();
        protocol::CorpusCase g;
        g.label = std::string(properties::family_name(c.family));
        Status status;
        if (is_data) {
          g.data = properties::data_problem(c);
          BackendResult r = kernel->data(*g.data);
          status = r.status;
          g.expected = std::move(r.y);
        } else {
          const std::int64_t width = c.seed % 3 == 0 ? 0 : 2 + static_cast<std::int64_t>(c.seed % 2);
          BackwardWeightProblem p = properties::weight_problem(c, width);
          if (width > 0) p = properties::with_padding(p, static_cast<std::int64_t>((c.seed >> 8) % 4), c.seed ^ 0x676f6cull);
          g.weight = p;
          BackwardWeightRun r = kernel->weight({p});
          status = r.status;
          g.expected = std::move(r.result.dw);
          g.expected_db = std::move(r.result.db);
        }
        if (!status.ok()) {
          std::printf("ordo record-golden: %s refused a case: %s\n", v.id.c_str(), status.to_string().c_str());
          return written;
        }
        f.cases.push_back(std::move(g));
      }
      const std::string path = o.out_dir + "/" + v.id + ".json";
      protocol::write_corpus_entry(path, f);
      std::printf("recorded %d cases of %s on %s into %s\n", o.cases, v.id.c_str(), f.gpu.c_str(), path.c_str());
      ++written;
    }
  }
  return written;
}

int run_record(const RecordOptions& o) {
  const kernels::DeviceInfo gpu = kernels::device_info(0);
  if (!gpu.present) {
    std::printf("ordo record-golden: not run: no usable CUDA device (%s)\n", gpu.reason.c_str());
    return kExitNothingRan;
  }
  std::filesystem::create_directories(o.out_dir);
  // Small shapes across the tile edges and every value family: cheap to store, cheap to replay.
  const properties::ShapeLimits limits{.max_m = 33, .max_n = 33, .max_k = 70, .max_volume = 1 << 12};
  int written = 0;
  for (const KernelVariant& v : kernels::forward_variants()) {
    if (v.is_mutant || !v.runs_on(gpu.sm)) continue;
    auto kernel = make_cuda_forward_subject(v.id);
    protocol::CorpusEntry f = golden_entry(v, gpu);
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
        return kExitFail;
      }
      f.cases.push_back({std::string(properties::family_name(c.family)), p, {}, {}, std::move(r.y), {}, ""});
    }
    const std::string path = o.out_dir + "/" + v.id + ".json";
    protocol::write_corpus_entry(path, f);
    std::printf("recorded %d cases of %s on %s into %s\n", o.cases, v.id.c_str(), f.gpu.c_str(), path.c_str());
    ++written;
  }
  written += record_backward(o, gpu);
  if (written == 0) std::printf("ordo record-golden: no variant runs on this GPU: nothing recorded\n");
  return written > 0 ? kExitPass : kExitNothingRan;
}

}  // namespace

void register_record(CLI::App& app, int& exit_code) {
  static RecordOptions o;
  CLI::App* cmd = app.add_subcommand(
      "record-golden",
      "Record golden vectors: small problems and the output bits of every production variant this GPU runs, one "
      "ordo.corpus/1 entry per variant (corpus/README.md), forward and backward variants alike, into --out. CI replays "
      "them through the host emulator (ordo replay). Exit 3 without a GPU.");
  cmd->add_option("--cases", o.cases, "cases per variant")->capture_default_str()->check(CLI::Range(1, 10000));
  cmd->add_option("--seed", o.seed, "seed of the generated cases")->capture_default_str()->check(seed_value());
  cmd->add_option("--out", o.out_dir, "folder for the golden entries")->capture_default_str();
  cmd->callback([&exit_code] { exit_code = run_record(o); });
}

}  // namespace ordo::tools
