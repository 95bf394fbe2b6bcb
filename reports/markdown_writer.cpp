#include <cstdio>
#include <sstream>

#include "core/build_info.h"
#include "reports/report.h"

namespace ordo::reports {
namespace {

std::string fmt_double(double v, const char* f = "%.3g") {
  char buf[32];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string to_markdown(const Report& r) {
  std::ostringstream md;
  md << "# ordo report\n\n";
  md << "- verdict: **"
     << (r.interrupted ? "INTERRUPTED (the rows below ran before the stop)"
         : r.all_passed() ? (r.any_inconclusive() ? "pass (some checks did not run)" : "pass")
                          : "FAIL")
     << "**\n";
  md << "- command: `" << r.command << "`\n";
  md << "- seed: " << r.seed << ", level: " << r.level << ", started " << r.started_at << ", "
     << fmt_double(r.seconds, "%.1f") << " s\n";
  md << "- ordo " << build_version() << " at " << build_git_commit() << (build_git_dirty() ? " (dirty tree)" : "")
     << "\n";
  md << "- host: " << r.environment.cpu << ", " << r.environment.cpu_threads << " threads\n";
  if (r.environment.gpu) {
    const GpuInfo& g = *r.environment.gpu;
    md << "- GPU: " << g.name << ", sm_" << g.sm << ", " << g.sm_count << " SMs, driver " << g.driver
       << ", CUDA runtime " << g.cuda_runtime << "\n";
  } else {
    md << "- GPU: none (" << r.environment.gpu_absent_reason << ")\n";
  }
  md << "\n| property | kernel | backend | verdict | cases | failed | skipped | elements | max error/bound |\n";
  md << "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const ResultRow& row : r.results) {
    const auto& run = row.run;
    md << "| " << run.name << " | `" << run.kernel << "` | " << run.backend << " | " << row.verdict() << " | "
       << run.cases << " | " << run.failed << " | " << run.skipped << " | " << run.elements << " | "
       << (run.max_error_over_bound > 0 ? fmt_double(run.max_error_over_bound) : "-") << " |\n";
  }
  bool any_skip = false;
  for (const ResultRow& row : r.results)
    if (!row.run.skip_reason.empty()) {
      if (!any_skip) md << "\n## Not run\n\n";
      any_skip = true;
      md << "- " << row.run.name << " (`" << row.run.kernel << "`): " << row.run.skip_reason << "\n";
    }
  md << "\n## Value families and shape classes per property\n\n";
  for (const ResultRow& row : r.results) {
    if (row.run.families.empty()) continue;
    md << "- " << row.run.name << " (`" << row.run.kernel << "`):";
    for (const auto& [name, count] : row.run.families) md << " " << name << " " << count << ";";
    if (!row.run.shape_classes.empty()) {
      md << " shapes:";
      for (const auto& [name, count] : row.run.shape_classes) md << " " << name << " " << count << ";";
    }
    md << "\n";
  }
  bool any_tightness = false;
  for (const ResultRow& row : r.results) {
    if (row.run.max_error_over_bound_by_family.empty()) continue;
    if (!any_tightness) md << "\n## Tightness of the error bound (max error / bound) per value family\n\n";
    any_tightness = true;
    md << "- " << row.run.name << " (`" << row.run.kernel << "`, " << row.run.contract << "):";
    for (const auto& [name, ratio] : row.run.max_error_over_bound_by_family) md << " " << name << " " << fmt_double(ratio) << ";";
    if (row.run.max_relative_error > 0)
      md << " max relative error against the exact result " << fmt_double(row.run.max_relative_error)
         << ", max normwise " << fmt_double(row.run.max_normwise_relative_error) << ";";
    md << "\n";
  }
  bool any_failure = false;
  for (const ResultRow& row : r.results) {
    for (const auto& f : row.run.failures) {
      if (!any_failure) md << "\n## Failures" << " (self-test rows expect one)\n";
      any_failure = true;
      md << "\n### " << row.run.name << " on `" << row.run.kernel << "`\n\n";
      md << "- reproduce: `" << f.reproduce << "`\n- found: " << f.original << "\n- detail: " << f.detail << "\n";
      if (!f.minimised.empty()) md << "- minimised (" << f.shrink_steps << " steps):\n\n```\n" << f.minimised << "\n```\n";
    }
  }
  if (!r.bench.empty()) {
    md << "\n## Bench\n\n| kernel | M | N | K | ms | cuBLAS ms | ratio |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (const auto& b : r.bench)
      md << "| `" << b.value("kernel", "") << "` | " << b.value("M", 0) << " | " << b.value("N", 0) << " | "
         << b.value("K", 0) << " | " << fmt_double(b.value("ms", 0.0), "%.4f") << " | "
         << fmt_double(b.value("cublas_ms", 0.0), "%.4f") << " | " << fmt_double(b.value("ratio", 0.0), "%.2f") << " |\n";
  }
  return md.str();
}

}  // namespace ordo::reports
