#include "core/status.h"

namespace ordo {

std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::no_device: return "no_device";
    case StatusCode::unsupported_device: return "unsupported_device";
    case StatusCode::unknown_variant: return "unknown_variant";
    case StatusCode::wrong_dtype: return "wrong_dtype";
    case StatusCode::bad_size: return "bad_size";
    case StatusCode::inconsistent_size: return "inconsistent_size";
    case StatusCode::null_pointer: return "null_pointer";
    case StatusCode::host_pointer: return "host_pointer";
    case StatusCode::wrong_device: return "wrong_device";
    case StatusCode::unsupported_shape: return "unsupported_shape";
    case StatusCode::misaligned: return "misaligned";
    case StatusCode::aliasing: return "aliasing";
    case StatusCode::bad_keys: return "bad_keys";
    case StatusCode::duplicate_key: return "duplicate_key";
    case StatusCode::padding_gradient_nonzero: return "padding_gradient_nonzero";
    case StatusCode::unexpected_key: return "unexpected_key";
    case StatusCode::key_out_of_order: return "key_out_of_order";
    case StatusCode::missing_keys: return "missing_keys";
    case StatusCode::launch_failed: return "launch_failed";
    case StatusCode::tool_error: return "tool_error";
    case StatusCode::subject_fault: return "subject_fault";
    case StatusCode::subject_timeout: return "subject_timeout";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  return std::string(status_code_name(code)) + ": " + message;
}

}  // namespace ordo
