#include "properties/identify.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "properties/forward_checks.h"

namespace ordo::properties {
namespace {
using protocol::CaseFolder;

// One case cut down to a sample of its rows and columns: an output depends only on its row of X, its row
// of W and its bias, so the sample's outputs are exactly those elements of the whole case.
struct SampledCase {
  std::string id;
  ForwardProblem p;
  std::vector<float> y;
  std::vector<std::int64_t> rows, cols;  // which elements of the case they are
};

std::vector<std::int64_t> spread(std::int64_t n, std::int64_t cap) {
  std::vector<std::int64_t> idx;
  if (n <= cap) {
    for (std::int64_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  for (std::int64_t i = 0; i < cap; ++i) idx.push_back(i * (n - 1) / (cap - 1));  // first and last included
  return idx;
}

SampledCase sample(CaseFolder& folder, const protocol::CaseEntry& c, std::int64_t max_rows, std::int64_t max_cols) {
  bool bf16 = false;
  const std::vector<float> y = folder.output(c, &bf16);
  const ForwardProblem full = folder.inputs(c);
  SampledCase s;
  s.id = c.id;
  s.rows = spread(c.M, max_rows);
  s.cols = spread(c.N, max_cols);
  ForwardProblem& p = s.p;
  p.M = static_cast<std::int64_t>(s.rows.size());
  p.N = static_cast<std::int64_t>(s.cols.size());
  p.K = full.K;
  p.bf16_output = bf16;
  for (const std::int64_t r : s.rows) p.x.insert(p.x.end(), full.x_row(r), full.x_row(r) + full.K);
  for (const std::int64_t n : s.cols) p.w.insert(p.w.end(), full.w_row(n), full.w_row(n) + full.K);
  if (full.bias) {
    p.bias.emplace();
    for (const std::int64_t n : s.cols) p.bias->push_back((*full.bias)[static_cast<std::size_t>(n)]);
  }
  for (const std::int64_t r : s.rows)
    for (const std::int64_t n : s.cols) s.y.push_back(y[static_cast<std::size_t>(r * c.N + n)]);
  return s;
}

// A whole case, every row and column: what a confirmation compares.
SampledCase whole_case(CaseFolder& folder, const protocol::CaseEntry& c) {
  SampledCase s;
  s.id = c.id;
  bool bf16 = false;
  s.y = folder.output(c, &bf16);
  s.p = folder.inputs(c);
  s.p.bf16_output = bf16;
  s.rows = spread(c.M, c.M);
  s.cols = spread(c.N, c.N);
  return s;
}

void score(CandidateScore& sc, const SampledCase& s) {
  const ReductionPlan& plan = sc.contract.plan;
  if (!plan.allows_output(s.p.bf16_output ? DType::bf16 : DType::f32)) return;
  const std::vector<float> want = oracle::emulate_dot(plan, s.p);
  const bool any_nan = !plan.nan_bits.has_value();
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (same_output(s.y[i], want[i], any_nan)) continue;
    if (bad++ == 0 && sc.first_difference.empty()) {
      const std::size_t r = i / s.cols.size(), n = i % s.cols.size();
      std::ostringstream os;
      os << s.id << " [" << s.rows[r] << "," << s.cols[n] << "]: kernel " << describe_float(s.y[i]) << ", contract "
         << describe_float(want[i]);
      sc.first_difference = os.str();
    }
  }
  sc.elements += static_cast<std::int64_t>(want.size());
  sc.mismatches += bad;
  ++sc.cases;
  sc.cases_matching += bad == 0;
}

std::string candidate_id(const ReductionPlan& p, const std::string& step_name) {
  std::string id = "candidate.fwd." + std::string(p.operand_dtype == DType::bf16 ? "bf16." : "f32.") + step_name + ".";
  id += p.structure == KStructure::chain
            ? std::string("chain")
            : "seg" + std::to_string(p.segment_length) + (p.combine == SegmentCombine::ascending_add_rn ? "-asc" : "-tree");
  if (p.k_padding_multiple > 1) id += ".pad" + std::to_string(p.k_padding_multiple);
  id += p.bias == BiasPlacement::initial_accumulator ? ".bias-initial" : "";
  return id + "/1";
}

Contract candidate(const ReductionPlan& p, const std::string& step_name) {
  Contract c;
  c.plan = p;
  c.id = candidate_id(p, step_name);
  c.summary = "identify candidate";
  return c;
}

}  // namespace

std::vector<Contract> identify_candidates(DType operands, bool bf16_output, bool any_bias, const std::vector<std::int64_t>& Ks) {
  std::vector<Contract> out;
  std::set<std::string> seen;  // plans already listed
  const std::int64_t max_k = Ks.empty() ? 1 : *std::max_element(Ks.begin(), Ks.end());
  auto add = [&](Contract c) {
    if (bf16_output && !c.plan.allows_output(DType::bf16)) c.plan.output_dtypes = {DType::f32, DType::bf16};
    auto key = contract_to_json(c);
    key.erase("id");
    key.erase("summary");
    if (seen.insert(key.dump()).second) out.push_back(std::move(c));
  };
  for (const Contract* c : forward_contracts())
    if (c->plan.operand_dtype == operands && (!bf16_output || c->plan.allows_output(DType::bf16))) add(*c);
  struct Step {
    std::string name;
    ReductionPlan base;
  };
  std::vector<Step> steps;
  if (operands == DType::f32) steps.push_back({"fma", contract_fwd_f32_fma_chain().plan});
  else {
    steps.push_back({"tc-sm80", contract_fwd_bf16_tc_fdpa_sm80().plan});
    steps.push_back({"tc-sm90", contract_fwd_bf16_tc_fdpa_sm90().plan});
  }
  std::vector<BiasPlacement> biases{BiasPlacement::after_chain_add_rn};
  if (any_bias) biases.push_back(BiasPlacement::initial_accumulator);
  for (const Step& s : steps) {
    const bool tc = s.base.step.kind == StepKind::tc_fdpa;
    // Zero products change only the sign of a -0 accumulator; a tensor-core step from +0 never makes one,
    // so padding is searched for the FMA chain only, and only where some K is not already a multiple.
    std::vector<std::int64_t> paddings{1};
    if (!tc)
      for (std::int64_t p : {2, 4, 8, 16, 32, 64, 128, 256})
        if (std::any_of(Ks.begin(), Ks.end(), [p](std::int64_t k) { return k % p != 0; })) paddings.push_back(p);
    // Segment lengths: powers of two (a K loop unrolled or staged in blocks), and the K / s of every case
    // for s = 2..16 splits (split-K into equal parts), where that is a whole number of instructions.
    std::set<std::int64_t> lengths;
    for (std::int64_t len = tc ? 16 : 8; len < max_k && len <= 8192; len *= 2) lengths.insert(len);
    const std::int64_t width = s.base.step.width();
    for (const std::int64_t k : Ks)
      for (std::int64_t split = 2; split <= 16; ++split)
        if (k % split == 0 && (k / split) % width == 0 && k / split >= width) lengths.insert(k / split);
    for (const BiasPlacement bias : biases) {
      for (const std::int64_t pad : paddings) {
        ReductionPlan p = s.base;
        p.bias = bias;
        p.k_padding_multiple = pad;
        add(candidate(p, s.name));
      }
      for (const std::int64_t len : lengths)
        for (const SegmentCombine combine : {SegmentCombine::ascending_add_rn, SegmentCombine::pairwise_tree}) {
          ReductionPlan p = s.base;
          p.bias = bias;
          p.structure = KStructure::segments;
          p.segment_length = len;
          p.combine = combine;
          add(candidate(p, s.name));
        }
    }
  }
  return out;
}

IdentifyResult identify(CaseFolder& folder, const IdentifyOptions& o) {
  const protocol::CasesManifest& m = folder.manifest();
  folder.check_outputs_present();  // bad input first, nothing compared
  std::vector<std::int64_t> Ks;
  bool any_bias = false, any_bf16 = false;
  std::vector<const protocol::CaseEntry*> order;
  for (const protocol::CaseEntry& c : m.cases) {
    Ks.push_back(c.K);
    any_bias = any_bias || c.bias;
    bool bf16 = false;
    (void)folder.output(c, &bf16);
    any_bf16 = any_bf16 || bf16;
    order.push_back(&c);
  }
  // Smallest cases first: the screening set is cheap and already tells most candidates apart.
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->K * a->N < b->K * b->N; });
  const DType operands = m.operands == "bf16" ? DType::bf16 : DType::f32;
  IdentifyResult result;
  result.sample_rows = o.max_rows;
  result.sample_cols = o.max_cols;
  std::vector<CandidateScore> scores;
  for (Contract& c : identify_candidates(operands, any_bf16, any_bias, Ks)) {
    CandidateScore sc;
    sc.contract = std::move(c);
    scores.push_back(std::move(sc));
  }
  result.candidates = static_cast<std::int64_t>(scores.size());

