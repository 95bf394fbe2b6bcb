#include "properties/backward_checks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/float_bits.h"
#include "core/logical_keys.h"
#include "oracle/backward_emulator.h"
#include "properties/backward_case.h"

namespace ordo::properties {
namespace {

CheckResult refused(const BackwardSubject& b, const Status& s, const std::string& what) {
  if (s.code == StatusCode::subject_fault || s.code == StatusCode::subject_timeout)
    return CheckResult::fault(b.kernel_id() + " (" + what + "): " + s.to_string(), s.code == StatusCode::subject_timeout);
  return CheckResult::error(b.name() + " (" + b.kernel_id() + ") refused a valid problem (" + what +
                            "): " + s.to_string());
}

CheckResult compare(const BackwardWeightResult& got, const BackwardWeightResult& want, const std::string& got_name,
                    const std::string& want_name, const std::string& what) {
  CheckResult r;
  r.elements = static_cast<std::int64_t>(want.dw.size() + (want.db ? want.db->size() : 0));
  if (std::string d = first_difference(got, want); !d.empty())
    r = CheckResult::failure(what + ": " + got_name + " against " + want_name + ": " + d);
  return r;
}

// Keys of width 0, 2 or 3 and (with keys) 0-5 padding rows, both by the case's seed; a call-order
// contract takes no keys.
BackwardWeightProblem keyed_problem(const ForwardCase& c, const ReductionPlan& plan) {
  const bool keyless = plan.row_order == RowOrder::call_order || static_cast<std::int64_t>(c.seed % 3) == 0;
  const std::int64_t width = keyless ? 0 : 2 + static_cast<std::int64_t>(c.seed % 2);
  BackwardWeightProblem p = weight_problem(c, width);
  if (width > 0) p = with_padding(p, static_cast<std::int64_t>((c.seed >> 8) % 6), c.seed ^ 0x7061646eull);
  return p;
}

// Keys of width 2 or 3, for the invariance checks (without keys the order is the call order).
BackwardWeightProblem always_keyed_problem(const ForwardCase& c) {
  return weight_problem(c, 2 + static_cast<std::int64_t>(c.seed % 2));
}

}  // namespace

CheckResult check_dx_equal(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c) {
  const BackwardDataProblem p = data_problem(c);
  const BackendResult got = subject.data(p);
  if (!got.status.ok()) return refused(subject, got.status, "dX");
  const BackendResult want = reference.data(p);
  if (!want.status.ok()) return refused(reference, want.status, "dX");
  CheckResult r;
  r.elements = static_cast<std::int64_t>(want.y.size());
  if (std::string d = first_difference(got.y, want.y, "dX"); !d.empty())
    r = CheckResult::failure("dX M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
                             ": " + subject.name() + " against " + reference.name() + ": " + d);
  return r;
}

CheckResult check_dw_equal(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c) {
  const BackwardWeightProblem p = keyed_problem(c, reference.traits().contract.plan);
  const BackwardWeightRun got = subject.weight({p});
  if (!got.status.ok()) return refused(subject, got.status, describe(p));
  const BackwardWeightRun want = reference.weight({p});
  if (!want.status.ok()) return refused(reference, want.status, describe(p));
  return compare(got.result, want.result, subject.name(), reference.name(), describe(p));
}

CheckResult check_dx_equals_reference(BackwardSubject& subject, const ForwardCase& c) {
  const BackwardDataProblem p = data_problem(c);
  const BackendResult got = subject.data(p);
  if (!got.status.ok()) return refused(subject, got.status, "dX");
  const std::vector<float> want = oracle::reference_backward_data(p, subject.traits().contract.plan);
  CheckResult r;
  r.elements = static_cast<std::int64_t>(want.size());
  if (std::string d = first_difference(got.y, want, "dX"); !d.empty())
    r = CheckResult::failure("dX M=" + std::to_string(p.M) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
                             ": " + subject.name() + " against the scalar reference: " + d);
  return r;
}

CheckResult check_dw_equals_reference(BackwardSubject& subject, const ForwardCase& c) {
  const ReductionPlan& plan = subject.traits().contract.plan;
  const BackwardWeightProblem p = keyed_problem(c, plan);
  const BackwardWeightRun got = subject.weight({p});
  if (!got.status.ok()) return refused(subject, got.status, describe(p));
  return compare(got.result, oracle::reference_backward_weight(p, plan), subject.name(), "scalar reference", describe(p));
}

CheckResult check_dw_refuses_invalid_keys(BackwardSubject& subject, BackwardSubject& reference, const ForwardCase& c) {
  BackwardWeightProblem p = always_keyed_problem(c);
  Rng rng(c.seed ^ 0x6b657931ull);
  std::string what;
  StatusCode expected = StatusCode::duplicate_key;
  if (rng.coin(2)) {
    // Row j takes row i's key; a single row is duplicated whole.
    if (p.T < 2) p = select_rows(p, {0, 0});
    const auto i = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(p.T));
    auto j = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(p.T - 1));
    if (j >= i) ++j;
    const std::int64_t width = p.keys->width;
    std::copy_n(p.keys->values.begin() + i * width, width, p.keys->values.begin() + j * width);
    what = "rows " + std::to_string(i) + " and " + std::to_string(j) + " share a key";
  } else {
    expected = StatusCode::padding_gradient_nonzero;
    p = with_padding(p, 1 + static_cast<std::int64_t>(rng.next() % 3), c.seed ^ 0x70616432ull);
    std::int64_t t = 0;
    while (!p.keys->view().is_padding(t)) ++t;
    // The smallest subnormal of the operand type: a BF16 contract takes bfloat16 gradients only.
    const float tiny = -std::ldexp(1.0f, p.bf16_operands ? -133 : -149);
    const float nonzero[] = {1.0f, tiny, std::numeric_limits<float>::quiet_NaN()};
    const float g = nonzero[rng.next() % 3];
    p.g[static_cast<std::size_t>(t * p.N + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(p.N)))] = g;
    what = "padding row " + std::to_string(t) + " has a gradient " + describe_float(g);
  }
  // The reference must refuse the problem for the reason it was built for: any other refusal (a gradient
  // that is no bfloat16 under a BF16 contract, say) means the harness built the wrong problem.
  const BackwardWeightRun want = reference.weight({p});
  if (want.status.code != expected)
    return CheckResult::error(reference.name() + " answered " + std::string(status_code_name(want.status.code)) + " to " +
                              describe(p) + ", " + what + ": not " + std::string(status_code_name(expected)));
  const BackwardWeightRun got = subject.weight({p});
  if (got.status.code == want.status.code) {
    CheckResult r;
    r.elements = 1;
    return r;
  }
  return CheckResult::failure(describe(p) + ", " + what + ": " + subject.name() + " " +
                              (got.status.ok() ? std::string("accepted the call")
                                               : "refused it with " + std::string(status_code_name(got.status.code))) +
                              ", the contract refuses it with " + std::string(status_code_name(want.status.code)));
}

