#pragma once
// The host twins of the self-test's mutants: host subjects that compute the same defective arithmetic as
// the GPU mutants (kernels/mutants/*_defects.h, compiled here by the host compiler; the BF16 ones on the
// T-FDPA model of their contract), so that `ordo selftest --host` proves the harness in CI without a GPU.
// Each claims its contract, declares is_mutant, and refuses what the contract's emulator refuses.
#include <memory>
#include <string>
#include <vector>

#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"

namespace ordo::mutants {

struct HostTwinInfo {
  std::string id, defect, contract_id;
};

// The forward twins (FP32 and BF16) and the dW/db twins, with their ids and defects.
const std::vector<HostTwinInfo>& host_forward_twins();
const std::vector<HostTwinInfo>& host_backward_twins();

// nullptr for an id that has no twin of that kind.
std::unique_ptr<ForwardSubject> make_host_forward_twin(const std::string& id);
std::unique_ptr<BackwardSubject> make_host_backward_twin(const std::string& id);

// The traits every host twin declares: its id, kind "host-mutant", the contract, is_mutant.
SubjectTraits host_twin_traits(const std::string& id, const std::string& contract_id, const std::string& defect);

}  // namespace ordo::mutants
