#include "protocol/golden_corpus.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/float_bits.h"
#include "protocol/strict_json.h"

namespace ordo::protocol {
namespace {

GoldenCase read_case(const nlohmann::json& jc, const Location& where) {
  StrictObject c(jc, where);
  GoldenCase gc;
  gc.family = c.string("family");
  ForwardProblem& p = gc.problem;
  p.M = c.integer("M", 1, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.x = c.hex_values("x", c.count("x", "M*K", p.M, p.K), "M*K");
  p.w = c.hex_values("w", c.count("w", "N*K", p.N, p.K), "N*K");
  if (c.has("bias")) p.bias = c.hex_values("bias", p.N, "N");
  gc.y = c.hex_values("y", c.count("y", "M*N", p.M, p.N), "M*N");
  if (c.has("y_dtype")) {
    // A bf16 Y is stored as the float of equal value (bits << 16); the field says so.
    const std::string y_dtype = c.string("y_dtype");
    if (y_dtype != "f32" && y_dtype != "bf16") c.fail("y_dtype", "must be \"f32\" or \"bf16\", got " + in_quotes(y_dtype));
    p.bf16_output = y_dtype == "bf16";
  }
  c.no_unknown();
  // What the checks above promise; a failure here is a bug in this reader, reported as a located error.
  if (!p.shapes_consistent()) c.fail("", "shapes inconsistent after reading (reader bug)");
  return gc;
}

}  // namespace

nlohmann::json to_hex(const std::vector<float>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (float f : v) a.push_back(hex_bits(f).substr(2));
  return a;
}

nlohmann::json golden_head_json(std::string_view schema, const GoldenSource& source) {
  nlohmann::json j;
  j["schema"] = schema;
  j["variant"] = source.variant;
  j["contract"] = source.contract;
  j["gpu"] = source.gpu;
  j["commit"] = source.commit;
  return j;
}

void write_golden_json(const nlohmann::json& j, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << j.dump(1) << "\n";
}

const nlohmann::json& read_golden_head(StrictObject& h, std::string_view schema, GoldenSource& source) {
  h.schema(schema);
  source.variant = h.string("variant");
  source.contract = h.string("contract");
  source.gpu = h.string("gpu");
  source.commit = h.string("commit");
  const nlohmann::json& cases = h.array("cases");
  h.no_unknown();
  // A file without cases would replay as a pass while checking nothing.
  if (cases.empty()) h.fail("cases", "must hold at least one case");
  return cases;
}

void write_golden_file(const GoldenFile& f, const std::string& path) {
  nlohmann::json j = golden_head_json(kGoldenSchema, f);
  for (const GoldenCase& c : f.cases) {
    nlohmann::json jc = {{"family", c.family}, {"M", c.problem.M}, {"N", c.problem.N}, {"K", c.problem.K},
                         {"x", to_hex(c.problem.x)}, {"w", to_hex(c.problem.w)}, {"y", to_hex(c.y)}};
    if (c.problem.bias) jc["bias"] = to_hex(*c.problem.bias);
    if (c.problem.bf16_output) jc["y_dtype"] = "bf16";
    j["cases"].push_back(jc);
  }
  write_golden_json(j, path);
}

GoldenFile parse_golden_text(std::string_view text, const std::string& where) {
  const nlohmann::json j = parse_strict_json(text, where);
  StrictObject h(j, Location{where, std::nullopt});
  GoldenFile f;
  const nlohmann::json& cases = read_golden_head(h, kGoldenSchema, f);
  for (std::size_t i = 0; i < cases.size(); ++i) f.cases.push_back(read_case(cases[i], Location{where, i}));
  return f;
}

GoldenFile read_golden_file(const std::string& path) { return parse_golden_text(read_corpus_file(path), path); }

}  // namespace ordo::protocol
