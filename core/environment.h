#pragma once
#include <optional>
#include <string>

namespace ordo {

// Where a run happened, as reports record it.
struct GpuInfo {
  std::string name;
  int sm = 0;
  std::string driver;        // "13.0"
  std::string cuda_runtime;  // "13.0"
  int sm_count = 0;
};

struct Environment {
  std::string host;
  std::string cpu;
  unsigned cpu_threads = 0;
  std::optional<GpuInfo> gpu;
  std::string gpu_absent_reason;  // why gpu is null
};

}  // namespace ordo
