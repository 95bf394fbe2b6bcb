#pragma once
// What the subjects over ordo's own CUDA variants (forward, dX and dW) share: the variant they run and how.
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/status.h"
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

// A subject (Interface: ForwardSubject or BackwardSubject) over one CUDA variant: its id, the options it is
// launched with, its traits, the dtype its operands are converted to before they are uploaded, and call_, the
// launch of the variant's Args (the registry's, or one a test gives).
template <class Interface, class Args>
class CudaVariantSubject : public Interface {
 public:
  using Call = std::function<Status(const Args&)>;
  using Launch = Status (*)(std::string_view, const Args&);

  const SubjectTraits& traits() const override { return traits_; }

 protected:
  // The registered variant `id` (`found`: its registry lookup, `what` names the registry in the error),
  // launched through `launch` with `options`.
  CudaVariantSubject(const KernelVariant* found, const char* what, const std::string& id,
                     const kernels::LaunchOptions& options, Launch launch)
      : CudaVariantSubject(registered_variant(found, what, id), options,
                           [id, launch](const Args& a) { return launch(id, a); }) {}
  // `v`, launched by `call` with the default options.
  CudaVariantSubject(const KernelVariant& v, Call call)
      : CudaVariantSubject(v, kernels::LaunchOptions{}, std::move(call)) {}

  std::string variant_id_;
  kernels::LaunchOptions options_;
  SubjectTraits traits_;
  DType operand_dtype_ = DType::f32;
  Call call_;

 private:
  CudaVariantSubject(const KernelVariant& v, const kernels::LaunchOptions& options, Call call)
      : variant_id_(v.id),
        options_(options),
        traits_(traits_of_variant(v)),
        operand_dtype_(v.operand_dtype),
        call_(std::move(call)) {}
};

}  // namespace ordo