CheckResult check_dw_permutation_invariance(BackwardSubject& subject, const ForwardCase& c) {
  const BackwardWeightProblem p = always_keyed_problem(c);
  Rng rng(c.seed ^ 0x7065726dull);
  BackwardWeightProblem q = select_rows(p, random_permutation(p.T, rng));
  q = with_padding(q, 1 + static_cast<std::int64_t>(rng.next() % 6), c.seed ^ 0x70616431ull);
  const BackwardWeightRun a = subject.weight({p});
  if (!a.status.ok()) return refused(subject, a.status, describe(p));
  const BackwardWeightRun b = subject.weight({q});
  if (!b.status.ok()) return refused(subject, b.status, describe(q));
  return compare(b.result, a.result, "permuted and padded", "original", describe(q));
}

CheckResult check_dw_microbatches_equal_whole(BackwardSubject& subject, const ForwardCase& c, std::int64_t granularity) {
  BackwardWeightProblem p = always_keyed_problem(c);
  p = with_padding(p, static_cast<std::int64_t>((c.seed >> 8) % 6), c.seed ^ 0x6d626164ull);
  // The rows in canonical order with the padding rows among them where they fell, then cut into
  // pieces after every `granularity`-th active row with probability 1/3.
  const CanonicalOrder order = canonical_order(p.keys->view());
  std::vector<std::int64_t> sequence;
  {
    std::vector<bool> active(static_cast<std::size_t>(p.T), false);
    for (std::int64_t r : order.rows) active[static_cast<std::size_t>(r)] = true;
    std::size_t next_active = 0;
    for (std::int64_t t = 0; t < p.T; ++t)
      sequence.push_back(active[static_cast<std::size_t>(t)] ? order.rows[next_active++] : t);
  }
  Rng rng(c.seed ^ 0x73706c74ull);
  std::vector<BackwardWeightProblem> pieces;
  std::vector<std::int64_t> piece;
  std::int64_t active_in_piece = 0;
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    piece.push_back(sequence[i]);
    if (!p.keys->view().is_padding(sequence[i])) ++active_in_piece;
    const bool last = i + 1 == sequence.size();
    if (last || (active_in_piece > 0 && active_in_piece % granularity == 0 && rng.coin(3))) {
      for (std::size_t j = piece.size(); j > 1; --j) std::swap(piece[j - 1], piece[rng.next() % j]);
      pieces.push_back(select_rows(p, piece));
      piece.clear();
      active_in_piece = 0;
    }
  }
  if (pieces.empty()) pieces.push_back(p);
  const BackwardWeightRun whole = subject.weight({p});
  if (!whole.status.ok()) return refused(subject, whole.status, describe(p));
  const BackwardWeightRun split = subject.weight(pieces);
  if (!split.status.ok()) return refused(subject, split.status, std::to_string(pieces.size()) + " microbatches");
  return compare(split.result, whole.result, std::to_string(pieces.size()) + " microbatches", "whole batch",
                 describe(p));
}

