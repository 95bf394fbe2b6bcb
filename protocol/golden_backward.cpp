#include "protocol/golden_backward.h"

#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/contract.h"
#include "protocol/golden_corpus.h"
#include "protocol/strict_json.h"

namespace ordo::protocol {
namespace {

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// What a file's contract says about its cases. A built-in contract is looked up (its operand dtype, and
// the operation every case must be); any other id (a contract file of a plugin variant) falls back to
// the naming convention of the ids, and the replay's emulator checks the rest.
struct FileContract {
  bool bf16 = false;
  std::optional<ContractKind> kind;
};

FileContract file_contract(const std::string& id) {
  if (const Contract* c = find_contract(id)) return {c->plan.operand_dtype == DType::bf16, c->kind};
  return {id.find(".bf16.") != std::string::npos, std::nullopt};
}

// A problem ordo::validate refuses is refused here, with its reason, so that nothing downstream sees it.
void require_valid(const Status& s, const StrictObject& c) {
  if (!s.ok()) c.fail("", "the problem is invalid: " + s.to_string());
}

void read_data_case(StrictObject& c, GoldenBackwardCase& gc, bool bf16) {
  BackwardDataProblem p;
  p.M = c.integer("M", 1, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.bf16_operands = bf16;
  p.g = c.hex_values("g", c.count("g", "M*N", p.M, p.N), "M*N");
  p.w = c.hex_values("w", c.count("w", "N*K", p.N, p.K), "N*K");
  gc.dx = c.hex_values("dx", c.count("dx", "M*K", p.M, p.K), "M*K");
  c.no_unknown();
  require_valid(validate(p), c);
  gc.data = std::move(p);
}

void read_weight_case(StrictObject& c, GoldenBackwardCase& gc, bool bf16) {
  BackwardWeightProblem p;
  p.T = c.integer("T", 0, kMaxDimension);
  p.N = c.integer("N", 1, kMaxDimension);
  p.K = c.integer("K", 1, kMaxDimension);
  p.bf16_operands = bf16;
  p.x = c.hex_values("x", c.count("x", "T*K", p.T, p.K), "T*K");
  p.g = c.hex_values("g", c.count("g", "T*N", p.T, p.N), "T*N");
  if (c.has("keys")) {
    StrictObject k = c.object("keys");
    LogicalKeys keys;
    keys.width = k.integer("width", 2, 3);
    keys.values = k.integers("values", k.count("values", "T*width", p.T, keys.width), kInt64Min, kInt64Max, "T*width");
    k.no_unknown();
    p.keys = std::move(keys);
  }
  gc.dw.dw = c.hex_values("dw", c.count("dw", "N*K", p.N, p.K), "N*K");
  if (c.has("db")) {
    p.with_bias_grad = true;
    gc.dw.db = c.hex_values("db", p.N, "N");
  }
  c.no_unknown();
  require_valid(validate(p), c);
  gc.weight = std::move(p);
}

GoldenBackwardCase read_case(const nlohmann::json& jc, const Location& where, const FileContract& contract) {
  StrictObject c(jc, where);
  GoldenBackwardCase gc;
  gc.family = c.string("family");
  const std::string kind = c.string("kind");
  if (kind != "dx" && kind != "dw") c.fail("kind", "must be \"dx\" or \"dw\", got " + in_quotes(kind));
  const ContractKind want = kind == "dx" ? ContractKind::backward_data : ContractKind::backward_weight;
  if (contract.kind && *contract.kind != want)
    c.fail("kind", "a \"" + kind + "\" case in a file whose contract is " +
                       (*contract.kind == ContractKind::backward_data     ? "a dX contract"
                        : *contract.kind == ContractKind::backward_weight ? "a dW contract"
                                                                          : "a forward contract"));
  if (kind == "dx") read_data_case(c, gc, contract.bf16);
  else read_weight_case(c, gc, contract.bf16);
  return gc;
}

}  // namespace

void write_golden_backward_file(const GoldenBackwardFile& f, const std::string& path) {
  nlohmann::json j = golden_head_json(kGoldenBackwardSchema, f);
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
  write_golden_json(j, path);
}

GoldenBackwardFile parse_golden_backward_text(std::string_view text, const std::string& where) {
  const nlohmann::json j = parse_strict_json(text, where);
  StrictObject h(j, Location{where, std::nullopt});
  GoldenBackwardFile f;
  const nlohmann::json& cases = read_golden_head(h, kGoldenBackwardSchema, f);
  const FileContract contract = file_contract(f.contract);
  for (std::size_t i = 0; i < cases.size(); ++i) f.cases.push_back(read_case(cases[i], Location{where, i}, contract));
  return f;
}

GoldenBackwardFile read_golden_backward_file(const std::string& path) {
  return parse_golden_backward_text(read_corpus_file(path), path);
}

}  // namespace ordo::protocol
