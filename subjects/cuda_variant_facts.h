#pragma once
// What the subjects over ordo's own CUDA variants (forward, dX and dW) know of the variant they run.
#include <stdexcept>
#include <string>

#include "core/variant.h"
#include "kernels/launch_options.h"
#include "subjects/variant_traits.h"

namespace ordo {

// The registered variant `found` (a registry lookup of `id`), or std::invalid_argument "unknown WHAT ID".
inline const KernelVariant& registered_variant(const KernelVariant* found, const std::string& what,
                                               const std::string& id) {
  if (!found) throw std::invalid_argument("unknown " + what + " " + id);
  return *found;
}

// The variant's id, the options it is launched with, its traits, and the dtype its operands are converted
// to before they are uploaded. A base of the CUDA subjects, so that each reads them as its own members.
class CudaVariantFacts {
 protected:
  CudaVariantFacts(const KernelVariant& v, const kernels::LaunchOptions& options)
      : variant_id_(v.id), options_(options), traits_(traits_of_variant(v)), operand_dtype_(v.operand_dtype) {}

  std::string variant_id_;
  kernels::LaunchOptions options_;
  SubjectTraits traits_;
  DType operand_dtype_ = DType::f32;
};

}  // namespace ordo
