#include "core/contract_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/bounded_file.h"

namespace ordo {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& what) {
  throw ContractFileError(where + ": " + (field.empty() ? "" : field + ": ") + what);
}

std::string type_of(const json& v) { return v.type_name(); }

// A view of one JSON object that remembers which fields were read, so that unknown ones are errors.
class Fields {
 public:
  Fields(const json& j, std::string where, std::string prefix)
      : j_(j), where_(std::move(where)), prefix_(std::move(prefix)) {
    if (!j.is_object()) fail(where_, prefix_.empty() ? "" : prefix_, "must be a JSON object, got " + type_of(j));
  }
  std::string name(const std::string& f) const { return prefix_.empty() ? f : prefix_ + "." + f; }
  bool has(const std::string& f) const { return j_.contains(f); }
  const json& get(const std::string& f) {
    read_.insert(f);
    if (!j_.contains(f)) fail(where_, name(f), "required field missing");
    return j_.at(f);
  }
  std::string str(const std::string& f) {
    const json& v = get(f);
    if (!v.is_string()) fail(where_, name(f), "must be a string, got " + type_of(v));
    return v.get<std::string>();
  }
  std::string str_or(const std::string& f, std::string fallback) { return has(f) ? str(f) : fallback; }
  std::int64_t integer(const std::string& f, std::int64_t lo, std::int64_t hi) {
    const json& v = get(f);
    // Only JSON integers: 16.0, "16" or true are refused, never converted.
    if (!v.is_number_integer()) fail(where_, name(f), "must be an integer, got " + json_text(v));
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
      fail(where_, name(f), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + json_text(v));
    const auto x = v.get<std::int64_t>();
    if (x < lo || x > hi)
      fail(where_, name(f), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + json_text(v));
    return x;
  }
  template <typename E>
  E choice(const std::string& f, const std::vector<std::pair<std::string, E>>& options) {
    const std::string s = str(f);
    for (const auto& [text, value] : options)
      if (s == text) return value;
    std::string allowed;
    for (const auto& [text, value] : options) allowed += (allowed.empty() ? "" : ", ") + ("\"" + text + "\"");
    fail(where_, name(f), "unknown value \"" + s + "\"; one of " + allowed);
  }
  void no_unknown() const {
    for (const auto& item : j_.items())
      if (!read_.count(item.key())) fail(where_, name(item.key()), "unknown field");
  }
  const std::string& where() const { return where_; }
  static std::string json_text(const json& v) {
    const std::string t = v.dump();
    return t.size() > 40 ? t.substr(0, 40) + "..." : t;
  }

 private:
  const json& j_;
  std::string where_, prefix_;
  std::set<std::string> read_;
};

const std::vector<std::pair<std::string, ContractKind>> kKinds{
    {"forward", ContractKind::forward},
    {"backward_data", ContractKind::backward_data},
    {"backward_weight", ContractKind::backward_weight}};
const std::vector<std::pair<std::string, DType>> kOperandTypes{{"f32", DType::f32}, {"bf16", DType::bf16}};
const std::vector<std::pair<std::string, StepKind>> kSteps{{"fma_rn", StepKind::fma_rn}, {"tc_fdpa", StepKind::tc_fdpa}};
const std::vector<std::pair<std::string, KStructure>> kStructures{{"chain", KStructure::chain},
                                                                  {"segments", KStructure::segments}};
const std::vector<std::pair<std::string, SegmentCombine>> kCombines{{"ascending_add_rn", SegmentCombine::ascending_add_rn},
                                                                    {"pairwise_tree", SegmentCombine::pairwise_tree}};
const std::vector<std::pair<std::string, BiasPlacement>> kBiases{
    {"after_chain_add_rn", BiasPlacement::after_chain_add_rn},
    {"initial_accumulator", BiasPlacement::initial_accumulator},
    {"none", BiasPlacement::none}};
const std::vector<std::pair<std::string, RowOrder>> kRowOrders{{"call_order", RowOrder::call_order},
                                                               {"ascending_logical_key", RowOrder::ascending_logical_key}};
const std::vector<std::pair<std::string, BiasGradient>> kBiasGradients{{"none", BiasGradient::none},
                                                                       {"add_rn_chain", BiasGradient::add_rn_chain}};
const std::vector<std::pair<std::string, bool>> kStarts{{"+0", false}, {"-0", true}};

bool valid_id(const std::string& id) {
  // name "/" version: lower-case letters, digits, '.', '-', '_' and a decimal version.
  const auto slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() || id.size() > 128) return false;
  for (std::size_t i = 0; i < slash; ++i) {
    const char ch = id[i];
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_')) return false;
  }
  for (std::size_t i = slash + 1; i < id.size(); ++i)
    if (id[i] < '0' || id[i] > '9') return false;
  return true;
}

