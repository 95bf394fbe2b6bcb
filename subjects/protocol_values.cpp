#include "subjects/protocol_values.h"

#include "core/contract_file.h"
#include "subjects/worker_protocol.h"

namespace ordo::isolation {

// Each switch lists every enumerator, so a new one fails to compile here until the protocol knows it.
StatusCode status_code(std::uint32_t raw) {
  const auto c = static_cast<StatusCode>(raw);
  switch (c) {
    case StatusCode::ok:
    case StatusCode::no_device:
    case StatusCode::unsupported_device:
    case StatusCode::unknown_variant:
    case StatusCode::wrong_dtype:
    case StatusCode::bad_size:
    case StatusCode::inconsistent_size:
    case StatusCode::null_pointer:
    case StatusCode::host_pointer:
    case StatusCode::wrong_device:
    case StatusCode::unsupported_shape:
    case StatusCode::misaligned:
    case StatusCode::aliasing:
    case StatusCode::bad_keys:
    case StatusCode::duplicate_key:
    case StatusCode::padding_gradient_nonzero:
    case StatusCode::unexpected_key:
    case StatusCode::key_out_of_order:
    case StatusCode::missing_keys:
    case StatusCode::launch_failed:
    case StatusCode::tool_error:
    case StatusCode::subject_fault:
    case StatusCode::subject_timeout:
      return c;
  }
  throw ProtocolError("unknown status code " + std::to_string(raw));
}

DType dtype(std::int32_t raw) {
  const auto t = static_cast<DType>(raw);
  switch (t) {
    case DType::f32:
    case DType::bf16:
    case DType::f16:
    case DType::f64:
    case DType::i64:
      return t;
  }
  throw ProtocolError("unknown dtype " + std::to_string(raw));
}

void put_status(Writer& w, const Status& s) {
  w.scalar<std::uint32_t>(static_cast<std::uint32_t>(s.code));
  w.text(s.message);
}

Status get_status(Reader& r) {
  Status s;
  s.code = status_code(r.scalar<std::uint32_t>("status code"));
  s.message = r.text("status message", kMaxTextBytes);
  return s;
}

void put_traits(Writer& w, const SubjectTraits& t) {
  w.text(t.id);
  w.text(t.kind);
  w.text(contract_to_json(t.contract).dump());
  w.text(t.contract.source);
  w.scalar<std::int32_t>(static_cast<std::int32_t>(t.operand_dtype));
  w.scalar<std::uint64_t>(t.output_dtypes.size());
  for (const DType d : t.output_dtypes) w.scalar<std::int32_t>(static_cast<std::int32_t>(d));
  for (const int v : {t.k_multiple, t.operand_alignment, t.sm.min, t.sm.max}) w.scalar<std::int32_t>(v);
  for (const bool b : {t.device_buffers, t.fail_closed, t.accumulate, t.is_mutant}) w.boolean(b);
  w.text(t.description);
}

SubjectTraits get_traits(Reader& r) {
  SubjectTraits t;
  t.id = r.text("traits.id", kMaxTextBytes);
  t.kind = r.text("traits.kind", kMaxTextBytes);
  const std::string contract = r.text("traits.contract", kMaxTextBytes);
  const std::string source = r.text("traits.contract source", kMaxTextBytes);
  try {
    t.contract = contract_from_text(contract, source);
  } catch (const ContractFileError& e) {
    throw ProtocolError(std::string("traits.contract: ") + e.what());
  }
  t.contract.source = source;
  t.operand_dtype = dtype(r.scalar<std::int32_t>("traits.operand_dtype"));
  const auto outputs = r.scalar<std::uint64_t>("traits.output_dtypes");
  if (outputs > 2) throw ProtocolError("traits.output_dtypes: " + std::to_string(outputs) + " entries, at most 2");
  t.output_dtypes.clear();
  for (std::uint64_t i = 0; i < outputs; ++i)
    t.output_dtypes.push_back(dtype(r.scalar<std::int32_t>("traits.output_dtype")));
  t.k_multiple = r.scalar<std::int32_t>("traits.k_multiple");
  t.operand_alignment = r.scalar<std::int32_t>("traits.operand_alignment");
  t.sm.min = r.scalar<std::int32_t>("traits.min_sm");
  t.sm.max = r.scalar<std::int32_t>("traits.max_sm");
  t.device_buffers = r.boolean("traits.device_buffers");
  t.fail_closed = r.boolean("traits.fail_closed");
  t.accumulate = r.boolean("traits.accumulate");
  t.is_mutant = r.boolean("traits.is_mutant");
  t.description = r.text("traits.description", kMaxTextBytes);
  return t;
}

void put_outcome(Writer& w, const FailClosedOutcome& o) {
  w.text(o.scenario);
  w.scalar<std::uint32_t>(static_cast<std::uint32_t>(o.expected));
  w.scalar<std::uint32_t>(static_cast<std::uint32_t>(o.got));
  w.text(o.message);
  w.boolean(o.output_untouched);
  w.boolean(o.skipped);
  w.text(o.skip_reason);
}

FailClosedOutcome get_outcome(Reader& r) {
  FailClosedOutcome o;
  o.scenario = r.text("scenario", kMaxTextBytes);
  o.expected = status_code(r.scalar<std::uint32_t>("scenario expected code"));
  o.got = status_code(r.scalar<std::uint32_t>("scenario code"));
  o.message = r.text("scenario message", kMaxTextBytes);
  o.output_untouched = r.boolean("scenario output_untouched");
  o.skipped = r.boolean("scenario skipped");
  o.skip_reason = r.text("scenario skip reason", kMaxTextBytes);
  return o;
}

}  // namespace ordo::isolation
