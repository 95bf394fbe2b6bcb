#include "properties/folder_check.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "oracle/parallel_for.h"
#include "oracle/plan_error_bound.h"
#include "properties/forward_checks.h"

namespace ordo::properties {
namespace {
using protocol::CaseFolder;
using protocol::InputError;

using protocol::CaseEntry;
using protocol::Relation;

PropertyRun row(const std::string& name, const std::string& description, PropertyKind kind, const std::string& folder,
                const std::string& contract) {
  PropertyRun r;
  r.name = name;
  r.description = description;
  r.backend = "files";
  r.kernel = folder;
  r.contract = contract;
  r.kind = kind;
  return r;
}

std::string inputs_of(const ForwardProblem& p, std::int64_t m, std::int64_t n) {
  std::ostringstream os;
  const std::int64_t shown = std::min<std::int64_t>(p.K, 8);
  os << "x[" << m << ",0:" << shown << "] = [";
  for (std::int64_t k = 0; k < shown; ++k) os << (k ? ", " : "") << hex_bits(p.x_at(m, k));
  os << (p.K > shown ? ", ...]" : "]") << ", w[" << n << ",0:" << shown << "] = [";
  for (std::int64_t k = 0; k < shown; ++k) os << (k ? ", " : "") << hex_bits(p.w_at(n, k));
  os << (p.K > shown ? ", ...]" : "]");
  if (p.bias) os << ", b[" << n << "] = " << hex_bits((*p.bias)[static_cast<std::size_t>(n)]);
  return os.str();
}

struct CaseJudgement {
  std::int64_t elements = 0, mismatches = 0;
  std::vector<std::string> shown;
  std::int64_t bound_judged = 0, bound_violations = 0, nonfinite = 0, overflowed = 0;
  double max_ratio = 0;
  std::string first_violation;
};

CaseJudgement judge_case(const Contract& contract, const ForwardProblem& p, const std::vector<float>& y,
                         const FolderCheckOptions& o) {
  CaseJudgement j;
  const ReductionPlan& plan = contract.plan;
  const std::vector<float> want = oracle::emulate_dot(plan, p);
  const bool any_nan = !plan.nan_bits.has_value();
  std::vector<std::int64_t> mismatched;
  j.elements = static_cast<std::int64_t>(want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_output(y[i], want[i], any_nan)) mismatched.push_back(static_cast<std::int64_t>(i));
  j.mismatches = static_cast<std::int64_t>(mismatched.size());
  // The elements judged against the exact result: the mismatching ones first, then a sample of the rest.
  std::vector<std::int64_t> judged(mismatched.begin(),
                                   mismatched.begin() + std::min<std::int64_t>(j.mismatches, o.bound_elements_per_case));
  const std::int64_t room = o.bound_elements_per_case - static_cast<std::int64_t>(judged.size());
  if (room > 0) {
    const std::int64_t stride = std::max<std::int64_t>(1, j.elements / room);
    for (std::int64_t i = 0; i < j.elements && static_cast<std::int64_t>(judged.size()) < o.bound_elements_per_case; i += stride)
      judged.push_back(i);
  }
  // MPFR judges each element in ~100 ns a term: in parallel, then summarised in order.
  std::vector<oracle::ElementVerdict> judged_verdicts(judged.size());
  oracle::parallel_for(static_cast<std::int64_t>(judged.size()), [&](std::int64_t t) {
    const std::int64_t i = judged[static_cast<std::size_t>(t)], m = i / p.N, n = i % p.N;
    judged_verdicts[static_cast<std::size_t>(t)] = oracle::judge_plan_element(
        plan, p.x_row(m), p.w_row(n), p.K, p.bias_at(n), y[static_cast<std::size_t>(i)], p.bf16_output);
  });
  std::map<std::int64_t, oracle::ElementVerdict> verdicts;
  for (std::size_t t = 0; t < judged.size(); ++t) {
    const std::int64_t i = judged[t], m = i / p.N, n = i % p.N;
    const oracle::ElementVerdict& v = judged_verdicts[t];
    verdicts[i] = v;
    if (v.klass == oracle::ElementClass::nonfinite_input) {
      ++j.nonfinite;
      continue;
    }
    if (v.klass == oracle::ElementClass::overflowed) {
      ++j.overflowed;
      continue;
    }
    ++j.bound_judged;
    j.max_ratio = std::max(j.max_ratio, v.error_over_bound());
    if (!v.within_bound && j.bound_violations++ == 0) {
      std::ostringstream os;
      os << "[" << m << "," << n << "]: " << describe_float(y[static_cast<std::size_t>(i)]) << ", exact " << v.exact
         << ", error " << v.error << " > bound " << v.bound << "; " << inputs_of(p, m, n);
      j.first_violation = os.str();
    }
  }
  for (std::size_t k = 0; k < mismatched.size() && static_cast<int>(k) < o.shown_mismatches; ++k) {
    const std::int64_t i = mismatched[k], m = i / p.N, n = i % p.N;
    std::ostringstream os;
    os << "[" << m << "," << n << "]: got " << describe_float(y[static_cast<std::size_t>(i)]) << ", contract "
       << describe_float(want[static_cast<std::size_t>(i)]);
    if (auto it = verdicts.find(i); it != verdicts.end() && it->second.klass == oracle::ElementClass::finite)
      os << "; exact " << it->second.exact << ", error " << it->second.error << " (bound " << it->second.bound << ")";
    os << "; " << inputs_of(p, m, n);
    j.shown.push_back(os.str());
  }
  return j;
}

std::string relation_row_name(const std::string& kind) {
  if (kind == "batch_size") return "check.batch_size_invariance";
  if (kind == "permutation") return "check.permutation_invariance";
  return "check.column_shard_equals_slice";
}

std::string relation_description(const std::string& kind) {
  if (kind == "batch_size") return "a row alone == the same row in batches of other sizes and positions";
  if (kind == "permutation") return "a batch with its rows permuted gives the same rows, permuted";
  return "a column shard of W gives that slice of the whole output";
}

// A case's output as read, or why there is none. The values are shared: whoever holds a LoadedOutput
// keeps its values alive, whatever the cache does meanwhile.
struct LoadedOutput {
  std::shared_ptr<const std::vector<float>> values;
  bool bf16 = false;
  std::string fault;  // non-empty: the file is missing or malformed (the subject's fault on this case)
};

// The outputs read so far, up to a budget of bytes: relations revisit a group's anchor for every batch,
// so it stays; the rest is read again when needed.
class OutputCache {
 public:
  OutputCache(CaseFolder& folder, std::size_t budget_bytes) : folder_(folder), budget_bytes_(budget_bytes) {}
  LoadedOutput get(const CaseEntry& c) {
    if (auto it = held_.find(c.id); it != held_.end()) return it->second;
    LoadedOutput out;
    try {
      out.values = std::make_shared<const std::vector<float>>(folder_.output(c, &out.bf16));
    } catch (const InputError& e) {
      out.fault = e.what();
    }
    const std::size_t bytes = out.values ? out.values->size() * sizeof(float) : 0;
    if (bytes_ + bytes > budget_bytes_) {
      held_.clear();  // the handles already given out keep their values
      bytes_ = 0;
    }
    bytes_ += bytes;
    held_[c.id] = out;
    return out;
  }

