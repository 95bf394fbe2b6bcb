#include "properties/forward_checks.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/exact_forward.h"
#include "oracle/plan_error_bound.h"
#include "oracle/exact_gemm.h"
#include "oracle/parallel_for.h"

namespace ordo::properties {
namespace {

std::string row_inputs(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  std::ostringstream os;
  const std::int64_t shown = std::min<std::int64_t>(p.K, 16);
  os << "x[" << m << ",0:" << shown << "] = [";
  for (std::int64_t k = 0; k < shown; ++k) os << (k ? ", " : "") << hex_bits(p.x_at(m, k));
  os << (p.K > shown ? ", ...]" : "]") << "; w[" << n << ",0:" << shown << "] = [";
  for (std::int64_t k = 0; k < shown; ++k) os << (k ? ", " : "") << hex_bits(p.w_at(n, k));
  os << (p.K > shown ? ", ...]" : "]");
  if (p.bias) os << "; b[" << n << "] = " << hex_bits((*p.bias)[static_cast<std::size_t>(n)]);
  return os.str();
}

BackendResult run(ForwardSubject& b, const ForwardProblem& p) {
  BackendResult r = b.forward(p);
  if (r.status.ok() && r.y.size() != static_cast<std::size_t>(p.M * p.N))
    r.status = Status::error(StatusCode::tool_error, "backend returned the wrong number of outputs");
  return r;
}

CheckResult backend_error(const ForwardSubject& b, const Status& s) {
  // A subject that breaks the calling convention (writes outside its output, leaves outputs unwritten)
  // fails the property; a refusal of a valid problem is a case the harness could not check.
  if (s.code == StatusCode::subject_fault || s.code == StatusCode::subject_timeout)
    return CheckResult::fault(b.kernel_id() + ": " + s.to_string(), s.code == StatusCode::subject_timeout);
  return CheckResult::error(b.name() + " (" + b.kernel_id() + ") refused a valid problem: " + s.to_string());
}

}  // namespace

bool same_output(float got, float want, bool any_nan) {
  if (any_nan && std::isnan(got) && std::isnan(want)) return true;
  return bits_of(got) == bits_of(want);
}

namespace {

CheckResult compare_outputs(const std::vector<float>& got, const std::vector<float>& want, const ForwardProblem& p,
                            const std::string& got_name, const std::string& want_name, bool any_nan,
                            const DifferenceOptions& differences) {
  CheckResult r;
  r.elements = static_cast<std::int64_t>(want.size());
  // Equal bits are the same output under either NaN rule: one memcmp settles a passing case (the loop
  // below took 10 ms of a 9e6-element case on one core).
  if (got.size() == want.size() && std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0) return r;
  std::int64_t mismatches = 0;
  std::vector<std::int64_t> first;  // the first max(shown, kept) differing elements
  const std::size_t wanted = static_cast<std::size_t>(std::max<std::int64_t>(std::max(differences.shown, 1), differences.kept));
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!same_output(got[i], want[i], any_nan)) {
      if (first.size() < wanted) first.push_back(static_cast<std::int64_t>(i));
      ++mismatches;
    }
  }
  if (first.empty()) return r;
  std::ostringstream os;
  os << mismatches << " of " << want.size() << " elements differ";
  for (std::size_t k = 0; k < first.size() && static_cast<int>(k) < std::max(differences.shown, 1); ++k) {
    const std::int64_t i = first[k], m = i / p.N, n = i % p.N;
    os << (k == 0 ? "; first at [" : "\n    at [") << m << "," << n << "]: " << got_name << " "
       << describe_float(got[static_cast<std::size_t>(i)]) << ", " << want_name << " "
       << describe_float(want[static_cast<std::size_t>(i)]) << "; inputs " << row_inputs(p, m, n);
  }
  r.passed = false;
  r.detail = os.str();
  if (differences.kept > 0)
    r.differing.assign(first.begin(), first.begin() + std::min<std::int64_t>(differences.kept, static_cast<std::int64_t>(first.size())));
  return r;
}

}  // namespace

