#pragma once
// A subject library (include/ordo/subject.h) opened with dlopen and its description validated strictly:
// every defect of the description is an error naming the library and the field, before anything runs.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/status.h"
#include "subjects/subject_traits.h"

extern "C" {
#include "ordo/subject.h"
}

namespace ordo {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One declared operation, as ordo reads it.
struct PluginOperation {
  int op = 0;  // ORDO_OP_*
  SubjectTraits traits;
};

// An opened library: the handle stays open while any subject refers to it. The entry points are callables
// so that a subject need not be a library: the harness API (include/ordo/harness.h) binds a caller's
// callbacks and their user data here, and every check then runs on them as on a plugin's.
struct PluginLibrary {
  std::string path;
  std::string name, version;
  bool host_buffers = false;
  std::vector<PluginOperation> operations;
  std::shared_ptr<void> handle;
  std::function<int(const ordo_forward_args*, char*, size_t)> forward;
  std::function<int(const ordo_backward_data_args*, char*, size_t)> backward_data;
  std::function<int(const ordo_backward_weight_args*, char*, size_t)> backward_weight;
};

// Opens and validates; throws PluginError "PATH: FIELD: what is wrong".
std::shared_ptr<PluginLibrary> open_plugin_library(const std::string& path);
// Validates a description as open_plugin_library does (`path` names the subject in messages) and returns
// the library without entry points: the caller sets those of the operations it declares.
std::shared_ptr<PluginLibrary> plugin_library_from_description(const std::string& path, const ordo_subject_info& info);

// An ORDO_STATUS_* code as ordo's status (an unknown code is a subject fault).
Status status_from_abi(int code, const char* message);
int dtype_to_abi(DType t);

}  // namespace ordo
