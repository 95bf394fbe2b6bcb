#pragma once
#include <memory>
#include <vector>

#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"

namespace ordo {

// Every registered ordo variant as a subject (production tiles and mutants; mutants carry is_mutant).
std::vector<std::unique_ptr<ForwardSubject>> registered_forward_subjects();
std::vector<std::unique_ptr<BackwardSubject>> registered_backward_subjects();

}  // namespace ordo
