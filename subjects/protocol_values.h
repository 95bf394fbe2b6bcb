#pragma once
// The composite values of the worker protocol (subjects/worker_protocol.h): statuses, a subject's traits
// (its contract as ordo.contract/1 JSON, read back strictly) and fail-closed outcomes, and the enum
// values inside them, each read as one of its enumerators or refused with a ProtocolError.
#include <cstdint>

#include "core/status.h"
#include "subjects/fail_closed.h"
#include "subjects/subject_traits.h"
#include "subjects/wire_fields.h"

namespace ordo::isolation {

StatusCode status_code(std::uint32_t raw);
DType dtype(std::int32_t raw);

void put_status(Writer& w, const Status& s);
Status get_status(Reader& r);
void put_traits(Writer& w, const SubjectTraits& t);
SubjectTraits get_traits(Reader& r);
void put_outcome(Writer& w, const FailClosedOutcome& o);
FailClosedOutcome get_outcome(Reader& r);

}  // namespace ordo::isolation