 private:
  CaseFolder& folder_;
  std::size_t budget_bytes_;
  std::map<std::string, LoadedOutput> held_;
  std::size_t bytes_ = 0;
};

}  // namespace

std::vector<PropertyRun> check_folder(CaseFolder& folder, const FolderCheckOptions& o) {
  const protocol::CasesManifest& m = folder.manifest();
  std::vector<const CaseEntry*> cases;
  for (const CaseEntry& c : m.cases)
    if (o.only_cases.empty() || std::find(o.only_cases.begin(), o.only_cases.end(), c.id) != o.only_cases.end())
      cases.push_back(&c);
  for (const std::string& id : o.only_cases)
    if (!m.find(id)) throw InputError(folder.folder() + "/manifest.json: no case \"" + id + "\"");

  // Every input first: bad input (a malformed or altered input file) is refused before anything is
  // judged. An output that is missing or malformed is the program's failure on that case, not bad
  // input: it is a subject fault of that case, judged among the others.
  for (const CaseEntry* c : cases) (void)folder.inputs(*c);
  OutputCache outputs(folder, o.output_cache_bytes);
  for (const CaseEntry* c : cases) {
    const LoadedOutput& y = outputs.get(*c);
    if (y.fault.empty() && o.contract && !o.contract->plan.allows_output(y.bf16 ? DType::bf16 : DType::f32))
      throw InputError(folder.folder() + "/" + c->y + ": a " + (y.bf16 ? "bf16" : "f32") + " Y, which contract " +
                       o.contract->id + " does not allow");
  }
  const std::string contract_id = o.contract ? o.contract->id : "none";
  const auto reproduce = [&](const std::string& contract, const std::vector<std::string>& ids) {
    std::string r = "ordo check " + folder.folder() + " --contract " + contract;
    for (const std::string& id : ids) r += " --case " + id;
    return r;
  };
  std::vector<PropertyRun> rows;
  if (o.contract) {
    PropertyRun eq = row("check.equals_contract", "every output element == the emulator of " + contract_id + ", bit for bit",
                         PropertyKind::bitwise, folder.folder(), contract_id);
    PropertyRun bound = row("check.within_error_bound",
                            "outputs within the error bound of the contract's plan of the exact result (mismatching "
                            "elements and a sample of the rest per case)",
                            PropertyKind::bound, folder.folder(), contract_id);
    eq.requested = bound.requested = static_cast<std::int64_t>(cases.size());
    const auto start = std::chrono::steady_clock::now();
    std::int64_t done = 0;
    for (const CaseEntry* c : cases) {
      if (o.stop && o.stop->load()) break;
      const LoadedOutput y = outputs.get(*c);  // a copy of the handle: the cache may drop its own
      const std::string shape = c->id + " (M=" + std::to_string(c->M) + " N=" + std::to_string(c->N) +
                                " K=" + std::to_string(c->K) + ", " + c->family + ", " + c->purpose;
      ++eq.cases;
      ++eq.families[c->family];
      ++bound.cases;
      ++bound.families[c->family];
      if (!y.fault.empty()) {
        // No output to judge: the case fails both rows as the subject's fault.
        for (PropertyRun* r : {&eq, &bound}) {
          ++r->failed;
          ++r->subject_faults;
          r->failures.push_back({reproduce(contract_id, {c->id}), shape + "): no usable output: " + y.fault, c->id, "", 0});
        }
        if (o.progress) o.progress("cases", ++done, static_cast<std::int64_t>(cases.size()));
        continue;
      }
      ForwardProblem p = folder.inputs(*c);
      p.bf16_output = y.bf16;
      const CaseJudgement j = judge_case(*o.contract, p, *y.values, o);
      eq.elements += j.elements;
      if (j.mismatches > 0) {
        ++eq.failed;
        std::string detail = shape + ", y " + (y.bf16 ? "bf16" : "f32") + "): " + std::to_string(j.mismatches) + " of " +
                             std::to_string(j.elements) + " elements differ";
        for (const std::string& line : j.shown) detail += "\n    " + line;
        eq.failures.push_back({reproduce(contract_id, {c->id}), detail, c->id, "", 0});
      }
      bound.elements += j.bound_judged;
      bound.nonfinite_inputs += j.nonfinite;
      bound.overflowed += j.overflowed;
      bound.max_error_over_bound = std::max(bound.max_error_over_bound, j.max_ratio);
      double& fam = bound.max_error_over_bound_by_family[c->family];
      fam = std::max(fam, j.max_ratio);
      if (j.bound_violations > 0) {
        ++bound.failed;
        bound.failures.push_back({reproduce(contract_id, {c->id}),
                                  c->id + ": " + std::to_string(j.bound_violations) + " of " + std::to_string(j.bound_judged) +
                                      " judged elements outside the bound; first " + j.first_violation,
                                  c->id, "", 0});
      }
      if (o.progress) o.progress("cases", ++done, static_cast<std::int64_t>(cases.size()));
    }
    eq.seconds = bound.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows.push_back(std::move(eq));
    rows.push_back(std::move(bound));
  }

  // The relations, grouped by kind. A relation is judged only when both its cases are selected.
  std::set<std::string> selected;
  for (const CaseEntry* c : cases) selected.insert(c->id);
  std::map<std::string, PropertyRun> by_kind;
  const bool any_nan = o.contract && !o.contract->plan.nan_bits.has_value();
  for (const Relation& r : m.relations) {
    if (!selected.count(r.reference.case_id) || !selected.count(r.subject.case_id)) continue;
    auto [it, fresh] = by_kind.try_emplace(r.kind, row(relation_row_name(r.kind), relation_description(r.kind),
                                                       PropertyKind::invariance, folder.folder(), contract_id));
    PropertyRun& run = it->second;
    run.unit = "relations";
    ++run.requested;
    if (o.stop && o.stop->load()) continue;  // counted as requested, not judged
    ++run.cases;
    const CaseEntry& ref = *m.find(r.reference.case_id);
    const CaseEntry& sub = *m.find(r.subject.case_id);
    ++run.families[ref.family];
    // Both outputs are held by their own handles while they are compared: the cache may evict its copies
    // while the second one loads, never the values these point to.
    const LoadedOutput a = outputs.get(ref);
    const LoadedOutput b = outputs.get(sub);
    const std::string reproduce_line = reproduce("none", {ref.id, sub.id});
    if (!a.fault.empty() || !b.fault.empty()) {
      ++run.failed;
      ++run.subject_faults;
      run.failures.push_back({reproduce_line, r.description + ": no usable output: " + (a.fault.empty() ? b.fault : a.fault),
                              ref.id + " vs " + sub.id, "", 0});
      continue;
    }
    std::string difference;
    std::int64_t differing_rows = 0;
    if (a.bf16 != b.bf16) {
      difference = ref.id + " and " + sub.id + " have Y of different dtypes; the relation needs one";
      differing_rows = 1;
    } else {
      const std::vector<float>& ya = *a.values;
      const std::vector<float>& yb = *b.values;
      for (std::size_t i = 0; i < r.reference.rows.size(); ++i) {
        const std::int64_t ra = r.reference.rows[i], rb = r.subject.rows[i];
        std::int64_t first = -1, count = 0;
        for (std::int64_t j = 0; j < r.cols; ++j) {
          const float va = ya[static_cast<std::size_t>(ra * ref.N + r.reference.col_begin + j)];
          const float vb = yb[static_cast<std::size_t>(rb * sub.N + r.subject.col_begin + j)];
          if (!same_output(vb, va, any_nan)) {
            if (first < 0) first = j;
            ++count;
          }
        }
        run.elements += r.cols;
        if (count == 0) continue;
        if (differing_rows++ == 0) {
          std::ostringstream os;
          os << r.description << ": row " << ra << " of " << ref.id << " (M=" << ref.M << ") and row " << rb << " of "
             << sub.id << " (M=" << sub.M << ") differ in " << count << " of " << r.cols << " columns; first at column "
             << first << ": " << describe_float(ya[static_cast<std::size_t>(ra * ref.N + r.reference.col_begin + first)])
             << " vs " << describe_float(yb[static_cast<std::size_t>(rb * sub.N + r.subject.col_begin + first)]);
          difference = os.str();
        }
      }
    }
    if (differing_rows > 0) {
      ++run.failed;
      if (differing_rows > 1) difference += " (" + std::to_string(differing_rows) + " row pairs differ)";
      run.failures.push_back({reproduce_line, difference, ref.id + " vs " + sub.id, "", 0});
    }
  }
  for (const char* kind : {"batch_size", "permutation", "column_shard"})
    if (auto it = by_kind.find(kind); it != by_kind.end()) rows.push_back(std::move(it->second));
  return rows;
}

}  // namespace ordo::properties
