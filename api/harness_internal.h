#pragma once
// What the C API's translation units share: the contract handle, the last-error message, and the
// conversion of the ABI's argument structs into ordo's problems, with every defect named.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backward_problem.h"
#include "core/contract.h"
#include "core/problem.h"

extern "C" {
#include "ordo/harness.h"
}

struct ordo_harness_contract {
  ordo::Contract contract;
  std::string json;  // contract_to_json, kept for ordo_harness_contract_json
};

namespace ordo::api {

// A failure at the boundary: its code and message reach the caller as the return value and
// ordo_harness_last_error().
class ApiError : public std::runtime_error {
 public:
  ApiError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

[[noreturn]] inline void argument_error(const std::string& what) { throw ApiError(ORDO_HARNESS_E_ARGUMENT, what); }

void set_last_error(const std::string& message);
void set_last_refusal(int status);
// Runs `body`, mapping every exception to a return code and the last-error message: nothing escapes.
template <class Body>
int guarded(const char* function, Body body) {
  set_last_refusal(0);
  try {
    body();
    return ORDO_HARNESS_OK;
  } catch (const ApiError& e) {
    set_last_error(std::string(function) + ": " + e.what());
    return e.code();
  } catch (const std::bad_alloc&) {
    set_last_error(std::string(function) + ": out of memory");
    return ORDO_HARNESS_E_INTERNAL;
  } catch (const std::exception& e) {
    set_last_error(std::string(function) + ": " + e.what());
    return ORDO_HARNESS_E_INTERNAL;
  } catch (...) {
    set_last_error(std::string(function) + ": an unknown exception");
    return ORDO_HARNESS_E_INTERNAL;
  }
}

const Contract& contract_of(const ordo_harness_contract* handle);

// A forward problem from the ABI's arguments. `operand_dtype` 0 accepts f32 or bf16 operands (both alike).
// Checks: struct_size, non-null data, sizes >= 1, agreeing shapes, dtypes, NULL stream; bf16 operands are
// widened to the floats of equal value. `y_required`: the output must be given.
ForwardProblem forward_problem(const ordo_forward_args* args, int operand_dtype, bool y_required);
BackwardDataProblem backward_data_problem(const ordo_backward_data_args* args, int operand_dtype);
BackwardWeightProblem backward_weight_problem(const ordo_backward_weight_args* args, int operand_dtype);

// Writes floats into an output of dtype f32, or bf16 (the floats are bf16 values: their high 16 bits).
void write_output(const ordo_output& out, const std::vector<float>& values);
// The float of each element of a tensor given as f32 or bf16.
std::vector<float> read_floats(const void* data, int dtype, std::int64_t count);

}  // namespace ordo::api
