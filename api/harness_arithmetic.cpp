// The harness's arithmetic: a contract's emulator, the exact result and the bound, the check of one
// output, and generated operands. Each is one call into oracle/ or properties/, the code `ordo verify`
// and `ordo check` run: nothing is computed here that the C++ core does not compute the same way.
#include <cmath>
#include <limits>

#include "api/harness_internal.h"
#include "core/float_bits.h"
#include "core/problem_checks.h"
#include "oracle/backward_emulator.h"
#include "oracle/exact_dots.h"
#include "oracle/plan_emulator.h"
#include "oracle/plan_error_bound.h"
#include "properties/forward_case.h"
#include "properties/forward_checks.h"
#include "properties/value_families.h"

namespace ordo::api {
namespace {

int dtype_code(DType t) { return t == DType::bf16 ? ORDO_DTYPE_BF16 : ORDO_DTYPE_F32; }

const Contract& contract_of_kind(const ordo_harness_contract* handle, ContractKind kind) {
  const Contract& c = contract_of(handle);
  if (c.kind != kind)
    argument_error("contract " + c.id + " is a " + std::string(contract_kind_name(c.kind)) + " contract, not " +
                   std::string(contract_kind_name(kind)));
  return c;
}

// A refusal of the plan (check_dot_problem, validate_for_plan) as E_REFUSED with its status's name.
void refuse_unless_ok(const Status& s, const Contract& c) {
  if (s.ok()) return;
  // ordo's status codes and the subject ABI's share their numbers (subjects/plugin_library.cpp pins it).
  set_last_refusal(static_cast<int>(s.code));
  throw ApiError(ORDO_HARNESS_E_REFUSED,
                 "contract " + c.id + " refuses the problem: " + std::string(status_code_name(s.code)) +
                     (s.message.empty() ? "" : " (" + s.message + ")"));
}

// An element's a-priori bound and the candidate's error over it, as `ordo verify`'s bound property judges.
oracle::ElementVerdict judge(const Contract& c, const ForwardProblem& p, std::int64_t m, std::int64_t n, float candidate) {
  return oracle::judge_plan_element(c.plan, p.x_row(m), p.w_row(n), p.K, p.bias_at(n), candidate, p.bf16_output);
}

}  // namespace
}  // namespace ordo::api

using namespace ordo;
using api::argument_error;
using api::guarded;

