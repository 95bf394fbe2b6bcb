#pragma once
// What the host twins' files share (subjects/mutants/): each file's twins, and the contract-path twins the
// tests use to check the twins' own code where no defect can show.
#include <memory>
#include <string>
#include <vector>

#include "subjects/mutants/host_mutants.h"

namespace ordo::mutants {

// Host twins index with int, as the GPU kernels do.
inline constexpr std::int64_t kMaxTwinDim = std::int64_t{1} << 30;

std::vector<HostTwinInfo> fwd_f32_twin_infos();  // host_fwd_f32_mutants.cpp
std::unique_ptr<ForwardSubject> make_fwd_f32_twin(const std::string& id);
std::vector<HostTwinInfo> fwd_bf16_twin_infos();  // host_fwd_bf16_mutants.cpp
std::unique_ptr<ForwardSubject> make_fwd_bf16_twin(const std::string& id);
std::vector<HostTwinInfo> dw_twin_infos();  // host_bwd_dw_mutants.cpp
std::unique_ptr<BackwardSubject> make_dw_twin(const std::string& id);

// The infos of a file's twins (each a struct with its `info`), and the twin `id` among them (null: none).
template <class Twin>
std::vector<HostTwinInfo> infos_of(const std::vector<Twin>& twins) {
  std::vector<HostTwinInfo> out;
  for (const Twin& t : twins) out.push_back(t.info);
  return out;
}
template <class Twin>
const Twin* find_twin(const std::vector<Twin>& twins, const std::string& id) {
  for (const Twin& t : twins)
    if (t.info.id == id) return &t;
  return nullptr;
}
inline SubjectTraits twin_traits(const HostTwinInfo& info) {
  return host_twin_traits(info.id, info.contract_id, info.defect);
}
// The traits of the twins' code on the contract's path: no defect, and not a mutant.
inline SubjectTraits contract_twin_traits(const std::string& id, const std::string& contract_id) {
  SubjectTraits t = host_twin_traits(id, contract_id, "no defect: the contract's chain, through the twins' code");
  t.is_mutant = false;
  return t;
}

// The twins' code on the contract's path (no defect), for tests: it must equal the emulator.
std::unique_ptr<ForwardSubject> make_fwd_f32_contract_twin();
std::unique_ptr<ForwardSubject> make_fwd_bf16_contract_twin();

}  // namespace ordo::mutants
