#pragma once
#include <memory>
#include <vector>

#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"

namespace ordo {

// Every registered ordo variant as a subject (production tiles and mutants; mutants carry is_mutant), each run
// with `options` (kernels/launch_options.h: how it runs, never what it computes).
std::vector<std::unique_ptr<ForwardSubject>> registered_forward_subjects(const kernels::LaunchOptions& options = {});
std::vector<std::unique_ptr<BackwardSubject>> registered_backward_subjects(const kernels::LaunchOptions& options = {});

}  // namespace ordo
