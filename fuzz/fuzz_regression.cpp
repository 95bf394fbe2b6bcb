// libFuzzer target: the ordo.regression/1 reader (protocol/regression_corpus.h,
// parse_regression_text), shared with tests/host/backward_regression_test.cpp. Documented failure:
// CorpusError. Promise for an accepted file: every case's problem passes ordo::validate and its
// expected dW/db have the problem's shape.
#include "core/checked_size.h"
#include "fuzz/fuzz_support.h"
#include "protocol/regression_corpus.h"
#include "protocol/strict_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  try {
    const protocol::RegressionFile f = protocol::parse_regression_text(fuzz::as_text(data, size), fuzz::kWhere);
    ORDO_FUZZ_REQUIRE(!f.cases.empty(), "an accepted file has cases");
    for (const protocol::RegressionCase& c : f.cases) {
      const BackwardWeightProblem& p = c.problem;
      ORDO_FUZZ_REQUIRE(validate(p).ok(), "every regression problem passes validate");
      ORDO_FUZZ_REQUIRE(holds_exactly(c.expected.dw.size(), p.N, p.K), "dw holds N*K values");
      ORDO_FUZZ_REQUIRE(c.expected.db.has_value() == p.with_bias_grad, "db exactly with a bias gradient");
      ORDO_FUZZ_REQUIRE(token_order(p).rows.size() <= static_cast<std::size_t>(p.T), "token order within T");
    }
  } catch (const protocol::CorpusError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a CorpusError names the file first");
  }
  return 0;
}
