#pragma once
// The console side of `ordo selftest`: one line per mutant (verdict, side, the property and value family
// that killed it, cases and seconds, then its minimised counterexample), the summary, the zoo for --list.
#include <string>
#include <vector>

#include "properties/property_runner.h"
#include "subjects/mutants/mutant_zoo.h"

namespace ordo::tools {

void print_mutant_row(const PropertyRun& row, const std::string& side);
void print_selftest_summary(const std::vector<PropertyRun>& rows);
void print_zoo(const std::vector<mutants::MutantInfo>& zoo);

}  // namespace ordo::tools
