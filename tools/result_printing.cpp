#include "tools/result_printing.h"

#include <cstdio>

#include "reports/row_text.h"

namespace ordo::tools {

void print_row(const reports::ResultRow& row) {
  const auto& r = row.run;
  const std::string v = row.verdict();
  // "27 relations" for `ordo check`'s invariance rows: pairs of outputs, not cases.
  std::printf("  %-6s %-42s %-34s %7lld %-9s %4lld failed %6lld skipped %8.1f s\n",
              v == "pass"           ? "PASS"
              : v == "inconclusive" ? "SKIP"
                                    : "FAIL",
              r.name.c_str(), r.kernel.c_str(), static_cast<long long>(r.cases),
              reports::unit_for(r.cases, r.unit).c_str(), static_cast<long long>(r.failed),
              static_cast<long long>(r.skipped), r.seconds);
  if (v != "pass" && v != "inconclusive") {
    // The console shows the first few; the report keeps them all.
    constexpr std::size_t kShown = 3;
    for (std::size_t i = 0; i < r.failures.size() && i < kShown; ++i)
      std::printf("         %s\n         reproduce: %s\n", r.failures[i].detail.c_str(), r.failures[i].reproduce.c_str());
    if (r.failures.size() > kShown) std::printf("         ... %zu more in the report\n", r.failures.size() - kShown);
  }
  std::fflush(stdout);
}

}  // namespace ordo::tools