CheckResult compare_outputs(const std::vector<float>& got, const std::vector<float>& want, const ForwardProblem& p,
                            const std::string& got_name, const std::string& want_name, bool any_nan) {
  return compare_outputs(got, want, p, got_name, want_name, any_nan, DifferenceOptions{});
}

CheckResult check_bitwise_equal(ForwardSubject& subject, ForwardSubject& reference, const ForwardCase& c) {
  return check_bitwise_equal(subject, reference, c.materialize());
}

CheckResult check_bitwise_equal(ForwardSubject& subject, ForwardSubject& reference, const ForwardProblem& p,
                                const DifferenceOptions& differences) {
  BackendResult got = run(subject, p);
  if (!got.status.ok()) return backend_error(subject, got.status);
  BackendResult want = run(reference, p);
  if (!want.status.ok()) return backend_error(reference, want.status);
  return compare_outputs(got.y, want.y, p, differences.got_name.empty() ? subject.name() : differences.got_name,
                         differences.want_name.empty() ? reference.name() : differences.want_name,
                         !subject.traits().contract.plan.nan_bits.has_value(), differences);
}

CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c) {
  return check_within_error_bound(subject, c, &oracle::judge_plan_element);
}

CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardCase& c, const ElementJudge& judge) {
  return check_within_error_bound(subject, c.materialize(), judge);
}

CheckResult check_within_error_bound(ForwardSubject& subject, const ForwardProblem& p, const ElementJudge& judge,
                                     const std::vector<std::int64_t>* elements) {
  BackendResult got = run(subject, p);
  if (!got.status.ok()) return backend_error(subject, got.status);

  const ReductionPlan& plan = subject.traits().contract.plan;
  CheckResult r;
  const std::int64_t judged = elements ? static_cast<std::int64_t>(elements->size()) : p.M * p.N;
  std::atomic<std::int64_t> overflowed{0}, nonfinite{0}, violations{0};
  std::mutex mutex;
  std::int64_t first_violation = -1;  // in judging order (t)
  oracle::ElementVerdict first_verdict;
  double max_ratio = 0;
  // MPFR judges each element in ~100 ns a term: in parallel, then the first violation in judging order.
  oracle::parallel_for(judged, [&](std::int64_t t) {
    const std::int64_t i = elements ? (*elements)[static_cast<std::size_t>(t)] : t;
    const std::int64_t m = i / p.N, n = i % p.N;
    const oracle::ElementVerdict v =
        judge(plan, p.x_row(m), p.w_row(n), p.K, p.bias_at(n), got.y[static_cast<std::size_t>(i)], p.bf16_output);
    if (v.klass == oracle::ElementClass::overflowed) ++overflowed;
    if (v.klass == oracle::ElementClass::nonfinite_input) ++nonfinite;
    if (v.klass != oracle::ElementClass::finite) return;
    if (!v.within_bound) ++violations;
    std::lock_guard<std::mutex> lock(mutex);
    max_ratio = std::max(max_ratio, v.error_over_bound());
    if (!v.within_bound && (first_violation < 0 || t < first_violation)) {
      first_violation = t;
      first_verdict = v;
    }
  });
  r.overflowed = overflowed;
  r.nonfinite_inputs = nonfinite;
  r.max_error_over_bound = max_ratio;
  if (elements) {
    r.elements = judged - overflowed - nonfinite;
  } else {
    r.elements = p.M * p.N;
    const oracle::ErrorSummary errors = oracle::summarize_errors(got.y, oracle::exact_forward(p));
    r.max_relative_error = errors.max_relative_error;
    r.normwise_relative_error = errors.normwise_relative_error;
  }
  if (first_violation >= 0) {
    const std::int64_t i = elements ? (*elements)[static_cast<std::size_t>(first_violation)] : first_violation;
    const std::int64_t m = i / p.N, n = i % p.N;
    std::ostringstream os;
    os << "bound violated at [" << m << "," << n << "]: " << subject.name() << " "
       << describe_float(got.y[static_cast<std::size_t>(i)]) << ", exact " << first_verdict.exact << ", error "
       << first_verdict.error << " > bound " << first_verdict.bound << "; inputs " << row_inputs(p, m, n);
    if (elements) os << " (" << violations.load() << " of " << r.elements << " judged elements outside the bound)";
    r.passed = false;
    r.detail = os.str();
  }
  return r;
}

