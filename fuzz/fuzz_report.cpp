// libFuzzer target: the ordo.report/1 reader (reports/report_reader.h, parse_report), which `ordo report`
// renders every tool's report through. Documented failure: ReportReadError, "SOURCE: FIELD: what" (the
// source first). Promise for an accepted report: re-serialised with reports::to_json and read again it
// gives the same JSON (the verdicts it recomputes from the counts included).
#include <string>

#include "fuzz/fuzz_support.h"
#include "reports/report.h"
#include "reports/report_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  try {
    const reports::Report r = reports::parse_report(std::string(fuzz::as_text(data, size)), fuzz::kWhere);
    // As a file holds it: NaN and the infinities are written as null, and read back as NaN.
    const std::string once = reports::to_json(r).dump();
    reports::Report again;
    try {
      again = reports::parse_report(once, "<round trip>");
    } catch (const reports::ReportReadError& e) {
      std::fprintf(stderr, "round trip refused: %s\n%s\n", e.what(), once.c_str());
      ORDO_FUZZ_REQUIRE(false, "to_json writes what parse_report reads");
    }
    const std::string twice = reports::to_json(again).dump();
    if (twice != once) std::fprintf(stderr, "once:  %s\ntwice: %s\n", once.c_str(), twice.c_str());
    ORDO_FUZZ_REQUIRE(twice == once, "the round trip keeps every field");
  } catch (const reports::ReportReadError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a ReportReadError names the report first");
  }
  return 0;
}
