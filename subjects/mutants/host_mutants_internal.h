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

// The twins' code on the contract's path (no defect), for tests: it must equal the emulator.
std::unique_ptr<ForwardSubject> make_fwd_f32_contract_twin();
std::unique_ptr<ForwardSubject> make_fwd_bf16_contract_twin();

}  // namespace ordo::mutants
