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

// Opens the library (PluginError on any defect of its description) and makes its subjects.
PluginSubjects load_plugin_subjects(const std::string& path);

}  // namespace ordo
