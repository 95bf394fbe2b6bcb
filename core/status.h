#pragma once
#include <string>
#include <string_view>

namespace ordo {

// Every way a kernel call can be refused. Fail-closed means each unsupported input gets its own code
// and message, and the call touches no output.
enum class StatusCode {
  ok,
  no_device,           // no CUDA device, or the driver is missing
  unsupported_device,  // the variant needs a newer SM than the current device has
  unknown_variant,     // no registered variant with that id
  wrong_dtype,         // an operand's dtype is not the one the contract names
  bad_size,            // a size is zero or negative, or too large for the kernel's indexing/grid
  inconsistent_size,   // operand shapes disagree (x.cols != w.cols, y is not [M,N], bias is not [N])
  null_pointer,        // a required pointer is null
  host_pointer,        // a pointer is not device memory of the current device
  wrong_device,        // a pointer is device memory of another device
  unsupported_shape,   // valid sizes the variant does not support (e.g. K not a multiple of its k_multiple)
  misaligned,          // a pointer is not aligned as the variant needs (element size; 16 bytes for TMA)
  aliasing,            // the output overlaps an input
  // The logical keys that fix the token order of dW/db (core/logical_keys.h) and backward sessions:
  bad_keys,                  // keys are not int64 [T, 2] or [T, 3] row-major with T = the token count, or are
                             // missing where the call needs them
  duplicate_key,             // two active rows share one key: their order, hence the bits, would be undefined
  padding_gradient_nonzero,  // a padding row (first key column < 0) has a gradient element other than +0/-0,
                             // which dropping the row would lose
  unexpected_key,            // a backward session got a key that is not among its expected keys
  key_out_of_order,          // an in-order backward session got a key not after the last one it consumed
  missing_keys,              // a backward session finished before every expected key arrived
  launch_failed,             // the CUDA launch or a CUDA call failed
  tool_error,                // a harness error outside the kernel
  subject_fault,             // the subject broke the calling convention: wrote outside its output, left
                             // output elements unwritten, changed an input, or returned the wrong count;
                             // or its process exited or crashed during a call (subjects/isolated_plugin.h)
  subject_timeout,           // the subject did not finish a call within its time limit (a hang); killed
};

std::string_view status_code_name(StatusCode code);

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;

  bool ok() const { return code == StatusCode::ok; }
  static Status success() { return {}; }
  static Status error(StatusCode c, std::string msg) { return {c, std::move(msg)}; }
  std::string to_string() const;
};

}  // namespace ordo
