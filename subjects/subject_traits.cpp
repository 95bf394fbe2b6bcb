#include "subjects/subject_traits.h"

#include <algorithm>

namespace ordo {

bool SubjectTraits::allows_output(DType t) const {
  return std::find(output_dtypes.begin(), output_dtypes.end(), t) != output_dtypes.end();
}

std::string not_runnable_reason(const SubjectTraits& t, bool gpu_present, int device_sm,
                                const std::string& gpu_absent_reason) {
  if (!t.device_buffers) return "";
  if (!gpu_present) return "no usable CUDA device (" + gpu_absent_reason + ")";
  if (device_sm == 0 || t.sm.contains(device_sm)) return "";
  return t.id + " claims " + t.contract.id + " on sm_" + std::to_string(t.sm.min) + ".." +
         (t.sm.max ? "sm_" + std::to_string(t.sm.max) : std::string("newer")) + "; this GPU is sm_" +
         std::to_string(device_sm);
}

}  // namespace ordo