CheckResult check_dw_shard_equals_slice(BackwardSubject& subject, const ForwardCase& c) {
  const BackwardWeightProblem p = keyed_problem(c, subject.traits().contract.plan);
  Rng rng(c.seed ^ 0x73686172ull);
  // The shard's bounds are multiples of the subject's row multiple (a TMA-fed subject takes G rows of
  // whole 16-byte units only; p.N is such a multiple already): [u0, u1) in those units.
  const std::int64_t unit = std::max(1, subject.traits().k_multiple), units = p.N / unit;
  const std::int64_t u0 = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(units));
  const std::int64_t u1 = u0 + 1 + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(units - u0));
  const std::int64_t n0 = u0 * unit, n1 = u1 * unit;
  BackwardWeightProblem shard = p;
  shard.N = n1 - n0;
  shard.g.clear();
  for (std::int64_t t = 0; t < p.T; ++t)
    shard.g.insert(shard.g.end(), p.g.begin() + t * p.N + n0, p.g.begin() + t * p.N + n1);
  const BackwardWeightRun whole = subject.weight({p});
  if (!whole.status.ok()) return refused(subject, whole.status, describe(p));
  const BackwardWeightRun part = subject.weight({shard});
  if (!part.status.ok()) return refused(subject, part.status, describe(shard));
  BackwardWeightResult slice;
  slice.dw.assign(whole.result.dw.begin() + n0 * p.K, whole.result.dw.begin() + n1 * p.K);
  if (whole.result.db) slice.db.emplace(whole.result.db->begin() + n0, whole.result.db->begin() + n1);
  return compare(part.result, slice, "shard", "slice of whole",
                 describe(p) + ", output features [" + std::to_string(n0) + "," + std::to_string(n1) + ")");
}

}  // namespace ordo::properties
