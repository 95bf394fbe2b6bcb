#pragma once
// Subjects from a shared library that implements include/ordo/subject.h: one subject per declared
// operation, qualified like ordo's own variants from the traits the library declares.
#include <memory>
#include <string>
#include <vector>

#include "subjects/backward_subject.h"
#include "subjects/forward_subject.h"
#include "subjects/plugin_library.h"

namespace ordo {

struct PluginSubjects {
  std::shared_ptr<PluginLibrary> library;
  std::vector<std::unique_ptr<ForwardSubject>> forward;
  std::vector<std::unique_ptr<BackwardSubject>> backward;
};

// Opens the library (PluginError on any defect of its description) and makes its subjects, which call it
// in this process. `ordo verify --plugin` and `ordo fuzz --plugin` run it in processes of its own instead
// (subjects/isolated_plugin.h), and those processes load it with this.
PluginSubjects load_plugin_subjects(const std::string& path);
// The subjects of a library already opened or bound (plugin_library_from_description), in this process.
PluginSubjects make_plugin_subjects(std::shared_ptr<PluginLibrary> library);

// The fail-closed scenarios' target for the library's forward operation (`traits` its traits): each
// scenario's call goes straight to ordo_subject_forward. Its progress is left for the caller to set.
FailClosedTarget plugin_fail_closed_target(const std::shared_ptr<PluginLibrary>& library, const SubjectTraits& traits);
// The same for a backward operation: each call goes straight to ordo_subject_backward_data or _weight.
BackwardFailClosedTarget plugin_backward_fail_closed_target(const std::shared_ptr<PluginLibrary>& library,
                                                            const SubjectTraits& traits);

}  // namespace ordo