  // Stage 1: every candidate on up to four of the smallest cases, sampled more coarsely.
  std::vector<SampledCase> screening;
  for (std::size_t i = 0; i < order.size() && i < 4; ++i) screening.push_back(sample(folder, *order[i], 16, 64));
  std::int64_t done = 0;
  for (CandidateScore& sc : scores) {
    for (const SampledCase& s : screening) score(sc, s);
    if (o.progress) o.progress(++done, static_cast<std::int64_t>(scores.size()) + 1);
  }
  std::stable_sort(scores.begin(), scores.end(), [](const CandidateScore& a, const CandidateScore& b) {
    return a.mismatches * std::max<std::int64_t>(1, b.elements) < b.mismatches * std::max<std::int64_t>(1, a.elements);
  });
  // Stage 2: the candidates that matched the screening set, and the closest few, on every case.
  std::vector<CandidateScore> finalists;
  for (const CandidateScore& sc : scores)
    if (sc.mismatches == 0 || static_cast<int>(finalists.size()) < o.closest)
      finalists.emplace_back().contract = sc.contract;
  for (const protocol::CaseEntry* c : order) {
    const SampledCase s = sample(folder, *c, o.max_rows, o.max_cols);
    for (CandidateScore& sc : finalists) score(sc, s);
  }
  if (o.progress) o.progress(static_cast<std::int64_t>(scores.size()) + 1, static_cast<std::int64_t>(scores.size()) + 1);
  // Stage 3: a sample is a screen, not a verdict. Every candidate that reproduced the whole sample is
  // compared on every element of every case before it is called a match.
  for (const protocol::CaseEntry* c : order) {
    result.cases += 1;
    result.elements += c->M * c->N;
  }
  for (CandidateScore& sc : finalists) {
    if (sc.mismatches != 0 || sc.cases != static_cast<std::int64_t>(order.size())) {
      result.closest.push_back(sc);
      continue;
    }
    CandidateScore full;
    full.contract = sc.contract;
    full.confirmed = true;
    for (const protocol::CaseEntry* c : order) score(full, whole_case(folder, *c));
    if (full.mismatches == 0 && full.cases == static_cast<std::int64_t>(order.size())) result.matches.push_back(full);
    else result.closest.push_back(full);
  }
  // Fewest mismatches first, by rate: a confirmed candidate's counts cover far more elements than a sample's.
  std::stable_sort(result.closest.begin(), result.closest.end(), [](const CandidateScore& a, const CandidateScore& b) {
    return a.mismatches * std::max<std::int64_t>(1, b.elements) < b.mismatches * std::max<std::int64_t>(1, a.elements);
  });
  if (static_cast<int>(result.closest.size()) > o.closest) result.closest.resize(static_cast<std::size_t>(o.closest));
  return result;
}

}  // namespace ordo::properties