std::uint32_t parse_nan_bits(const std::string& where, const std::string& s) {
  // Exactly "0x" and eight hex digits: no sign, no junk, no shorter or longer forms.
  if (s.size() != 10 || s[0] != '0' || s[1] != 'x') fail(where, "nan_bits", "must be \"any\" or 0x and 8 hex digits, got \"" + s + "\"");
  std::uint32_t v = 0;
  for (std::size_t i = 2; i < 10; ++i) {
    const char ch = s[i];
    int d;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    else fail(where, "nan_bits", "must be \"any\" or 0x and 8 hex digits, got \"" + s + "\"");
    v = v << 4 | static_cast<std::uint32_t>(d);
  }
  return v;
}

template <typename E>
std::string name_of(const std::vector<std::pair<std::string, E>>& options, E value) {
  for (const auto& [text, v] : options)
    if (v == value) return text;
  return "?";
}

}  // namespace

Contract contract_from_json(const json& j, const std::string& where) {
  Fields f(j, where, "");
  const std::string schema = f.str("schema");
  if (schema != kContractSchema)
    fail(where, "schema", "must be \"" + std::string(kContractSchema) + "\", got \"" + schema + "\"");
  Contract c;
  c.source = where;
  c.id = f.str("id");
  if (!valid_id(c.id)) fail(where, "id", "must be NAME/VERSION (a-z 0-9 . - _ then a decimal version), got \"" + c.id + "\"");
  c.summary = f.str_or("summary", "");
  c.kind = f.choice("operation", kKinds);
  ReductionPlan& p = c.plan;
  p.operand_dtype = f.choice("operands", kOperandTypes);

  {
    Fields s(f.get("step"), where, "step");
    p.step.kind = s.choice("kind", kSteps);
    if (p.step.kind == StepKind::tc_fdpa) {
      p.step.tc.L = static_cast<int>(s.integer("L", 1, 64));
      p.step.tc.F = static_cast<int>(s.integer("F", 23, 40));
      p.step.tc.e_zero = static_cast<int>(s.integer("e_zero", -100000, -126));
      p.step.tc.k_width = static_cast<int>(s.integer("k_width", 1, 256));
    }
    s.no_unknown();
  }
  {
    Fields s(f.get("k_structure"), where, "k_structure");
    p.structure = s.choice("kind", kStructures);
    if (p.structure == KStructure::segments) {
      p.segment_length = s.integer("length", 1, std::int64_t{1} << 30);
      p.combine = s.choice("combine", kCombines);
    }
    s.no_unknown();
  }
  if (f.has("k_padding_multiple")) p.k_padding_multiple = f.integer("k_padding_multiple", 1, 1 << 20);
  if (f.has("start_value")) p.start_negative_zero = f.choice("start_value", kStarts);
  p.bias = c.kind == ContractKind::forward ? f.choice("bias", kBiases)
                                           : (f.has("bias") ? f.choice("bias", kBiases) : BiasPlacement::none);
  {
    const json& out = f.get("output");
    if (!out.is_array() || out.empty() || out.size() > 2) fail(where, "output", "must be a list of one or two of \"f32\", \"bf16\"");
    p.output_dtypes.clear();
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::string field = "output[" + std::to_string(i) + "]";
      if (!out[i].is_string()) fail(where, field, "must be \"f32\" or \"bf16\", got " + Fields::json_text(out[i]));
      const std::string s = out[i].get<std::string>();
      const DType t = s == "f32" ? DType::f32 : s == "bf16" ? DType::bf16 : DType::f64;
      if (t == DType::f64) fail(where, field, "must be \"f32\" or \"bf16\", got \"" + s + "\"");
      if (p.allows_output(t)) fail(where, field, "\"" + s + "\" listed twice");
      p.output_dtypes.push_back(t);
    }
  }
  if (f.has("nan_bits")) {
    const std::string s = f.str("nan_bits");
    if (s == "any") p.nan_bits.reset();
    else p.nan_bits = parse_nan_bits(where, s);
  }
  if (c.kind == ContractKind::backward_weight) {
    if (f.has("row_order")) p.row_order = f.choice("row_order", kRowOrders);
    if (f.has("bias_gradient")) p.bias_gradient = f.choice("bias_gradient", kBiasGradients);
  }
  f.no_unknown();
  if (const std::string problem = plan_problem(p, c.kind); !problem.empty()) fail(where, "", problem);
  // An id is a claim about the arithmetic: a document may carry a built-in contract's id only with that
  // contract's plan, wherever it is read (a --contract file, a corpus entry, a plugin, a manifest).
  if (const Contract* builtin = find_contract(c.id)) {
    auto a = contract_to_json(*builtin), b = contract_to_json(c);
    a.erase("summary");
    b.erase("summary");
    if (a != b) fail(where, "id", "\"" + c.id + "\" is a built-in contract with another plan; give the contract its own id");
  }
  return c;
}

