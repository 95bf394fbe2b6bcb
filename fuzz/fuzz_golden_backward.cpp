// libFuzzer target: the ordo.golden-backward/1 reader (protocol/golden_backward.h,
// parse_golden_backward_text). Documented failure: CorpusError. Promise for an accepted file: every
// case holds exactly one problem, which passes ordo::validate, and outputs of the problem's shape.
#include "core/checked_size.h"
#include "fuzz/fuzz_support.h"
#include "protocol/golden_backward.h"
#include "protocol/strict_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  try {
    const protocol::GoldenBackwardFile f =
        protocol::parse_golden_backward_text(fuzz::as_text(data, size), fuzz::kWhere);
    ORDO_FUZZ_REQUIRE(!f.cases.empty(), "an accepted file has cases");
    for (const protocol::GoldenBackwardCase& c : f.cases) {
      ORDO_FUZZ_REQUIRE(c.data.has_value() != c.weight.has_value(), "a case is dX or dW, not both");
      if (c.data) {
        ORDO_FUZZ_REQUIRE(validate(*c.data).ok(), "every dX problem read passes validate");
        ORDO_FUZZ_REQUIRE(holds_exactly(c.dx.size(), c.data->M, c.data->K), "dx holds M*K values");
      } else {
        const BackwardWeightProblem& p = *c.weight;
        ORDO_FUZZ_REQUIRE(validate(p).ok(), "every dW problem read passes validate");
        ORDO_FUZZ_REQUIRE(holds_exactly(c.dw.dw.size(), p.N, p.K), "dw holds N*K values");
        ORDO_FUZZ_REQUIRE(c.dw.db.has_value() == p.with_bias_grad, "db exactly with a bias gradient");
        ORDO_FUZZ_REQUIRE(!c.dw.db || holds_exactly(c.dw.db->size(), 1, p.N), "db holds N values");
        // The order the emulator would reduce in: must be computable for every problem accepted.
        ORDO_FUZZ_REQUIRE(token_order(p).rows.size() <= static_cast<std::size_t>(p.T), "token order within T");
      }
    }
  } catch (const protocol::CorpusError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a CorpusError names the file first");
  }
  return 0;
}
