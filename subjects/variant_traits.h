#pragma once
#include "core/variant.h"
#include "subjects/subject_traits.h"

namespace ordo {

// The traits of a registered ordo variant (forward or backward): its contract from the built-in table
// (std::invalid_argument if the variant names an unknown contract), dtypes, K multiple, alignment and SM
// range; every production variant promises fail-closed checks.
SubjectTraits traits_of_variant(const KernelVariant& v);

}  // namespace ordo