CheckResult compare_related_outputs(const RelatedOutput& reference, const RelatedOutput& subject,
                                    const RowCorrespondence& relation, bool any_nan) {
  CheckResult r;
  const ForwardProblem& pa = reference.problem;
  const ForwardProblem& pb = subject.problem;
  std::int64_t differing_rows = 0;
  std::ostringstream os;
  for (std::size_t i = 0; i < relation.reference_rows.size(); ++i) {
    const std::int64_t ra = relation.reference_rows[i], rb = relation.subject_rows[i];
    const float* ya = reference.y.data() + ra * pa.N + relation.reference_col;
    const float* yb = subject.y.data() + rb * pb.N + relation.subject_col;
    r.elements += relation.cols;
    if (std::memcmp(ya, yb, static_cast<std::size_t>(relation.cols) * sizeof(float)) == 0) continue;
    std::int64_t first = -1, count = 0;
    for (std::int64_t j = 0; j < relation.cols; ++j) {
      if (!same_output(yb[j], ya[j], any_nan)) {
        if (first < 0) first = j;
        ++count;
      }
    }
    if (count == 0) continue;
    if (differing_rows++ == 0)
      os << relation.description << ": row " << ra << " of " << reference.name << " (M=" << pa.M << ") and row " << rb
         << " of " << subject.name << " (M=" << pb.M << ") differ in " << count << " of " << relation.cols
         << " columns; first at column " << first << ": " << describe_float(ya[first]) << " vs "
         << describe_float(yb[first]);
  }
  if (differing_rows == 0) return r;
  r.passed = false;
  r.detail = os.str();
  if (differing_rows > 1) r.detail += " (" + std::to_string(differing_rows) + " row pairs differ)";
  // The subject's inputs at the first difference: its row of X and the row of W of that column.
  for (std::size_t i = 0; i < relation.reference_rows.size(); ++i) {
    const std::int64_t ra = relation.reference_rows[i], rb = relation.subject_rows[i];
    const float* ya = reference.y.data() + ra * pa.N + relation.reference_col;
    const float* yb = subject.y.data() + rb * pb.N + relation.subject_col;
    for (std::int64_t j = 0; j < relation.cols; ++j)
      if (!same_output(yb[j], ya[j], any_nan)) {
        r.detail += "; inputs " + row_inputs(pb, rb, relation.subject_col + j);
        return r;
      }
  }
  return r;
}

CheckResult check_outputs_agree(ForwardSubject& subject, const ForwardProblem& reference, const std::string& reference_name,
                                const ForwardProblem& other, const std::string& other_name,
                                const RowCorrespondence& relation, bool any_nan) {
  BackendResult a = run(subject, reference);
  if (!a.status.ok()) return backend_error(subject, a.status);
  BackendResult b = run(subject, other);
  if (!b.status.ok()) return backend_error(subject, b.status);
  return compare_related_outputs({reference, a.y, reference_name}, {other, b.y, other_name}, relation, any_nan);
}

