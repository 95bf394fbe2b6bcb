#include "properties/golden_corpus.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/float_bits.h"

namespace ordo::properties {
nlohmann::json to_hex(const std::vector<float>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (float f : v) a.push_back(hex_bits(f).substr(2));
  return a;
}

std::vector<float> from_hex(const nlohmann::json& a, std::size_t expected, const char* what) {
  if (!a.is_array() || a.size() != expected)
    throw std::runtime_error(std::string("golden file: ") + what + " has the wrong length");
  std::vector<float> v;
  v.reserve(expected);
  for (const auto& s : a) v.push_back(float_of(static_cast<std::uint32_t>(std::stoul(s.get<std::string>(), nullptr, 16))));
  return v;
}

void write_golden_file(const GoldenFile& f, const std::string& path) {
  nlohmann::json j;
  j["schema"] = "ordo.golden/1";
  j["variant"] = f.variant;
  j["contract"] = f.contract;
  j["gpu"] = f.gpu;
  j["commit"] = f.commit;
  for (const GoldenCase& c : f.cases) {
    nlohmann::json jc = {{"family", c.family}, {"M", c.problem.M}, {"N", c.problem.N}, {"K", c.problem.K},
                         {"x", to_hex(c.problem.x)}, {"w", to_hex(c.problem.w)}, {"y", to_hex(c.y)}};
    if (c.problem.bias) jc["bias"] = to_hex(*c.problem.bias);
    // A bf16 Y is stored as the float of equal value (bits << 16); the field says so.
    if (c.problem.bf16_output) jc["y_dtype"] = "bf16";
    j["cases"].push_back(jc);
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << j.dump(1) << "\n";
}

GoldenFile read_golden_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  if (j.value("schema", "") != "ordo.golden/1") throw std::runtime_error(path + ": not an ordo.golden/1 file");
  GoldenFile f;
  f.variant = j.at("variant");
  f.contract = j.at("contract");
  f.gpu = j.at("gpu");
  f.commit = j.at("commit");
  for (const auto& jc : j.at("cases")) {
    GoldenCase c;
    c.family = jc.at("family");
    c.problem.M = jc.at("M");
    c.problem.N = jc.at("N");
    c.problem.K = jc.at("K");
    const auto M = static_cast<std::size_t>(c.problem.M), N = static_cast<std::size_t>(c.problem.N),
               K = static_cast<std::size_t>(c.problem.K);
    c.problem.x = from_hex(jc.at("x"), M * K, "x");
    c.problem.w = from_hex(jc.at("w"), N * K, "w");
    if (jc.contains("bias")) c.problem.bias = from_hex(jc.at("bias"), N, "bias");
    c.y = from_hex(jc.at("y"), M * N, "y");
    const std::string y_dtype = jc.value("y_dtype", "f32");
    if (y_dtype != "f32" && y_dtype != "bf16") throw std::runtime_error(path + ": unknown y_dtype " + y_dtype);
    c.problem.bf16_output = y_dtype == "bf16";
    f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace ordo::properties
