// The strict reader of ordo.report/1 (report_reader.h).
#include "reports/report_reader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/bounded_file.h"
#include "core/bounded_json.h"

namespace ordo::reports {
namespace {

using nlohmann::json;

enum class Need { required, optional };

// One JSON object of the report and its path, for messages: every accessor checks presence and type and
// throws "SOURCE: PATH.KEY: what" otherwise.
class Fields {
 public:
  Fields(const json& j, std::string path, const std::string& source) : j_(j), path_(std::move(path)), source_(source) {
    if (!j_.is_object()) fail(path_, "must be an object");
  }

  std::string name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw ReportReadError(source_ + ": " + (field.empty() ? "the top level" : field) + ": " + what);
  }

  // nullptr when an optional field is absent.
  const json* find(const std::string& key, Need need) const {
    const auto it = j_.find(key);
    if (it != j_.end()) return &*it;
    if (need == Need::required) fail(name(key), "missing");
    return nullptr;
  }

  std::string string(const std::string& key, Need need = Need::required) const {
    const json* v = find(key, need);
    if (!v) return {};
    if (!v->is_string()) fail(name(key), "must be a string");
    return v->get<std::string>();
  }

  bool boolean(const std::string& key, Need need = Need::required) const {
    const json* v = find(key, need);
    if (!v) return false;
    if (!v->is_boolean()) fail(name(key), "must be true or false");
    return v->get<bool>();
  }

  std::int64_t integer(const std::string& key, Need need = Need::required) const {
    const json* v = find(key, need);
    return v ? as_integer(*v, name(key)) : 0;
  }

  // A count: an integer >= 0.
  std::int64_t count(const std::string& key, Need need = Need::required) const {
    const json* v = find(key, need);
    return v ? as_count(*v, name(key)) : 0;
  }

  std::uint64_t unsigned_integer(const std::string& key) const {
    const json* v = find(key, Need::required);
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    return static_cast<std::uint64_t>(as_count(*v, name(key)));
  }

  int small_integer(const std::string& key) const {
    const std::int64_t v = integer(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) fail(name(key), "out of range");
    return static_cast<int>(v);
  }

  double number(const std::string& key, Need need = Need::required) const {
    const json* v = find(key, need);
    return v ? as_number(*v, name(key)) : 0.0;
  }

  const json& array(const std::string& key, Need need = Need::required) const {
    static const json empty = json::array();
    const json* v = find(key, need);
    if (!v) return empty;
    if (!v->is_array()) fail(name(key), "must be an array");
    return *v;
  }

  const json& object(const std::string& key, Need need = Need::required) const {
    static const json empty = json::object();
    const json* v = find(key, need);
    if (!v) return empty;
    if (!v->is_object()) fail(name(key), "must be an object");
    return *v;
  }

  // The object under `key`, or element i of the array under `key`, with its own path.
  Fields child(const std::string& key, Need need = Need::required) const {
    return {object(key, need), name(key), source_};
  }
  Fields element(const std::string& key, std::size_t i) const {
    return {array(key, Need::optional).at(i), name(key) + "[" + std::to_string(i) + "]", source_};
  }

  // {"name": count, ...}
  std::map<std::string, std::int64_t> count_map(const std::string& key, Need need = Need::required) const {
    std::map<std::string, std::int64_t> out;
    for (const auto& [k, v] : object(key, need).items()) out[k] = as_count(v, name(key) + "." + k);
    return out;
  }

  std::map<std::string, double> number_map(const std::string& key, Need need = Need::required) const {
    std::map<std::string, double> out;
    for (const auto& [k, v] : object(key, need).items()) out[k] = as_number(v, name(key) + "." + k);
    return out;
  }

 private:
  std::int64_t as_integer(const json& v, const std::string& field) const {
    if (!v.is_number_integer()) fail(field, "must be an integer");
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      fail(field, "out of range");
    return v.get<std::int64_t>();
  }
  std::int64_t as_count(const json& v, const std::string& field) const {
    const std::int64_t n = as_integer(v, field);
    if (n < 0) fail(field, "must not be negative");
    return n;
  }
  // The writers emit NaN and the infinities as null (JSON has no such numbers): read back as NaN.
  double as_number(const json& v, const std::string& field) const {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail(field, "must be a number");
    return v.get<double>();
  }