nlohmann::ordered_json contract_to_json(const Contract& c) {
  using ojson = nlohmann::ordered_json;
  const ReductionPlan& p = c.plan;
  ojson j;
  j["schema"] = kContractSchema;
  j["id"] = c.id;
  j["summary"] = c.summary;
  j["operation"] = name_of(kKinds, c.kind);
  j["operands"] = name_of(kOperandTypes, p.operand_dtype);
  ojson step{{"kind", name_of(kSteps, p.step.kind)}};
  if (p.step.kind == StepKind::tc_fdpa) {
    step["L"] = p.step.tc.L;
    step["F"] = p.step.tc.F;
    step["e_zero"] = p.step.tc.e_zero;
    step["k_width"] = p.step.tc.k_width;
  }
  j["step"] = step;
  ojson ks{{"kind", name_of(kStructures, p.structure)}};
  if (p.structure == KStructure::segments) {
    ks["length"] = p.segment_length;
    ks["combine"] = name_of(kCombines, p.combine);
  }
  j["k_structure"] = ks;
  j["k_padding_multiple"] = p.k_padding_multiple;
  j["start_value"] = p.start_negative_zero ? "-0" : "+0";
  j["bias"] = name_of(kBiases, p.bias);
  ojson out = ojson::array();
  for (DType t : p.output_dtypes) out.push_back(t == DType::f32 ? "f32" : "bf16");
  j["output"] = out;
  if (p.nan_bits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", *p.nan_bits);
    j["nan_bits"] = buf;
  } else {
    j["nan_bits"] = "any";
  }
  if (c.kind == ContractKind::backward_weight) {
    j["row_order"] = name_of(kRowOrders, p.row_order);
    j["bias_gradient"] = name_of(kBiasGradients, p.bias_gradient);
  }
  return j;
}

Contract contract_from_text(std::string_view text, const std::string& where) {
  // Duplicate keys: nlohmann keeps the last one silently, so track the keys of each open object.
  std::vector<std::set<std::string>> open;
  std::string duplicate;
  json::parser_callback_t cb = [&](int depth, json::parse_event_t event, json& parsed) {
    // Bounded nesting: messages dump() values and dump() recurses once per level (a 400 KB file of
    // [[[...]]] overflowed the stack). A contract needs 3 levels.
    if (depth > 64) fail(where, "", "nested deeper than 64 levels: not a contract file");
    if (event == json::parse_event_t::object_start) open.emplace_back();
    else if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
    else if (event == json::parse_event_t::key && !open.empty() && !open.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text.begin(), text.end(), cb);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    fail(where, "", std::string("not valid JSON: ") + e.what());
  }
  if (!duplicate.empty()) fail(where, duplicate, "field given twice");
  return contract_from_json(j, where);
}

Contract load_contract_file(const std::string& path) {
  std::string text;
  try {
    text = read_bounded_file(path, std::size_t{1} << 20, "contract files");
  } catch (const FileReadError& e) {
    throw ContractFileError(e.what());
  }
  return contract_from_text(text, path);
}

std::vector<std::string> nearest_names(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t count) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      std::size_t diag = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j) {
        const std::size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& c : candidates) scored.emplace_back(distance(name, c), c);
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> best;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i) best.push_back(scored[i].second);
  return best;
}

Contract resolve_contract(const std::string& id_or_path) {
  if (const Contract* c = find_contract(id_or_path)) return *c;
  const bool looks_like_file = id_or_path.size() >= 5 && id_or_path.substr(id_or_path.size() - 5) == ".json";
  if (looks_like_file || (!valid_id(id_or_path) && id_or_path.find('/') != std::string::npos)) {
    return load_contract_file(id_or_path);  // a built-in id in it must come with the built-in plan
  }
  std::vector<std::string> ids;
  for (const Contract* c : all_contracts()) ids.push_back(c->id);
  std::string hint;
  for (const std::string& n : nearest_names(id_or_path, ids)) hint += (hint.empty() ? "" : ", ") + n;
  throw ContractFileError("unknown contract \"" + id_or_path + "\" (not a built-in id, and not a .json file); nearest: " +
                          hint + " (`ordo list --contracts`)");
}

}  // namespace ordo
