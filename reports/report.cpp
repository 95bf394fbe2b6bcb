#include "reports/report.h"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "kernels/forward_api.h"

namespace ordo::reports {

std::string ResultRow::verdict() const {
  if (run.tool_errors > 0) return "tool_error";
  if (run.cases == 0 && skipped > 0) return "inconclusive";
  if (run.expect_failure) return run.failed > 0 ? "pass" : "mutant_missed";
  if (run.failed == 0) return "pass";
  return run.name.find("bound") != std::string::npos ? "bound_violation" : "mismatch";
}

bool Report::all_passed() const {
  for (const ResultRow& r : results) {
    const std::string v = r.verdict();
    if (v != "pass" && v != "inconclusive") return false;
  }
  return true;
}

bool Report::any_inconclusive() const {
  for (const ResultRow& r : results)
    if (r.verdict() == "inconclusive") return true;
  return false;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace

Environment probe_environment(bool with_gpu) {
  Environment e;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  e.host = host;
  e.cpu = cpu_model();
  e.cpu_threads = std::thread::hardware_concurrency();
  if (!with_gpu) {
    e.gpu_absent_reason = "GPU not requested";
    return e;
  }
  const kernels::DeviceInfo d = kernels::device_info(0);
  if (!d.present) {
    e.gpu_absent_reason = d.reason;
    return e;
  }
  e.gpu = GpuInfo{d.name, d.sm, version_string(d.driver_version), version_string(d.runtime_version), d.sm_count};
  return e;
}

}  // namespace ordo::reports