extern "C" {

int ordo_harness_emulate_forward(const ordo_harness_contract* contract, const ordo_forward_args* args) {
  return guarded("ordo_harness_emulate_forward", [&] {
    const Contract& c = api::contract_of_kind(contract, ContractKind::forward);
    const ForwardProblem p = api::forward_problem(args, api::dtype_code(c.plan.operand_dtype), true);
    api::refuse_unless_ok(check_dot_problem(c.plan, p), c);
    api::write_output(args->y, oracle::emulate_dot(c.plan, p));
  });
}

int ordo_harness_emulate_backward_data(const ordo_harness_contract* contract, const ordo_backward_data_args* args) {
  return guarded("ordo_harness_emulate_backward_data", [&] {
    const Contract& c = api::contract_of_kind(contract, ContractKind::backward_data);
    const BackwardDataProblem p = api::backward_data_problem(args, api::dtype_code(c.plan.operand_dtype));
    api::refuse_unless_ok(oracle::validate_for_plan(p, c.plan), c);
    api::write_output(args->dx, oracle::emulate_backward_data(p, c.plan));
  });
}

int ordo_harness_emulate_backward_weight(const ordo_harness_contract* contract, const ordo_backward_weight_args* args) {
  return guarded("ordo_harness_emulate_backward_weight", [&] {
    const Contract& c = api::contract_of_kind(contract, ContractKind::backward_weight);
    const BackwardWeightProblem p = api::backward_weight_problem(args, api::dtype_code(c.plan.operand_dtype));
    api::refuse_unless_ok(oracle::validate_for_plan(p, c.plan), c);
    oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(p, c.plan);
    api::refuse_unless_ok(r.status, c);
    api::write_output(args->dw, r.result.dw);
    if (p.with_bias_grad) {
      if (!r.result.db) throw api::ApiError(ORDO_HARNESS_E_INTERNAL, "the emulator returned no db");
      api::write_output(args->db, *r.result.db);
    }
  });
}

int ordo_harness_exact_forward(const ordo_harness_contract* contract, const ordo_forward_args* args, double* exact_f64,
                               double* bound) {
  return guarded("ordo_harness_exact_forward", [&] {
    const Contract* c = nullptr;
    if (contract != nullptr) c = &api::contract_of_kind(contract, ContractKind::forward);
    if (bound != nullptr && c == nullptr) argument_error("a bound needs a contract");
    const ForwardProblem p = api::forward_problem(args, c ? api::dtype_code(c->plan.operand_dtype) : 0, true);
    if (c) api::refuse_unless_ok(check_dot_problem(c->plan, p), *c);
    const std::size_t count = static_cast<std::size_t>(p.M * p.N);
    std::vector<float> y(count);
    std::vector<double> f64(count);
    oracle::ExactDotsOutput out;
    (p.bf16_output ? out.bf16 : out.f32) = y.data();
    out.f64 = f64.data();
    oracle::exact_dots(p.x.data(), p.w.data(), p.bias ? p.bias->data() : nullptr, p.M, p.N, p.K, out, 0);
    if (bound != nullptr) {
      // The bound of the contract's own result: for a BF16 output it depends on |result|.
      const std::vector<float> emulated = oracle::emulate_dot(c->plan, p);
      for (std::int64_t m = 0; m < p.M; ++m)
        for (std::int64_t n = 0; n < p.N; ++n) {
          const std::size_t i = static_cast<std::size_t>(m * p.N + n);
          const oracle::ElementVerdict v = api::judge(*c, p, m, n, emulated[i]);
          bound[i] = v.klass == oracle::ElementClass::nonfinite_input ? std::numeric_limits<double>::quiet_NaN() : v.bound;
        }
    }
    api::write_output(args->y, y);
    if (exact_f64 != nullptr) std::copy(f64.begin(), f64.end(), exact_f64);
  });
}

int ordo_harness_check_forward(const ordo_harness_contract* contract, const ordo_forward_args* args,
                               int64_t bound_elements, ordo_harness_check_summary* summary,
                               ordo_harness_mismatch* mismatches, int64_t capacity) {
  return guarded("ordo_harness_check_forward", [&] {
    const Contract& c = api::contract_of_kind(contract, ContractKind::forward);
    if (summary == nullptr) argument_error("summary is NULL");
    if (summary->struct_size != sizeof(ordo_harness_check_summary))
      argument_error("summary.struct_size is " + std::to_string(summary->struct_size) +
                     ", expected sizeof(ordo_harness_check_summary) = " + std::to_string(sizeof(ordo_harness_check_summary)));
    if (capacity < 0 || (capacity > 0 && mismatches == nullptr)) argument_error("mismatches: NULL with a capacity, or a negative capacity");
    const ForwardProblem p = api::forward_problem(args, api::dtype_code(c.plan.operand_dtype), true);
    api::refuse_unless_ok(check_dot_problem(c.plan, p), c);
    const std::int64_t count = p.M * p.N;
    const std::vector<float> got = api::read_floats(args->y.data, args->y.dtype, count);
    const std::vector<float> want = oracle::emulate_dot(c.plan, p);
    const bool any_nan = !c.plan.nan_bits.has_value();  // a contract that states no NaN bits
    ordo_harness_check_summary s{};
    s.struct_size = sizeof s;
    s.elements = count;
    std::vector<std::int64_t> listed;
    std::vector<char> mismatch(static_cast<std::size_t>(count), 0);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::size_t u = static_cast<std::size_t>(i);
      if (properties::same_output(got[u], want[u], any_nan)) continue;
      mismatch[u] = 1;
      if (s.mismatches < capacity) listed.push_back(i);
      ++s.mismatches;
    }
    // Which elements are judged against the exact result: all, or the listed mismatches and an even
    // stride over the rest (deterministic, so a re-run judges the same elements).
    const std::int64_t stride = bound_elements <= 0 || bound_elements >= count ? 1 : (count + bound_elements - 1) / bound_elements;
    std::vector<double> over(listed.size(), std::numeric_limits<double>::quiet_NaN());
    std::vector<double> exact(listed.size(), std::numeric_limits<double>::quiet_NaN());
    std::size_t next_listed = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      const bool is_listed = next_listed < listed.size() && listed[next_listed] == i;
      if (!is_listed && (bound_elements == 0 || i % stride != 0)) continue;
      const oracle::ElementVerdict v = api::judge(c, p, i / p.N, i % p.N, got[static_cast<std::size_t>(i)]);
      if (v.klass == oracle::ElementClass::nonfinite_input) ++s.nonfinite_inputs;
      else if (v.klass == oracle::ElementClass::finite) {
        ++s.judged;
        if (!v.within_bound) ++s.outside_bound;
        s.max_error_over_bound = std::max(s.max_error_over_bound, v.error_over_bound());
      }
      if (is_listed) {
        if (v.klass != oracle::ElementClass::nonfinite_input) exact[next_listed] = v.exact;
        if (v.klass == oracle::ElementClass::finite) over[next_listed] = v.error_over_bound();
        ++next_listed;
      }
    }
    for (std::size_t j = 0; j < listed.size(); ++j) {
      const std::size_t u = static_cast<std::size_t>(listed[j]);
      ordo_harness_mismatch& m = mismatches[j];
      m.row = listed[j] / p.N;
      m.col = listed[j] % p.N;
      m.got_bits = p.bf16_output ? bits_of(got[u]) >> 16 : bits_of(got[u]);
      m.want_bits = p.bf16_output ? bits_of(want[u]) >> 16 : bits_of(want[u]);
      m.exact = exact[j];
      m.error_over_bound = over[j];
    }
    s.verdict = s.mismatches > 0       ? ORDO_HARNESS_VERDICT_MISMATCH
                : s.outside_bound > 0 ? ORDO_HARNESS_VERDICT_BOUND_VIOLATION
                                      : ORDO_HARNESS_VERDICT_PASS;
    *summary = s;
  });
}

