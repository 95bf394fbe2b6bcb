#include "subjects/plugin_library.h"

#include <dlfcn.h>

#include <cstring>
#include <set>

#include "core/contract_file.h"

namespace ordo {
namespace {

// ordo's status codes and the ABI's share their numbers; this pins that.
static_assert(ORDO_STATUS_UNSUPPORTED_DEVICE == static_cast<int>(StatusCode::unsupported_device));
static_assert(ORDO_STATUS_WRONG_DTYPE == static_cast<int>(StatusCode::wrong_dtype));
static_assert(ORDO_STATUS_BAD_SIZE == static_cast<int>(StatusCode::bad_size));
static_assert(ORDO_STATUS_INCONSISTENT_SIZE == static_cast<int>(StatusCode::inconsistent_size));
static_assert(ORDO_STATUS_NULL_POINTER == static_cast<int>(StatusCode::null_pointer));
static_assert(ORDO_STATUS_HOST_POINTER == static_cast<int>(StatusCode::host_pointer));
static_assert(ORDO_STATUS_WRONG_DEVICE == static_cast<int>(StatusCode::wrong_device));
static_assert(ORDO_STATUS_UNSUPPORTED_SHAPE == static_cast<int>(StatusCode::unsupported_shape));
static_assert(ORDO_STATUS_MISALIGNED == static_cast<int>(StatusCode::misaligned));
static_assert(ORDO_STATUS_ALIASING == static_cast<int>(StatusCode::aliasing));
static_assert(ORDO_STATUS_BAD_KEYS == static_cast<int>(StatusCode::bad_keys));
static_assert(ORDO_STATUS_DUPLICATE_KEY == static_cast<int>(StatusCode::duplicate_key));
static_assert(ORDO_STATUS_PADDING_GRADIENT_NONZERO == static_cast<int>(StatusCode::padding_gradient_nonzero));
static_assert(ORDO_STATUS_LAUNCH_FAILED == static_cast<int>(StatusCode::launch_failed));

[[noreturn]] void fail(const std::string& path, const std::string& field, const std::string& what) {
  throw PluginError(path + ": " + (field.empty() ? "" : field + ": ") + what);
}

// A C string from the library, checked: non-null, at most `limit` bytes, printable ASCII.
std::string checked_string(const char* s, std::size_t limit, const std::string& path, const std::string& field) {
  if (s == nullptr) fail(path, field, "is NULL");
  const std::size_t n = strnlen(s, limit + 1);
  if (n > limit) fail(path, field, "longer than " + std::to_string(limit) + " bytes (or not NUL-terminated)");
  for (std::size_t i = 0; i < n; ++i) {
    const auto ch = static_cast<unsigned char>(s[i]);
    if (ch < 0x20 && ch != '\n' && ch != '\t') fail(path, field, "contains a control character");
  }
  return std::string(s, n);
}

DType dtype_from_abi(int d, const std::string& path, const std::string& field) {
  if (d == ORDO_DTYPE_F32) return DType::f32;
  if (d == ORDO_DTYPE_BF16) return DType::bf16;
  fail(path, field, "must be ORDO_DTYPE_F32 (1) or ORDO_DTYPE_BF16 (2), got " + std::to_string(d));
}

ContractKind kind_of_op(int op) {
  return op == ORDO_OP_FORWARD ? ContractKind::forward
         : op == ORDO_OP_BACKWARD_DATA ? ContractKind::backward_data
                                       : ContractKind::backward_weight;
}

const char* op_name(int op) {
  return op == ORDO_OP_FORWARD ? "forward" : op == ORDO_OP_BACKWARD_DATA ? "backward_data" : "backward_weight";
}

PluginOperation read_operation(const ordo_operation_info& info, std::size_t index, const PluginLibrary& lib) {
  const std::string field = "operations[" + std::to_string(index) + "]";
  const std::string& path = lib.path;
  if (info.op != ORDO_OP_FORWARD && info.op != ORDO_OP_BACKWARD_DATA && info.op != ORDO_OP_BACKWARD_WEIGHT)
    fail(path, field + ".op", "must be ORDO_OP_FORWARD, ORDO_OP_BACKWARD_DATA or ORDO_OP_BACKWARD_WEIGHT, got " +
                                  std::to_string(info.op));
  PluginOperation op;
  op.op = info.op;
  const std::string contract_text = checked_string(info.contract, 1u << 16, path, field + ".contract");
  Contract contract;
  try {
    contract = !contract_text.empty() && contract_text[0] == '{'
                   ? contract_from_text(contract_text, path + ": " + field + ".contract")
                   : resolve_contract(contract_text);
  } catch (const ContractFileError& e) {
    // A JSON text's errors already name the library and the field; an id's do not.
    if (!contract_text.empty() && contract_text[0] == '{') throw PluginError(e.what());
    fail(path, field + ".contract", e.what());
  }
  if (contract.kind != kind_of_op(info.op))
    fail(path, field + ".contract",
         "\"" + contract.id + "\" is a " + std::string(contract_kind_name(contract.kind)) + " contract, but the operation is " +
             op_name(info.op));
  SubjectTraits& t = op.traits;
  t.contract = contract;
  t.kind = "plugin";
  t.id = "plugin:" + lib.name + "/" + op_name(info.op);
  t.operand_dtype = dtype_from_abi(info.operand_dtype, path, field + ".operand_dtype");
  if (t.operand_dtype != contract.plan.operand_dtype)
    fail(path, field + ".operand_dtype",
         std::string(dtype_name(t.operand_dtype)) + " operands, but the contract takes " +
             std::string(dtype_name(contract.plan.operand_dtype)));
  const std::uint32_t known_outputs = (1u << ORDO_DTYPE_F32) | (1u << ORDO_DTYPE_BF16);
  if (info.op == ORDO_OP_FORWARD) {
    if (info.output_dtypes == 0 || (info.output_dtypes & ~known_outputs) != 0)
      fail(path, field + ".output_dtypes", "must be a non-empty set of (1u << ORDO_DTYPE_F32) and (1u << ORDO_DTYPE_BF16)");
    t.output_dtypes.clear();
    for (const DType d : {DType::f32, DType::bf16}) {
      if ((info.output_dtypes & (1u << dtype_to_abi(d))) == 0) continue;
      if (!contract.plan.allows_output(d))
        fail(path, field + ".output_dtypes",
             "declares a " + std::string(dtype_name(d)) + " output, which contract " + contract.id + " does not allow");
      t.output_dtypes.push_back(d);
    }
  } else if (info.output_dtypes != 0 && info.output_dtypes != (1u << ORDO_DTYPE_F32)) {
    fail(path, field + ".output_dtypes", "backward outputs are f32: 0 or (1u << ORDO_DTYPE_F32)");
  }
  if (info.k_multiple < 1 || info.k_multiple > (1 << 20))
    fail(path, field + ".k_multiple", "must be in [1, 2^20], got " + std::to_string(info.k_multiple));
  t.k_multiple = info.k_multiple;
  if (info.alignment < 0 || info.alignment > 4096 || (info.alignment & (info.alignment - 1)) != 0)
    fail(path, field + ".alignment", "must be 0 or a power of two up to 4096, got " + std::to_string(info.alignment));
  t.operand_alignment = info.alignment;
  if (info.min_sm < 0 || info.max_sm < 0 || (info.max_sm != 0 && info.max_sm < info.min_sm))
    fail(path, field + ".min_sm/max_sm", "need 0 <= min_sm <= max_sm (max_sm 0: no limit)");
  if (lib.host_buffers && (info.min_sm != 0 || info.max_sm != 0))
    fail(path, field + ".min_sm/max_sm", "a host-buffer subject has no SM range: set both to 0");
  t.sm = SmRange{info.min_sm, info.max_sm};
  const std::uint32_t known_flags = ORDO_SUBJECT_FAIL_CLOSED | ORDO_SUBJECT_ACCUMULATE;
  if ((info.flags & ~known_flags) != 0) fail(path, field + ".flags", "unknown flag bits " + std::to_string(info.flags & ~known_flags));
  if ((info.flags & ORDO_SUBJECT_ACCUMULATE) && info.op != ORDO_OP_BACKWARD_WEIGHT)
    fail(path, field + ".flags", "ORDO_SUBJECT_ACCUMULATE applies to backward_weight only");
  t.fail_closed = (info.flags & ORDO_SUBJECT_FAIL_CLOSED) != 0;
  t.accumulate = (info.flags & ORDO_SUBJECT_ACCUMULATE) != 0;
  t.device_buffers = !lib.host_buffers;
  t.description = "plugin " + lib.name + " " + lib.version + " (" + path + ")";
  return op;
}

}  // namespace

int dtype_to_abi(DType t) {
  switch (t) {
    case DType::f32: return ORDO_DTYPE_F32;
    case DType::bf16: return ORDO_DTYPE_BF16;
    case DType::f16: return ORDO_DTYPE_F16;
    case DType::f64: return ORDO_DTYPE_F64;
    case DType::i64: return ORDO_DTYPE_I64;
  }
  return 0;
}

Status status_from_abi(int code, const char* message) {
  std::string text = message ? std::string(message, strnlen(message, 1024)) : std::string();
  if (code == ORDO_OK) return Status::success();
  const bool known = (code >= ORDO_STATUS_UNSUPPORTED_DEVICE && code <= ORDO_STATUS_PADDING_GRADIENT_NONZERO &&
                      code != 3) ||
                     code == ORDO_STATUS_LAUNCH_FAILED || code == ORDO_STATUS_OTHER;
  if (!known) return Status::error(StatusCode::subject_fault, "returned the unknown status code " + std::to_string(code) + (text.empty() ? "" : ": " + text));
  if (code == ORDO_STATUS_OTHER) return Status::error(StatusCode::tool_error, "the subject failed: " + text);
  return Status::error(static_cast<StatusCode>(code), text);
}

std::shared_ptr<PluginLibrary> plugin_library_from_description(const std::string& path, const ordo_subject_info& info) {
  auto lib = std::make_shared<PluginLibrary>();
  lib->path = path;
  if (info.abi_version != ORDO_SUBJECT_ABI_VERSION)
    fail(path, "abi_version", std::to_string(info.abi_version) + ", but this ordo speaks " + std::to_string(ORDO_SUBJECT_ABI_VERSION));
  if (info.struct_size != sizeof(ordo_subject_info))
    fail(path, "struct_size", std::to_string(info.struct_size) + ", expected sizeof(ordo_subject_info) = " +
                                  std::to_string(sizeof(ordo_subject_info)));
  lib->name = checked_string(info.name, 64, path, "name");
  if (lib->name.empty()) fail(path, "name", "is empty");
  for (const char ch : lib->name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.'))
      fail(path, "name", "\"" + lib->name + "\": use letters, digits, '-', '_' and '.'");
  lib->version = checked_string(info.version, 64, path, "version");
  if (info.buffers != ORDO_BUFFERS_DEVICE && info.buffers != ORDO_BUFFERS_HOST)
    fail(path, "buffers", "must be ORDO_BUFFERS_DEVICE (0) or ORDO_BUFFERS_HOST (1), got " + std::to_string(info.buffers));
  lib->host_buffers = info.buffers == ORDO_BUFFERS_HOST;
  if (info.operation_count < 1 || info.operation_count > 8)
    fail(path, "operation_count", "must be 1..8, got " + std::to_string(info.operation_count));
  if (info.operations == nullptr) fail(path, "operations", "is NULL");
  std::set<int> ops;
  for (std::uint32_t i = 0; i < info.operation_count; ++i) {
    PluginOperation op = read_operation(info.operations[i], i, *lib);
    if (!ops.insert(op.op).second)
      fail(path, "operations[" + std::to_string(i) + "].op", std::string(op_name(op.op)) + " is declared twice");
    lib->operations.push_back(std::move(op));
  }
  return lib;
}

std::shared_ptr<PluginLibrary> open_plugin_library(const std::string& path) {
  void* h = dlopen(path.find('/') == std::string::npos ? ("./" + path).c_str() : path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) fail(path, "", std::string("cannot load the library: ") + dlerror());
  std::shared_ptr<void> handle(h, [](void* p) { dlclose(p); });
  auto describe = reinterpret_cast<ordo_subject_describe_fn>(dlsym(h, "ordo_subject_describe"));
  if (!describe) fail(path, "", "does not export ordo_subject_describe (see include/ordo/subject.h; `nm -D " + path + "`)");
  ordo_subject_info info;
  std::memset(&info, 0, sizeof info);
  if (const int rc = describe(&info); rc != 0) fail(path, "ordo_subject_describe", "returned " + std::to_string(rc));
  std::shared_ptr<PluginLibrary> lib = plugin_library_from_description(path, info);
  lib->handle = std::move(handle);
  // A missing symbol leaves the callable empty (dlsym's null converts to an empty std::function).
  if (auto f = reinterpret_cast<ordo_subject_forward_fn>(dlsym(h, "ordo_subject_forward"))) lib->forward = f;
  if (auto f = reinterpret_cast<ordo_subject_backward_data_fn>(dlsym(h, "ordo_subject_backward_data"))) lib->backward_data = f;
  if (auto f = reinterpret_cast<ordo_subject_backward_weight_fn>(dlsym(h, "ordo_subject_backward_weight")))
    lib->backward_weight = f;
  for (const PluginOperation& op : lib->operations) {
    const bool present = op.op == ORDO_OP_FORWARD        ? static_cast<bool>(lib->forward)
                         : op.op == ORDO_OP_BACKWARD_DATA ? static_cast<bool>(lib->backward_data)
                                                          : static_cast<bool>(lib->backward_weight);
    if (!present)
      fail(path, "", std::string("declares ") + op_name(op.op) + " but does not export ordo_subject_" +
                         (op.op == ORDO_OP_FORWARD ? "forward" : op.op == ORDO_OP_BACKWARD_DATA ? "backward_data" : "backward_weight"));
  }
  return lib;
}

}  // namespace ordo
