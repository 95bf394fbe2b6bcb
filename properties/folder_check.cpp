#include "properties/folder_check.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "oracle/plan_error_bound.h"
#include "properties/forward_checks.h"
#include "subjects/files_subject.h"

namespace ordo::properties {
namespace {
using protocol::CaseFolder;
using protocol::InputError;

using protocol::CaseEntry;
using protocol::Relation;

PropertyRun row(const std::string& name, const std::string& description, PropertyKind kind, const std::string& folder,
                const std::string& contract) {
  PropertyRun r = named_run(name, description, "files", folder, contract);
  r.kind = kind;
  return r;
}

// One check's outcome into a row: its counts, and a failure with its reproduce line and detail.
void fold(PropertyRun& run, const CheckResult& r, const std::string& reproduce, const std::string& detail,
          const std::string& label) {
  run.elements += r.elements;
  run.overflowed += r.overflowed;
  run.nonfinite_inputs += r.nonfinite_inputs;
  run.max_error_over_bound = std::max(run.max_error_over_bound, r.max_error_over_bound);
  if (r.passed) return;
  if (r.tool_error) {
    ++run.tool_errors;
  } else {
    ++run.failed;
    if (r.subject_fault) ++run.subject_faults;
  }
  run.failures.push_back({reproduce, detail, label, "", 0});
}

// The elements of a case judged against the exact result: the mismatching ones first (up to the budget), then
// a deterministic sample of the rest.
std::vector<std::int64_t> bound_sample(const std::vector<std::int64_t>& mismatching, std::int64_t elements,
                                       std::int64_t budget) {
  std::vector<std::int64_t> judged(mismatching.begin(),
                                   mismatching.begin() + std::min<std::int64_t>(static_cast<std::int64_t>(mismatching.size()), budget));
  const std::int64_t room = budget - static_cast<std::int64_t>(judged.size());
  if (room > 0) {
    const std::int64_t stride = std::max<std::int64_t>(1, elements / room);
    for (std::int64_t i = 0; i < elements && static_cast<std::int64_t>(judged.size()) < budget; i += stride) judged.push_back(i);
  }
  return judged;
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

}  // namespace

std::vector<PropertyRun> check_folder(CaseFolder& folder, const FolderCheckOptions& o) {
  const protocol::CasesManifest& m = folder.manifest();
  std::vector<const CaseEntry*> cases;
  for (const CaseEntry& c : m.cases)
    if (o.only_cases.empty() || std::find(o.only_cases.begin(), o.only_cases.end(), c.id) != o.only_cases.end())
      cases.push_back(&c);
  for (const std::string& id : o.only_cases)
    if (!m.find(id)) throw InputError(folder.folder() + "/manifest.json: no case \"" + id + "\"");

  // The folder as a subject: the program that wrote the outputs, judged by the same checks as a kernel.
  FilesSubject files(folder, o.contract, o.output_cache_bytes);
  // Every input first: bad input (a malformed or altered input file) is refused before anything is
  // judged. An output that is missing or malformed is the program's failure on that case, not bad
  // input: it is a subject fault of that case, judged among the others.
  for (const CaseEntry* c : cases) (void)files.problem(*c);
  for (const CaseEntry* c : cases) {
    const RecordedOutput y = files.recorded(*c);
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
    const std::unique_ptr<ForwardSubject> emulator = make_emulator_subject(*o.contract);
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
      const std::string shape = c->id + " (M=" + std::to_string(c->M) + " N=" + std::to_string(c->N) +
                                " K=" + std::to_string(c->K) + ", " + c->family + ", " + c->purpose;
      ++eq.cases;
      ++eq.families[c->family];
      ++bound.cases;
      ++bound.families[c->family];
      const ForwardProblem p = files.problem(*c);
      const std::string y_dtype = p.bf16_output ? "bf16" : "f32";
      const CheckResult e = check_bitwise_equal(files, *emulator, p,
                                                {.shown = o.shown_mismatches, .kept = o.bound_elements_per_case, .got_name = "got", .want_name = "contract"});
      std::string detail = shape;
      if (!e.subject_fault) detail.append(", y ").append(y_dtype);
      detail.append("): ").append(e.detail);
      fold(eq, e, reproduce(contract_id, {c->id}), detail, c->id);
      const std::vector<std::int64_t> judged = bound_sample(e.differing, p.M * p.N, o.bound_elements_per_case);
      const CheckResult b = check_within_error_bound(files, p, &oracle::judge_plan_element, &judged);
      fold(bound, b, reproduce(contract_id, {c->id}), (b.subject_fault ? shape + "): " : c->id + ": ") + b.detail, c->id);
      if (!b.subject_fault && !b.tool_error) {
        double& fam = bound.max_error_over_bound_by_family[c->family];
        fam = std::max(fam, b.max_error_over_bound);
      }
      if (o.progress) o.progress("cases", ++done, static_cast<std::int64_t>(cases.size()));
    }
    eq.seconds = bound.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rows.push_back(std::move(eq));
    rows.push_back(std::move(bound));
  }

  // The relations, grouped by kind: each the check that two of the subject's outputs agree. A relation is
  // judged only when both its cases are selected.
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
    const std::string reproduce_line = reproduce("none", {ref.id, sub.id});
    const std::string label = ref.id + " vs " + sub.id;
    // One relation needs one dtype of Y: the values of a bf16 output are floats too, and would compare.
    const RecordedOutput ya = files.recorded(ref), yb = files.recorded(sub);
    if (ya.fault.empty() && yb.fault.empty() && ya.bf16 != yb.bf16) {
      fold(run, CheckResult::failure(""), reproduce_line,
           ref.id + " and " + sub.id + " have Y of different dtypes; the relation needs one", label);
      continue;
    }
    const ForwardProblem pa = files.problem(ref), pb = files.problem(sub);
    const RowCorrespondence relation{r.description, r.reference.rows, r.subject.rows, r.reference.col_begin,
                                     r.subject.col_begin, r.cols};
    const CheckResult result = check_outputs_agree(files, pa, ref.id, pb, sub.id, relation, any_nan);
    fold(run, result, reproduce_line, result.subject_fault ? r.description + ": " + result.detail : result.detail, label);
  }
  for (const char* kind : {"batch_size", "permutation", "column_shard"})
    if (auto it = by_kind.find(kind); it != by_kind.end()) rows.push_back(std::move(it->second));
  return rows;
}

}  // namespace ordo::properties
