#pragma once
#include "reports/report.h"

namespace ordo::tools {

// One line per result row (PASS / SKIP / FAIL, property, kernel, counts, time); failures add their
// detail and reproduce command.
void print_row(const reports::ResultRow& row);

}  // namespace ordo::tools
