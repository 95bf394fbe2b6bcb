#pragma once
// Rows of ordo_bench_forward and their two outputs: the stdout table and the --json file.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "core/dtype.h"

namespace ordo::bench {

struct Row {
  Shape s;
  std::string variant;
  bool mutant = false;
  DType operand = DType::f32;
  DType out = DType::f32;
  std::string cublas;             // what the reference called (CublasReference::describe)
  double ms = 0, cublas_ms = 0;   // medians
  int reps = 0, cublas_reps = 0;  // timed runs behind each median
  double rel_diff = 0;            // max|y_kernel - y_cublas| / max|y_cublas| (NaN if any difference is NaN)
  double tolerance = 0;           // the bound rel_diff was held to
  bool matches = false;
  bool l2_resident = false;
  double floor_ms = 0;  // the strict chain's physical floor (bench/physical_floors.h); 0: not modelled (BF16)
  std::string floor;    // which floor: "chain latency", "FMA peak", "HBM bandwidth"
  std::string error;  // non-empty: the kernel call was refused or failed; no timing
};

struct RunInfo {
  std::string gpu_name;
  int sm = 0, sm_count = 0, l2_bytes = 0;
  int driver_version = 0, runtime_version = 0, cublas_version = 0;
  std::string tf32_override;
  int reps = 0, warmup = 0;
  double max_seconds_per_row = 0;
  int min_reps_when_capped = 0;
  std::uint64_t spin_ns = 0;
};

void print_table_header();
void print_table_row(const Row& r);
void print_table_footer();
// Exits 1 if the file cannot be written.
void write_json(const std::string& path, const std::vector<Row>& rows, const RunInfo& info);

}  // namespace ordo::bench
