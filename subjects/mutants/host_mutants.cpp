#include "subjects/mutants/host_mutants.h"

#include <stdexcept>

#include "core/contract.h"
#include "subjects/mutants/host_mutants_internal.h"

namespace ordo::mutants {

SubjectTraits host_twin_traits(const std::string& id, const std::string& contract_id, const std::string& defect) {
  const Contract* c = find_contract(contract_id);
  if (!c) throw std::invalid_argument("host twin " + id + " claims unknown contract " + contract_id);
  SubjectTraits t;
  t.id = id;
  t.kind = "host-mutant";
  t.contract = *c;
  t.operand_dtype = c->plan.operand_dtype;
  t.output_dtypes = c->plan.output_dtypes;
  t.is_mutant = true;
  t.description = "host twin of the mutant: " + defect;
  return t;
}

const std::vector<HostTwinInfo>& host_forward_twins() {
  static const std::vector<HostTwinInfo> all = [] {
    std::vector<HostTwinInfo> v = fwd_f32_twin_infos();
    for (HostTwinInfo& t : fwd_bf16_twin_infos()) v.push_back(std::move(t));
    return v;
  }();
  return all;
}

const std::vector<HostTwinInfo>& host_backward_twins() {
  static const std::vector<HostTwinInfo> all = dw_twin_infos();
  return all;
}

std::unique_ptr<ForwardSubject> make_host_forward_twin(const std::string& id) {
  if (auto s = make_fwd_f32_twin(id)) return s;
  return make_fwd_bf16_twin(id);
}

std::unique_ptr<BackwardSubject> make_host_backward_twin(const std::string& id) { return make_dw_twin(id); }

}  // namespace ordo::mutants