size_t ordo_harness_family_count(void) { return properties::all_families().size(); }

const char* ordo_harness_family_name(size_t index) {
  const auto& all = properties::all_families();
  return index < all.size() ? properties::family_name(all[index]).data() : "";
}

int ordo_harness_generate_forward(const char* family, int64_t M, int64_t N, int64_t K, int32_t with_bias,
                                  int32_t bf16_operands, uint64_t seed, float* x, float* w, float* bias) {
  return guarded("ordo_harness_generate_forward", [&] {
    if (family == nullptr) argument_error("family is NULL");
    properties::ForwardCase fc;
    bool found = false;
    std::string names;
    for (const properties::ValueFamily f : properties::all_families()) {
      names += (names.empty() ? "" : ", ") + std::string(properties::family_name(f));
      if (properties::family_name(f) == family) {
        fc.family = f;
        found = true;
      }
    }
    if (!found) argument_error("no value family named \"" + std::string(family) + "\"; the families: " + names);
    constexpr std::int64_t kMax = std::int64_t{1} << 24;
    if (M < 1 || N < 1 || K < 1 || M > kMax || N > kMax || K > kMax || M * K > kMax * 16 || N * K > kMax * 16)
      argument_error("shape M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
                     ": each in [1, 2^24], M*K and N*K at most 2^28");
    if (x == nullptr || w == nullptr || (with_bias && bias == nullptr)) argument_error("an output pointer is NULL");
    fc.M = M;
    fc.N = N;
    fc.K = K;
    fc.has_bias = with_bias != 0;
    fc.bf16_operands = bf16_operands != 0;
    fc.seed = seed;
    const ForwardProblem p = fc.materialize();
    std::copy(p.x.begin(), p.x.end(), x);
    std::copy(p.w.begin(), p.w.end(), w);
    if (with_bias && p.bias) std::copy(p.bias->begin(), p.bias->end(), bias);
  });
}

}  // extern "C"
