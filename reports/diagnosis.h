#pragma once
// One line per failing row that says what its failure means, where the property and the verdict make that
// clear: an invariance that fails says which dependence the bits show, a contract mismatch whose error bound
// held says the result is right but in another order. The lines are a table (diagnosis.cpp), not logic
// spread over the writers.
#include <cstddef>
#include <string>

#include "reports/report.h"

namespace ordo::reports {

// The diagnosis of r.results[row], or "" when the row does not fail or no rule fits it.
std::string diagnosis(const Report& r, std::size_t row);

}  // namespace ordo::reports
