#pragma once
// A subject library (include/ordo/subject.h) opened with dlopen and its description validated strictly:
// every defect of the description is an error naming the library and the field, before anything runs.
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

// An opened library: the handle stays open while any subject refers to it.
struct PluginLibrary {
  std::string path;
  std::string name, version;
  bool host_buffers = false;
  std::vector<PluginOperation> operations;
  std::shared_ptr<void> handle;
  ordo_subject_forward_fn forward = nullptr;
  ordo_subject_backward_data_fn backward_data = nullptr;
  ordo_subject_backward_weight_fn backward_weight = nullptr;
};

// Opens and validates; throws PluginError "PATH: FIELD: what is wrong".
std::shared_ptr<PluginLibrary> open_plugin_library(const std::string& path);

// An ORDO_STATUS_* code as ordo's status (an unknown code is a subject fault).
Status status_from_abi(int code, const char* message);
int dtype_to_abi(DType t);

}  // namespace ordo
