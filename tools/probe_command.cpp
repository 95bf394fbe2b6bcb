#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "core/atomic_file.h"
#include "kernels/forward_api.h"
#include "kernels/probe_api.h"
#include "properties/tc_probe.h"
#include "reports/report.h"
#include "subjects/environment_probe.h"
#include "tools/cli_values.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/report_command_common.h"
#include "tools/result_printing.h"

namespace ordo::tools {
namespace {

struct ProbeCommandOptions {
  int tiles = 4000;
  std::uint64_t seed = 1;
  std::string out_dir = "ordo-probe";
};

int run_probe(const ProbeCommandOptions& o, const std::string& command_line) {
  try {
    require_writable_folder(o.out_dir);  // before the work, not after it
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo probe: %s\n", e.what());
    return kExitUnwritable;
  }
  reports::Report report;
  report.command = command_line;
  report.seed = o.seed;
  report.started_at = reports::utc_now_iso8601();
  report.environment = probe_environment(true);
  if (!report.environment.gpu) {
    std::printf("ordo probe: not run: no usable CUDA device (%s)\n", report.environment.gpu_absent_reason.c_str());
    return kExitNothingRan;
  }
  const auto start = std::chrono::steady_clock::now();
  properties::ProbeOptions po;
  po.random_tiles = o.tiles;
  po.seed = o.seed;
  po.device_sm = report.environment.gpu->sm;
  std::printf("ordo probe: %s (sm_%d), %d random tiles (%d outputs), seed %llu\n", report.environment.gpu->name.c_str(),
              po.device_sm, o.tiles, o.tiles * 256, static_cast<unsigned long long>(o.seed));
  auto add = [&report](PropertyRun run) {
    reports::ResultRow row{std::move(run)};
    print_row(row);
    report.results.push_back(std::move(row));
  };
  for (PropertyRun& run : properties::run_tc_probe(&kernels::run_bf16_mma_tiles, po)) add(std::move(run));
  // wgmma, through the sm90 wgmma tile's own pipeline in probe mode, in every instruction form the
  // forward, dX and dW variants issue: the same measurements, and whether a disabled accumulator (scale-d = 0)
  // equals C = +0.
  if (po.device_sm == 90) {
    for (const kernels::WgmmaForm form :
         {kernels::WgmmaForm::n256_b_k_major, kernels::WgmmaForm::n128_b_k_major, kernels::WgmmaForm::n256_b_n_major,
          kernels::WgmmaForm::n128_b_n_major, kernels::WgmmaForm::n256_a_m_major_b_n_major,
          kernels::WgmmaForm::n128_a_m_major_b_n_major, kernels::WgmmaForm::n64_b_k_major,
          kernels::WgmmaForm::n64_b_n_major, kernels::WgmmaForm::n168_b_k_major, kernels::WgmmaForm::n32_b_k_major,
          kernels::WgmmaForm::n48_b_k_major}) {
      properties::ProbeOptions pw = po;
      pw.instruction = std::string(kernels::wgmma_form_name(form)) + " (TMA-fed, as in the sm90 wgmma variants)";
      const properties::TileRunner with_c = [form](const auto& a, const auto& bt, const auto& c, auto& d, int tiles) {
        return kernels::run_bf16_wgmma_tiles(a, bt, c, d, tiles, false, form);
      };
      const properties::TileRunner disabled = [form](const auto& a, const auto& bt, const auto& c, auto& d, int tiles) {
        return kernels::run_bf16_wgmma_tiles(a, bt, c, d, tiles, true, form);
      };
      for (PropertyRun& run : properties::run_tc_probe(with_c, pw)) add(std::move(run));
      add(properties::run_accumulator_disabled_probe(with_c, disabled, pw));
    }
  } else {
    std::printf("wgmma probes: not run (wgmma is an sm_90a instruction; this GPU is sm_%d)\n", po.device_sm);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!write_report_files(report, o.out_dir + "/probe.json", o.out_dir + "/probe.md", nullptr, "probe"))
    return kExitUnwritable;
  std::printf("\n%s (%.1f s)\nreport: %s/probe.json, %s/probe.md\n", report.all_passed() ? "PASS" : "FAIL",
              report.seconds, o.out_dir.c_str(), o.out_dir.c_str());
  return exit_code_of(report);
}

}  // namespace

void register_probe(CLI::App& app, int& exit_code, const std::string& command_line) {
  static ProbeCommandOptions o;
  CLI::App* cmd = app.add_subcommand(
      "probe",
      "Measure the BF16 tensor-core arithmetic of the GPU at hand against the T-FDPA model: a random differential "
      "test against every known parameter set, and targeted probes (rounding, truncation, NaN bits, Inf rules, sign "
      "of an exact zero, overflow, subnormals). Exit 0 only if the expected set matches everywhere; 3 without a GPU.");
  cmd->add_option("--tiles", o.tiles, "random 16x16x16 tiles (256 outputs each)")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--seed", o.seed, "seed of the random tiles")->capture_default_str()->check(seed_value());
  cmd->add_option("--out", o.out_dir, "folder for probe.json and probe.md")->capture_default_str();
  cmd->callback([&exit_code, &command_line] { exit_code = run_probe(o, command_line); });
}

}  // namespace ordo::tools
