#include "tools/result_printing.h"

#include <cstdio>

namespace ordo::tools {

void print_row(const reports::ResultRow& row) {
  const auto& r = row.run;
  const std::string v = row.verdict();
  std::printf("  %-6s %-42s %-34s %7lld cases %4lld failed %6lld skipped %8.1f s\n",
              v == "pass" ? "PASS" : v == "inconclusive" ? "SKIP" : "FAIL", r.name.c_str(), r.kernel.c_str(),
              static_cast<long long>(r.cases), static_cast<long long>(r.failed), static_cast<long long>(r.skipped),
              r.seconds);
  if (v != "pass" && v != "inconclusive")
    for (const auto& f : r.failures) std::printf("         %s\n         reproduce: %s\n", f.detail.c_str(), f.reproduce.c_str());
  std::fflush(stdout);
}

}  // namespace ordo::tools
