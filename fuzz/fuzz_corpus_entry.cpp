// libFuzzer target: the ordo.corpus/1 entry reader (protocol/corpus_entry.h, parse_corpus_entry_text), the
// one corpus/golden, corpus/regressions and corpus/failures are read with. Only the JSON text is fuzzed: the
// .npy folder is an empty one, so an {"npy", "sha256"} reference must be refused like any other defect.
// Documented failure: CorpusError, its message naming the source first. Promises for an accepted entry
// (corpus_entry.h, corpus_tensor.h): a contract with a consistent plan; golden and regression entries hold
// at least one case, failure entries at most one and exactly then a failure block; every case holds exactly
// one problem, of the contract's operation, that passes the contract's checks (check_dot_problem, validate),
// with an expected output of its shape (and db exactly with a bias gradient); operands of a bf16 contract are
// bfloat16; every recorded digest is a SHA-256 in hex, and an observed output matches its digest and the
// shape of the entry's case.
#include <cstdlib>
#include <string>

#include "core/checked_size.h"
#include "core/float_bits.h"
#include "core/reduction_plan.h"
#include "fuzz/fuzz_support.h"
#include "core/problem_checks.h"
#include "protocol/corpus_entry.h"
#include "protocol/sha256.h"
#include "protocol/strict_json.h"

namespace {

// An empty folder made once: no .npy file is ever beside the fuzzed entry.
const std::string& empty_npy_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/ordo-fuzz-corpus-entry-XXXXXX";
    const char* d = mkdtemp(tmpl);
    ORDO_FUZZ_REQUIRE(d != nullptr, "an empty folder for .npy look-ups");
    return std::string(d);
  }();
  return dir;
}

