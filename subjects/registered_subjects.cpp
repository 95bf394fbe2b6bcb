#include "subjects/registered_subjects.h"

#include "kernels/backward_api.h"
#include "kernels/forward_api.h"

namespace ordo {

std::vector<std::unique_ptr<ForwardSubject>> registered_forward_subjects(const kernels::LaunchOptions& options) {
  std::vector<std::unique_ptr<ForwardSubject>> all;
  for (const KernelVariant& v : kernels::forward_variants()) all.push_back(make_cuda_forward_subject(v.id, options));
  return all;
}

std::vector<std::unique_ptr<BackwardSubject>> registered_backward_subjects(const kernels::LaunchOptions& options) {
  std::vector<std::unique_ptr<BackwardSubject>> all;
  for (const auto* list : {&kernels::backward_data_variants(), &kernels::backward_weight_variants()})
    for (const KernelVariant& v : *list) all.push_back(make_backward_cuda_subject(v.id, options));
  return all;
}

}  // namespace ordo