  const json& j_;
  std::string path_;
  const std::string& source_;
};

Verdict parse_verdict(const Fields& f, const std::string& key) {
  const std::string name = f.string(key);
  for (Verdict v :
       {Verdict::pass, Verdict::mismatch, Verdict::bound_violation,
        Verdict::expected_rejection_missing, Verdict::mutant_missed,
        Verdict::subject_fault, Verdict::inconclusive, Verdict::tool_error})
    if (verdict_name(v) == name) return v;
  f.fail(f.name(key), "unknown verdict \"" + name + "\"");
}

ToolInfo read_tool(const Fields& f) {
  ToolInfo t;
  t.version = f.string("version");
  t.git_commit = f.string("git_commit");
  t.git_dirty = f.boolean("git_dirty");
  // Build facts: recorded since the report command; older reports leave them empty ("not recorded").
  t.build_type = f.string("build_type", Need::optional);
  t.compiler = f.string("compiler", Need::optional);
  t.cuda = f.string("cuda", Need::optional);
  t.flags = f.string("flags", Need::optional);
  t.cuda_flags = f.string("cuda_flags", Need::optional);
  return t;
}

Environment read_environment(const Fields& f) {
  Environment e;
  e.host = f.string("host");
  e.cpu = f.string("cpu");
  const std::int64_t threads = f.count("cpu_threads");
  if (threads > std::numeric_limits<unsigned>::max()) f.fail(f.name("cpu_threads"), "out of range");
  e.cpu_threads = static_cast<unsigned>(threads);
  const json* gpu = f.find("gpu", Need::required);
  if (!gpu->is_null()) {
    const Fields g = f.child("gpu");
    e.gpu = GpuInfo{g.string("name"), g.small_integer("sm"), g.string("driver"), g.string("cuda_runtime"),
                    g.small_integer("sm_count")};
  }
  e.gpu_absent_reason = f.string("gpu_absent_reason", Need::optional);
  return e;
}

FailureRecord read_failure(const Fields& f) {
  FailureRecord r;
  r.reproduce = f.string("reproduce");
  r.detail = f.string("detail");
  r.original = f.string("original");
  r.minimised = f.string("minimised");
  r.shrink_steps = f.small_integer("shrink_steps");
  r.family = f.string("family", Need::optional);  // recorded since the self-test
  // Written for generated cases since failures are listed by case; before, a failure is named by `original`.
  if (f.find("case_index", Need::optional)) r.case_index = f.count("case_index");
  return r;
}

ResultRow read_row(const Fields& f) {
  ResultRow row;
  PropertyRun& run = row.run;
  run.name = f.string("property");
  run.description = f.string("description");
  run.kernel = f.string("kernel");
  run.contract = f.string("contract");
  run.backend = f.string("backend");
  run.expect_failure = f.boolean("expect_failure");
  run.cases = f.count("cases");
  run.failed = f.count("failed");
  run.subject_faults = f.count("subject_faults", Need::optional);  // written since subjects run isolated
  if (run.subject_faults > run.failed) f.fail(f.name("subject_faults"), "more subject faults than failed cases");
  if (f.find("unit", Need::optional)) {
    run.unit = f.string("unit");
    if (run.unit != "cases" && run.unit != "relations") f.fail(f.name("unit"), "must be \"cases\" or \"relations\"");
  }
  run.tool_errors = f.count("tool_errors");
  run.skipped = f.count("skipped");
  run.requested = f.count("requested", Need::optional);  // absent before the runner planned cases
  run.elements = f.count("elements");
  run.families = f.count_map("families");
  run.shape_classes = f.count_map("shape_classes");
  run.max_error_over_bound = f.number("max_error_over_bound");
  run.max_error_over_bound_by_family = f.number_map("max_error_over_bound_by_family", Need::optional);
  run.max_relative_error = f.number("max_relative_error", Need::optional);
  run.max_normwise_relative_error = f.number("max_normwise_relative_error", Need::optional);
  run.overflowed = f.count("overflowed_elements");
  run.nonfinite_inputs = f.count("nonfinite_input_elements");
  run.seconds = f.number("seconds");
  run.skip_reason = f.string("skip_reason", Need::optional);
  for (std::size_t i = 0; i < f.array("failures").size(); ++i)
    run.failures.push_back(read_failure(f.element("failures", i)));

  const Verdict stored = parse_verdict(f, "verdict");
  if (f.find("kind", Need::optional)) {
    const std::string kind = f.string("kind");
    if (!parse_kind(kind, &run.kind)) f.fail(f.name("kind"), "unknown property kind \"" + kind + "\"");
  } else {
    // Reports before "kind" was written: a failing verdict names the kind; otherwise it does not matter
    // to the verdict, and bitwise stands in.
    run.kind = stored == Verdict::bound_violation              ? PropertyKind::bound
               : stored == Verdict::expected_rejection_missing ? PropertyKind::scenario
                                                                           : PropertyKind::bitwise;
  }
  if (run.verdict() != stored)
    f.fail(f.name("verdict"), "\"" + std::string(verdict_name(stored)) +
                                  "\" does not follow from the row's counts, which give \"" +
                                  std::string(verdict_name(run.verdict())) + "\"");
  return row;
}

void check_bench_row(const Fields& f) {
  (void)f.string("kernel");
  (void)f.count("M");
  (void)f.count("N");
  (void)f.count("K");
  (void)f.number("ratio");
  (void)f.number("ms", Need::optional);
  (void)f.number("cublas_ms", Need::optional);
}

TimelinePoint read_timeline_point(const Fields& f) {
  return {f.number("seconds"), f.count("cases"), f.count("failures")};
}

}  // namespace

