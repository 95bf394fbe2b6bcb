// libFuzzer target: the ordo.contract/1 parser (core/contract_file.h, contract_from_text). Documented
// failure: ContractFileError. Promises for an accepted contract: its plan is consistent
// (plan_problem is empty), and it survives contract_to_json and a second parse unchanged.
#include "core/contract_file.h"
#include "core/reduction_plan.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  try {
    const Contract c = contract_from_text(fuzz::as_text(data, size), fuzz::kWhere);
    ORDO_FUZZ_REQUIRE(plan_problem(c.plan, c.kind).empty(), "an accepted plan is consistent");
    const std::string once = contract_to_json(c).dump();
    Contract again;
    try {
      again = contract_from_text(once, "<round trip>");
    } catch (const ContractFileError& e) {
      std::fprintf(stderr, "round trip refused: %s\n%s\n", e.what(), once.c_str());
      ORDO_FUZZ_REQUIRE(false, "contract_to_json writes what contract_from_text reads");
    }
    ORDO_FUZZ_REQUIRE(contract_to_json(again).dump() == once, "the round trip keeps every field");
  } catch (const ContractFileError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a ContractFileError names the file first");
  }
  return 0;
}
