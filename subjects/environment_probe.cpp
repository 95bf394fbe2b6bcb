#include "subjects/environment_probe.h"

#include <unistd.h>

#include <fstream>
#include <thread>

#include "kernels/forward_api.h"

namespace ordo {
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

}  // namespace ordo