bool all_bf16(const std::vector<float>& v) {
  for (const float f : v)
    if ((ordo::bits_of(f) & 0xFFFFu) != 0) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  using protocol::EntryKind;
  try {
    const protocol::CorpusEntry e =
        protocol::parse_corpus_entry_text(fuzz::as_text(data, size), fuzz::kWhere, empty_npy_dir());
    const Contract& k = e.contract;
    ORDO_FUZZ_REQUIRE(plan_problem(k.plan, k.kind).empty(), "the entry's contract has a consistent plan");
    const bool bf16 = k.plan.operand_dtype == DType::bf16;
    if (e.kind == EntryKind::failure) {
      ORDO_FUZZ_REQUIRE(e.failure.has_value(), "a failure entry has its failure block");
      ORDO_FUZZ_REQUIRE(e.cases.size() <= 1, "a failure entry holds at most one case");
      ORDO_FUZZ_REQUIRE(e.cases.empty() || k.kind == ContractKind::forward, "only forward failures hold a case");
    } else {
      ORDO_FUZZ_REQUIRE(!e.failure.has_value(), "only failure entries have a failure block");
      ORDO_FUZZ_REQUIRE(!e.cases.empty(), "golden and regression entries hold cases");
    }
    for (const protocol::CorpusCase& c : e.cases) {
      ORDO_FUZZ_REQUIRE(c.forward.has_value() + c.data.has_value() + c.weight.has_value() == 1,
                        "a case holds exactly one problem");
      ORDO_FUZZ_REQUIRE(protocol::is_sha256_hex(c.expected_sha256), "the expected digest is a SHA-256");
      switch (k.kind) {
        case ContractKind::forward: {
          ORDO_FUZZ_REQUIRE(c.forward.has_value(), "a forward contract's case is a forward problem");
          const ForwardProblem& p = *c.forward;
          ORDO_FUZZ_REQUIRE(p.shapes_consistent(), "the forward problem is shape-consistent");
          ORDO_FUZZ_REQUIRE(check_dot_problem(k.plan, p).ok(), "the forward problem passes the contract");
          ORDO_FUZZ_REQUIRE(holds_exactly(c.expected.size(), p.M, p.N), "y holds M*N values");
          ORDO_FUZZ_REQUIRE(!c.expected_db.has_value(), "no db in a forward case");
          ORDO_FUZZ_REQUIRE(!bf16 || (all_bf16(p.x) && all_bf16(p.w)), "bf16 operands under a bf16 contract");
          break;
        }
        case ContractKind::backward_data: {
          ORDO_FUZZ_REQUIRE(c.data.has_value(), "a dX contract's case is a dX problem");
          const BackwardDataProblem& p = *c.data;
          ORDO_FUZZ_REQUIRE(validate(p).ok(), "the dX problem passes validate");
          ORDO_FUZZ_REQUIRE(p.bf16_operands == bf16, "operand dtype of the contract");
          ORDO_FUZZ_REQUIRE(holds_exactly(c.expected.size(), p.M, p.K), "dx holds M*K values");
          ORDO_FUZZ_REQUIRE(!c.expected_db.has_value(), "no db in a dX case");
          ORDO_FUZZ_REQUIRE(!bf16 || (all_bf16(p.g) && all_bf16(p.w)), "bf16 operands under a bf16 contract");
          break;
        }
        case ContractKind::backward_weight: {
          ORDO_FUZZ_REQUIRE(c.weight.has_value(), "a dW contract's case is a dW problem");
          const BackwardWeightProblem& p = *c.weight;
          ORDO_FUZZ_REQUIRE(validate(p).ok(), "the dW problem passes validate");
          ORDO_FUZZ_REQUIRE(p.bf16_operands == bf16, "operand dtype of the contract");
          ORDO_FUZZ_REQUIRE(holds_exactly(c.expected.size(), p.N, p.K), "dw holds N*K values");
          ORDO_FUZZ_REQUIRE(c.expected_db.has_value() == p.with_bias_grad, "db exactly with a bias gradient");
          ORDO_FUZZ_REQUIRE(!c.expected_db || c.expected_db->size() == static_cast<std::size_t>(p.N), "db holds N values");
          ORDO_FUZZ_REQUIRE(!bf16 || (all_bf16(p.x) && all_bf16(p.g)), "bf16 operands under a bf16 contract");
          break;
        }
      }
    }
    if (e.failure) {
      const protocol::FailureDetails& d = *e.failure;
      const protocol::FailureCase& fc = d.minimised_case;
      ORDO_FUZZ_REQUIRE(fc.M >= 1 && fc.N >= 1 && fc.K >= 1, "the minimised case has a shape");
      ORDO_FUZZ_REQUIRE(d.case_index >= -1, "case_index is -1 or an index");
      if (fc.explicit_values) {
        const ForwardProblem& p = *fc.explicit_values;
        ORDO_FUZZ_REQUIRE(p.shapes_consistent(), "explicit values are shape-consistent");
        ORDO_FUZZ_REQUIRE(p.M == fc.M && p.N == fc.N && p.K == fc.K, "explicit values of the case's shape");
        ORDO_FUZZ_REQUIRE(p.bias.has_value() == fc.has_bias, "an explicit bias exactly with has_bias");
      }
      if (!e.cases.empty()) {
        const ForwardProblem& p = *e.cases[0].forward;
        ORDO_FUZZ_REQUIRE(p.M == fc.M && p.N == fc.N && p.K == fc.K, "case 0 is the minimised case's shape");
      }
      if (!d.observed_sha256.empty() || d.observed)
        ORDO_FUZZ_REQUIRE(protocol::is_sha256_hex(d.observed_sha256), "the observed digest is a SHA-256");
      if (d.observed) {
        ORDO_FUZZ_REQUIRE(!e.cases.empty(), "observed values need the entry's case");
        const ForwardProblem& p = *e.cases[0].forward;
        ORDO_FUZZ_REQUIRE(holds_exactly(d.observed->size(), p.M, p.N), "observed holds M*N values");
        ORDO_FUZZ_REQUIRE(protocol::values_sha256(*d.observed) == d.observed_sha256,
                          "the observed values match their digest");
      }
    }
  } catch (const protocol::CorpusError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a CorpusError names the file first");
  }
  return 0;
}