Report report_from_json(const json& j, const std::string& source) {
  if (!j.is_object()) throw ReportReadError(source + ": not an ordo report: the top level must be a JSON object");
  const Fields f(j, "", source);
  const std::string schema = f.string("schema");
  if (schema != "ordo.report/1")
    f.fail("schema", "\"" + schema + "\" is not \"ordo.report/1\" (ordo report renders ordo reports only)");
  Report r;
  r.tool = read_tool(f.child("tool"));
  r.environment = read_environment(f.child("environment"));
  r.command = f.string("command");
  r.seed = f.unsigned_integer("seed");
  r.level = f.small_integer("level");
  r.started_at = f.string("started_at");
  r.seconds = f.number("seconds");
  for (std::size_t i = 0; i < f.array("results").size(); ++i) r.results.push_back(read_row(f.element("results", i)));
  for (std::size_t i = 0; i < f.array("bench").size(); ++i) check_bench_row(f.element("bench", i));
  r.bench = f.array("bench");
  for (std::size_t i = 0; i < f.array("timeline", Need::optional).size(); ++i)
    r.timeline.push_back(read_timeline_point(f.element("timeline", i)));

  const std::string verdict = f.string("verdict");
  // "interrupted" was added later; before it, no report was interrupted.
  r.interrupted = f.find("interrupted", Need::optional) ? f.boolean("interrupted") : verdict == "interrupted";
  if (verdict != report_verdict(r))
    f.fail("verdict", "\"" + verdict + "\" does not follow from the rows, which give \"" + report_verdict(r) + "\"");
  return r;
}

Report parse_report(const std::string& text, const std::string& source) {
  json j;
  try {
    j = parse_json_bounded(text, kMaxReportDepth);
  } catch (const JsonTextError& e) {
    throw ReportReadError(source + ": " + e.what());
  }
  return report_from_json(j, source);
}

Report read_report_file(const std::string& path) {
  // A folder, a FIFO or a device is refused without reading; so is a file larger than any report.
  try {
    return parse_report(read_bounded_file(path, std::size_t{256} << 20, "reports"), path);
  } catch (const FileReadError& e) {
    throw ReportReadError(e.what());
  }
}

}  // namespace ordo::reports