CheckResult check_batch_invariance(ForwardSubject& subject, const ForwardCase& c, std::int64_t batch_rows) {
  const ForwardProblem p = c.materialize();
  const ForwardProblem alone = single_row(p, 0);
  BackendResult want = run(subject, alone);
  if (!want.status.ok()) return backend_error(subject, want.status);

  // The batch: rows from the same family (a different seed), with row 0 of the case placed at
  // each tested position in turn.
  ForwardCase others = c;
  others.explicit_values.reset();
  others.M = batch_rows;
  others.seed = c.seed ^ 0x5DEECE66Dull;
  ForwardProblem batch = others.materialize();
  batch.w = p.w;
  batch.bias = p.bias;
  Rng rng(c.seed + 1);
  std::vector<std::int64_t> positions{0, batch_rows - 1, rng.in_range(0, static_cast<int>(batch_rows - 1))};
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());

  CheckResult r;
  for (std::int64_t pos : positions) {
    ForwardProblem b = batch;
    std::copy(alone.x.begin(), alone.x.end(), b.x.begin() + pos * p.K);
    BackendResult got = run(subject, b);
    if (!got.status.ok()) return backend_error(subject, got.status);
    const RowCorrespondence relation{"a row alone == the same row at position " + std::to_string(pos) + " of a batch of " +
                                         std::to_string(batch_rows) + " rows",
                                     {0}, {pos}, 0, 0, p.N};
    CheckResult one = compare_related_outputs({alone, want.y, "the row alone"}, {b, got.y, "the batch"}, relation);
    r.elements += one.elements;
    if (!one.passed) {
      one.elements = r.elements;
      return one;
    }
  }
  return r;
}

CheckResult check_column_shard_equals_slice(ForwardSubject& subject, const ForwardCase& c) {
  const ForwardProblem p = c.materialize();
  BackendResult whole = run(subject, p);
  if (!whole.status.ok()) return backend_error(subject, whole.status);
  Rng rng(c.seed + 2);
  const std::int64_t n0 = rng.in_range(0, static_cast<int>(p.N - 1));
  const std::int64_t n1 = rng.in_range(static_cast<int>(n0 + 1), static_cast<int>(p.N));
  ForwardProblem shard = p;
  shard.N = n1 - n0;
  shard.w.assign(p.w.begin() + n0 * p.K, p.w.begin() + n1 * p.K);
  if (p.bias) shard.bias->assign(p.bias->begin() + n0, p.bias->begin() + n1);
  BackendResult part = run(subject, shard);
  if (!part.status.ok()) return backend_error(subject, part.status);
  RowCorrespondence relation{"columns [" + std::to_string(n0) + "," + std::to_string(n1) +
                                 ") of the whole output == the output of that shard of W",
                             {}, {}, n0, 0, n1 - n0};
  for (std::int64_t m = 0; m < p.M; ++m) {
    relation.reference_rows.push_back(m);
    relation.subject_rows.push_back(m);
  }
  return compare_related_outputs({p, whole.y, "the whole"}, {shard, part.y, "the shard"}, relation);
}

CheckResult check_exact_result_order_independent(const ForwardCase& c) {
  const ForwardProblem p = c.materialize();
  std::vector<std::int64_t> perm(static_cast<std::size_t>(p.K));
  std::iota(perm.begin(), perm.end(), 0);
  Rng rng(c.seed + 3);
  for (std::int64_t i = p.K - 1; i > 0; --i) std::swap(perm[i], perm[rng.next() % static_cast<std::uint64_t>(i + 1)]);
  ForwardProblem q = p;
  for (std::int64_t k = 0; k < p.K; ++k) {
    for (std::int64_t m = 0; m < p.M; ++m) q.x[m * p.K + k] = p.x[m * p.K + perm[k]];
    for (std::int64_t n = 0; n < p.N; ++n) q.w[n * p.K + k] = p.w[n * p.K + perm[k]];
  }
  std::vector<float> a(static_cast<std::size_t>(p.M * p.N)), b(a.size());
  oracle::parallel_for(p.M * p.N, [&](std::int64_t i) {
    a[i] = oracle::correctly_rounded_forward_element(p, i / p.N, i % p.N);
    b[i] = oracle::correctly_rounded_forward_element(q, i / p.N, i % p.N);
  });
  // NaN (non-finite inputs) compares by bits too: the oracle returns one NaN for any such element.
  return compare_outputs(b, a, p, "exact(permuted k)", "exact");
}

}  // namespace ordo::properties
