#include "properties/golden_backward.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "properties/golden_corpus.h"

namespace ordo::properties {
namespace {

constexpr const char* kSchema = "ordo.golden-backward/1";

std::size_t size(std::int64_t a, std::int64_t b = 1) { return static_cast<std::size_t>(a * b); }

}  // namespace

void write_golden_backward_file(const GoldenBackwardFile& f, const std::string& path) {
  nlohmann::json j;
  j["schema"] = kSchema;
  j["variant"] = f.variant;
  j["contract"] = f.contract;
  j["gpu"] = f.gpu;
  j["commit"] = f.commit;
  j["cases"] = nlohmann::json::array();
  for (const GoldenBackwardCase& c : f.cases) {
    nlohmann::json jc = {{"family", c.family}};
    if (c.data) {
      const BackwardDataProblem& p = *c.data;
      jc.update({{"kind", "dx"}, {"M", p.M}, {"N", p.N}, {"K", p.K}, {"g", to_hex(p.g)}, {"w", to_hex(p.w)},
                 {"dx", to_hex(c.dx)}});
    } else if (c.weight) {
      const BackwardWeightProblem& p = *c.weight;
      jc.update({{"kind", "dw"}, {"T", p.T}, {"N", p.N}, {"K", p.K}, {"x", to_hex(p.x)}, {"g", to_hex(p.g)},
                 {"dw", to_hex(c.dw.dw)}});
      if (p.keys) jc["keys"] = {{"width", p.keys->width}, {"values", p.keys->values}};
      if (c.dw.db) jc["db"] = to_hex(*c.dw.db);
    } else {
      throw std::invalid_argument("golden backward case without a problem");
    }
    j["cases"].push_back(jc);
  }
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << j.dump(1) << "\n";
}

GoldenBackwardFile read_golden_backward_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  if (j.value("schema", "") != kSchema) throw std::runtime_error(path + ": not an " + std::string(kSchema) + " file");
  GoldenBackwardFile f;
  f.variant = j.at("variant");
  f.contract = j.at("contract");
  f.gpu = j.at("gpu");
  f.commit = j.at("commit");
  const bool bf16 = f.contract.find(".bf16.") != std::string::npos;
  for (const auto& jc : j.at("cases")) {
    GoldenBackwardCase c;
    c.family = jc.at("family");
    const std::string kind = jc.at("kind");
    if (kind == "dx") {
      BackwardDataProblem p;
      p.M = jc.at("M");
      p.N = jc.at("N");
      p.K = jc.at("K");
      p.bf16_operands = bf16;
      p.g = from_hex(jc.at("g"), size(p.M, p.N), "g");
      p.w = from_hex(jc.at("w"), size(p.N, p.K), "w");
      c.dx = from_hex(jc.at("dx"), size(p.M, p.K), "dx");
      c.data = std::move(p);
    } else if (kind == "dw") {
      BackwardWeightProblem p;
      p.T = jc.at("T");
      p.N = jc.at("N");
      p.K = jc.at("K");
      p.bf16_operands = bf16;
      p.x = from_hex(jc.at("x"), size(p.T, p.K), "x");
      p.g = from_hex(jc.at("g"), size(p.T, p.N), "g");
      if (jc.contains("keys")) {
        LogicalKeys keys;
        keys.width = jc.at("keys").at("width");
        keys.values = jc.at("keys").at("values").get<std::vector<std::int64_t>>();
        if (keys.rows() != p.T || static_cast<std::int64_t>(keys.values.size()) != p.T * keys.width)
          throw std::runtime_error(path + ": keys do not have T rows");
        p.keys = std::move(keys);
      }
      c.dw.dw = from_hex(jc.at("dw"), size(p.N, p.K), "dw");
      if (jc.contains("db")) {
        p.with_bias_grad = true;
        c.dw.db = from_hex(jc.at("db"), size(p.N), "db");
      }
      c.weight = std::move(p);
    } else {
      throw std::runtime_error(path + ": unknown case kind " + kind);
    }
    f.cases.push_back(std::move(c));
  }
  return f;
}

}  // namespace ordo::properties
