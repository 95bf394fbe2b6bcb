// The harness's contracts and its version: the built-in rows and files of core/, as opaque handles.
#include <string>

#include "api/harness_internal.h"
#include "core/build_info.h"
#include "core/contract_file.h"

namespace ordo::api {
namespace {
thread_local std::string last_error;
thread_local int last_refusal = 0;

ordo_harness_contract* make_handle(const Contract& c) {
  auto* h = new ordo_harness_contract{c, contract_to_json(c).dump(2)};
  return h;
}
}  // namespace

void set_last_error(const std::string& message) { last_error = message; }
void set_last_refusal(int status) { last_refusal = status; }

const Contract& contract_of(const ordo_harness_contract* handle) {
  if (handle == nullptr) argument_error("contract is NULL");
  return handle->contract;
}

}  // namespace ordo::api

using ordo::api::guarded;

extern "C" {

uint32_t ordo_harness_abi_version(void) { return ORDO_HARNESS_ABI_VERSION; }

const char* ordo_harness_version(void) {
  static const std::string text = std::string("ordo ") + ordo::build_version() + " (commit " + ordo::build_git_commit() +
                                  (ordo::build_git_dirty() ? ", dirty" : "") + ")";
  return text.c_str();
}

const char* ordo_harness_last_error(void) { return ordo::api::last_error.c_str(); }
int32_t ordo_harness_last_refusal(void) { return ordo::api::last_refusal; }

size_t ordo_harness_builtin_count(void) { return ordo::all_contracts().size(); }

int ordo_harness_contract_builtin(size_t index, ordo_harness_contract** out) {
  return guarded("ordo_harness_contract_builtin", [&] {
    if (out == nullptr) ordo::api::argument_error("out is NULL");
    const auto& all = ordo::all_contracts();
    if (index >= all.size())
      ordo::api::argument_error("index " + std::to_string(index) + ": there are " + std::to_string(all.size()) +
                                " built-in contracts");
    *out = ordo::api::make_handle(*all[index]);
  });
}

int ordo_harness_contract_load(const char* id_path_or_json, ordo_harness_contract** out) {
  return guarded("ordo_harness_contract_load", [&] {
    if (out == nullptr) ordo::api::argument_error("out is NULL");
    if (id_path_or_json == nullptr) ordo::api::argument_error("the contract (an id, a path or a JSON text) is NULL");
    const std::string s(id_path_or_json);
    try {
      const ordo::Contract c = !s.empty() && s.find_first_not_of(" \t\r\n") != std::string::npos &&
                                       s[s.find_first_not_of(" \t\r\n")] == '{'
                                   ? ordo::contract_from_text(s, "<contract text>")
                                   : ordo::resolve_contract(s);
      *out = ordo::api::make_handle(c);
    } catch (const ordo::ContractFileError& e) {
      throw ordo::api::ApiError(ORDO_HARNESS_E_CONTRACT, e.what());
    }
  });
}

void ordo_harness_contract_free(ordo_harness_contract* contract) { delete contract; }

const char* ordo_harness_contract_id(const ordo_harness_contract* c) { return c ? c->contract.id.c_str() : ""; }
const char* ordo_harness_contract_summary(const ordo_harness_contract* c) { return c ? c->contract.summary.c_str() : ""; }
const char* ordo_harness_contract_json(const ordo_harness_contract* c) { return c ? c->json.c_str() : ""; }

int32_t ordo_harness_contract_op(const ordo_harness_contract* c) {
  if (!c) return 0;
  switch (c->contract.kind) {
    case ordo::ContractKind::forward: return ORDO_OP_FORWARD;
    case ordo::ContractKind::backward_data: return ORDO_OP_BACKWARD_DATA;
    case ordo::ContractKind::backward_weight: return ORDO_OP_BACKWARD_WEIGHT;
  }
  return 0;
}

int32_t ordo_harness_contract_operand_dtype(const ordo_harness_contract* c) {
  if (!c) return 0;
  return c->contract.plan.operand_dtype == ordo::DType::bf16 ? ORDO_DTYPE_BF16 : ORDO_DTYPE_F32;
}

uint32_t ordo_harness_contract_output_dtypes(const ordo_harness_contract* c) {
  if (!c) return 0;
  uint32_t bits = 0;
  if (c->contract.plan.allows_output(ordo::DType::f32)) bits |= 1u << ORDO_DTYPE_F32;
  if (c->contract.plan.allows_output(ordo::DType::bf16)) bits |= 1u << ORDO_DTYPE_BF16;
  return bits;
}

}  // extern "C"
