#pragma once
// Reads an ordo report (schema "ordo.report/1": what verify, check, probe, fuzz, selftest and the benches
// write) back into a Report, so that one set of writers renders every report, whichever tool wrote it.
//
// Strict on the stable core: every field the writers rely on must be present with its type, and every
// verdict must follow from the counts it is computed from (core/verdict.h); a renderer never shows
// a verdict the evidence does not give. Lenient on the rest: unknown fields are ignored (the schema grows
// by adding fields), and fields added after the first reports (requested, kind, the build facts, the
// per-family tightness, timeline, ...) are optional.
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "reports/report.h"

namespace ordo::reports {

// what(): "SOURCE: FIELD: what is wrong", FIELD a path into the JSON such as "results[3].cases", or
// "SOURCE: what is wrong" for the file as a whole (unreadable, not JSON, another schema).
class ReportReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the report in every error (the file name as the user gave it).
Report report_from_json(const nlohmann::json& j, const std::string& source);
// JSON nested at most kMaxReportDepth levels (reports need 5; rows may carry extra fields), no key twice in
// one object.
inline constexpr int kMaxReportDepth = 32;
Report parse_report(const std::string& text, const std::string& source);
Report read_report_file(const std::string& path);

}  // namespace ordo::reports
