// Table and JSON output of ordo_bench_forward (bench_report.h).
#include "bench/bench_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include "bench/cublas_reference.h"
#include "bench/tolerance.h"

namespace ordo::bench {
namespace {

std::string dt(DType t) { return std::string(dtype_name(t)); }

double ratio(const Row& r) { return r.cublas_ms > 0 ? r.ms / r.cublas_ms : 0.0; }

}  // namespace

void print_table_header() {
  std::printf("%6s %6s %6s  %-34s %-4s %10s %10s %7s %9s %9s %5s %5s  %s\n", "M", "N", "K", "variant", "out",
              "kernel_ms", "cublas_ms", "ratio", "kern_TF/s", "cubl_TF/s", "reps", "c_rep", "data / check");
}

void print_table_row(const Row& r) {
  const auto M = static_cast<long long>(r.s.M), N = static_cast<long long>(r.s.N), K = static_cast<long long>(r.s.K);
  if (!r.error.empty()) {
    std::printf("%6lld %6lld %6lld  %-34s %-4s  ERROR: %s\n", M, N, K, r.variant.c_str(), dt(r.out).c_str(),
                r.error.c_str());
  } else {
    std::printf("%6lld %6lld %6lld  %-34s %-4s %10.4f %10.4f %7.3f %9.2f %9.2f %5d %5d  %s, %s (%.1e)\n", M, N, K,
                r.variant.c_str(), dt(r.out).c_str(), r.ms, r.cublas_ms, ratio(r), tflops(r.s, r.ms),
                tflops(r.s, r.cublas_ms), r.reps, r.cublas_reps, r.l2_resident ? "L2-resident" : "not L2-resident",
                r.matches ? "match" : "MISMATCH", r.rel_diff);
    if (r.floor_ms > 0)
      std::printf("%6s floor %.4f ms (%s): %.0f%% of it\n", "", r.floor_ms, r.floor.c_str(), 100.0 * r.floor_ms / r.ms);
  }
  std::fflush(stdout);
}

void print_table_footer() {
  std::printf(
      "\nratio = kernel_ms / cublas_ms (lower is better); TF/s = 2*M*N*K / median time. reps, c_rep: timed\n"
      "runs behind the kernel's and cuBLAS's medians. 'L2-resident': x, w and both outputs fit in L2 together\n"
      "and are reused by every rep (warm); otherwise each rep streams from HBM. check: max|y - y_cublas| /\n"
      "max|y_cublas| against the tolerance of the row's dtypes. floor (FP32 rows): the largest of K x FMA latency /\n"
      "clock, M*N*K / FMA peak and (not L2-resident) the bytes of X, W, Y / HBM bandwidth, each measured on this GPU\n"
      "at start; no fixed-order kernel can be faster.\n");
}

void write_json(const std::string& path, const std::vector<Row>& rows, const RunInfo& info) {
  std::ofstream f(path);
  if (!f) die("cannot write " + path);
  f << "{\n  \"bench\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const std::string id = json_escape(r.variant);
    char buf[1536];
    std::snprintf(buf, sizeof buf,
                  "    {\"kernel\": \"%s\", \"variant\": \"%s\", \"mutant\": %s, \"operand_dtype\": \"%s\", "
                  "\"out_dtype\": \"%s\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"ms\": %.6f, \"cublas_ms\": %.6f, "
                  "\"ratio\": %.6f, \"tflops\": %.4f, \"cublas_tflops\": %.4f, \"reps\": %d, \"cublas_reps\": %d, "
                  "\"matches_cublas\": %s, \"max_rel_diff\": %.3e, \"tolerance\": %.3e, \"l2_resident\": %s, "
                  "\"cublas\": \"%s\"",
                  id.c_str(), id.c_str(), r.mutant ? "true" : "false", dt(r.operand).c_str(), dt(r.out).c_str(),
                  static_cast<long long>(r.s.M), static_cast<long long>(r.s.N), static_cast<long long>(r.s.K), r.ms,
                  r.cublas_ms, ratio(r), tflops(r.s, r.ms), tflops(r.s, r.cublas_ms), r.reps, r.cublas_reps,
                  r.matches ? "true" : "false", std::isfinite(r.rel_diff) ? r.rel_diff : -1.0, r.tolerance,
                  r.l2_resident ? "true" : "false", json_escape(r.cublas).c_str());
    f << buf;
    if (r.floor_ms > 0)
      f << ", \"floor_ms\": " << r.floor_ms << ", \"floor\": \"" << r.floor << "\", \"fraction_of_floor\": "
        << (r.ms > 0 ? r.floor_ms / r.ms : 0.0);
    if (!r.error.empty()) f << ", \"error\": \"" << json_escape(r.error) << "\"";
    f << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  f << "  ],\n  \"gpu\": {\"name\": \"" << json_escape(info.gpu_name) << "\", \"sm\": " << info.sm
    << ", \"sm_count\": " << info.sm_count << ", \"l2_bytes\": " << info.l2_bytes
    << ", \"driver_version\": " << info.driver_version << ", \"runtime_version\": " << info.runtime_version
    << ", \"cublas_version\": " << info.cublas_version << ", \"nvidia_tf32_override\": \""
    << json_escape(info.tf32_override) << "\"},\n  \"method\": {\"reps\": " << info.reps
    << ", \"warmup\": " << info.warmup << ", \"max_seconds_per_row\": " << info.max_seconds_per_row
    << ", \"min_reps_when_capped\": " << info.min_reps_when_capped << ", \"statistic\": \"median\", \"cublas\": \""
    << json_escape(CublasReference::describe(DType::f32, DType::f32)) << "\", \"spin_ns\": " << info.spin_ns
    << ", \"tolerance\": " << kTolF32Operands << ", \"tolerances\": {\"f32_operands\": " << kTolF32Operands
    << ", \"bf16_operands_f32_out\": " << kTolBf16F32Out
    << ", \"bf16_operands_bf16_out\": \"bf16 ulp of max|y_cublas| / max|y_cublas| + " << kTolBf16F32Out << "\"}}\n}\n";
  if (!f) die("error writing " + path);
}

}  // namespace ordo::bench
