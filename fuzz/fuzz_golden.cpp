// libFuzzer target: the ordo.golden/1 reader (protocol/golden_corpus.h, parse_golden_text).
// Documented failure: CorpusError. Promise for an accepted file: at least one case, and every problem
// shape-consistent (M, N, K >= 1, x [M*K], w [N*K], bias [N]) with y [M*N].
#include "core/checked_size.h"
#include "fuzz/fuzz_support.h"
#include "protocol/golden_corpus.h"
#include "protocol/strict_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  try {
    const protocol::GoldenFile f = protocol::parse_golden_text(fuzz::as_text(data, size), fuzz::kWhere);
    ORDO_FUZZ_REQUIRE(!f.cases.empty(), "an accepted golden file has cases");
    for (const protocol::GoldenCase& c : f.cases) {
      ORDO_FUZZ_REQUIRE(c.problem.shapes_consistent(), "every golden problem is shape-consistent");
      ORDO_FUZZ_REQUIRE(holds_exactly(c.y.size(), c.problem.M, c.problem.N), "y holds M*N values");
    }
  } catch (const protocol::CorpusError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a CorpusError names the file first");
  }
  return 0;
}
