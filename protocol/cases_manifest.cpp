#include "protocol/cases_manifest.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/bounded_file.h"
#include "core/bounded_json.h"
#include "core/checked_size.h"
#include "core/contract_file.h"

namespace ordo::protocol {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& what) {
  throw ManifestError(where + ": " + field + ": " + what);
}

const json& field(const json& o, const char* name, const std::string& where, const std::string& path) {
  if (!o.is_object()) fail(where, path, "must be an object");
  if (!o.contains(name)) fail(where, path + "." + name, "required field missing");
  return o.at(name);
}

std::string str(const json& o, const char* name, const std::string& where, const std::string& path) {
  const json& v = field(o, name, where, path);
  if (!v.is_string()) fail(where, path + "." + name, "must be a string, got " + std::string(v.type_name()));
  return v.get<std::string>();
}

std::int64_t integer(const json& o, const char* name, std::int64_t lo, std::int64_t hi, const std::string& where,
                     const std::string& path) {
  const json& v = field(o, name, where, path);
  if (!v.is_number_integer()) fail(where, path + "." + name, "must be an integer, got " + v.dump());
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi))
    fail(where, path + "." + name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi)
    fail(where, path + "." + name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
  return x;
}

bool boolean(const json& o, const char* name, const std::string& where, const std::string& path) {
  const json& v = field(o, name, where, path);
  if (!v.is_boolean()) fail(where, path + "." + name, "must be true or false, got " + v.dump());
  return v.get<bool>();
}

void only(const json& o, std::initializer_list<const char*> names, const std::string& where, const std::string& path) {
  for (const auto& item : o.items()) {
    bool known = false;
    for (const char* n : names) known = known || item.key() == n;
    if (!known) fail(where, path + "." + item.key(), "unknown field");
  }
}

std::string relative_path(const json& o, const char* name, const std::string& where, const std::string& path) {
  const std::string p = str(o, name, where, path);
  if (p.empty() || p[0] == '/' || p.find("..") != std::string::npos || p.find('\\') != std::string::npos)
    fail(where, path + "." + name, "must be a relative path inside the folder, got \"" + p + "\"");
  return p;
}

// 64 lowercase hex digits.
std::string digest(const json& o, const char* name, const std::string& where, const std::string& path) {
  const std::string d = str(o, name, where, path);
  const bool hex = d.size() == 64 && d.find_first_not_of("0123456789abcdef") == std::string::npos;
  if (!hex) fail(where, path + "." + name, "must be a SHA-256 as 64 lowercase hex digits, got \"" + d + "\"");
  return d;
}

constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;

}  // namespace

const CaseEntry* CasesManifest::find(const std::string& id) const {
  for (const CaseEntry& c : cases)
    if (c.id == id) return &c;
  return nullptr;
}

json manifest_to_json(const CasesManifest& m) {
  json j;
  j["schema"] = kCasesSchema;
  j["contract"] = m.contract;
  if (m.contract_definition) j["contract_definition"] = *m.contract_definition;
  j["operands"] = m.operands;
  j["seed"] = m.seed;
  j["level"] = m.level;
  j["generated_by"] = m.generated_by;
  json cases = json::array();
  for (const CaseEntry& c : m.cases) {
    json e = {{"id", c.id},         {"M", c.M},       {"N", c.N},         {"K", c.K},
              {"bias", c.bias},     {"y_dtype", c.y_dtype}, {"family", c.family}, {"purpose", c.purpose},
              {"group", c.group},   {"x", c.x},       {"w", c.w},         {"b", c.b},
              {"y", c.y},           {"x_sha256", c.x_sha256}, {"w_sha256", c.w_sha256}};
    if (c.bias) e["b_sha256"] = c.b_sha256;
    cases.push_back(std::move(e));
  }
  j["cases"] = cases;
  json relations = json::array();
  for (const Relation& r : m.relations) {
    auto block = [](const RowBlock& b) { return json{{"case", b.case_id}, {"rows", b.rows}, {"col_begin", b.col_begin}}; };
    relations.push_back({{"kind", r.kind},
                         {"description", r.description},
                         {"cols", r.cols},
                         {"reference", block(r.reference)},
                         {"subject", block(r.subject)}});
  }
  j["relations"] = relations;
  return j;
}

CasesManifest manifest_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "(top)", "must be a JSON object");
  only(j, {"schema", "contract", "contract_definition", "operands", "seed", "level", "generated_by", "cases", "relations"},
       where, "");
  const std::string schema = str(j, "schema", where, "");
  if (schema == "ordo.cases/1")
    fail(where, "schema", "ordo.cases/1 was written by an older ordo and records no input digests; regenerate the folder "
                          "with `ordo cases` (the same options write the same inputs)");
  if (schema != kCasesSchema) fail(where, "schema", "must be \"" + std::string(kCasesSchema) + "\", got \"" + schema + "\"");
  CasesManifest m;
  m.contract = str(j, "contract", where, "");
  if (j.contains("contract_definition")) {
    m.contract_definition = j.at("contract_definition");
    try {
      m.defined_contract = contract_from_json(*m.contract_definition, where + ": contract_definition");
    } catch (const ContractFileError& e) {
      throw ManifestError(e.what());
    }
    if (m.defined_contract->id != m.contract)
      fail(where, "contract_definition.id", "\"" + m.defined_contract->id + "\" is not the manifest's contract \"" + m.contract + "\"");
  }
  m.operands = str(j, "operands", where, "");
  if (m.operands != "f32" && m.operands != "bf16") fail(where, "operands", "must be \"f32\" or \"bf16\"");
  m.seed = static_cast<std::uint64_t>(integer(j, "seed", 0, std::int64_t{1} << 62, where, ""));
  m.level = static_cast<int>(integer(j, "level", 1, 2, where, ""));
  m.generated_by = j.contains("generated_by") ? str(j, "generated_by", where, "") : "";
  const json& cases = field(j, "cases", where, "");
  if (!cases.is_array() || cases.empty()) fail(where, "cases", "must be a non-empty array");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string p = "cases[" + std::to_string(i) + "]";
    const json& c = cases[i];
    if (!c.is_object()) fail(where, p, "must be an object");
    only(c, {"id", "M", "N", "K", "bias", "y_dtype", "family", "purpose", "group", "x", "w", "b", "y", "x_sha256", "w_sha256", "b_sha256"},
         where, p);
    CaseEntry e;
    e.id = str(c, "id", where, p);
    if (e.id.empty() || !ids.insert(e.id).second) fail(where, p + ".id", "empty or not unique: \"" + e.id + "\"");
    e.M = integer(c, "M", 1, kMaxDim, where, p);
    e.N = integer(c, "N", 1, kMaxDim, where, p);
    e.K = integer(c, "K", 1, kMaxDim, where, p);
    if (!checked_product(e.M, e.K) || !checked_product(e.N, e.K) || !checked_product(e.M, e.N))
      fail(where, p, "M, N, K give more than 2^40 elements");
    e.bias = boolean(c, "bias", where, p);
    e.y_dtype = str(c, "y_dtype", where, p);
    if (e.y_dtype != "f32" && e.y_dtype != "bf16") fail(where, p + ".y_dtype", "must be \"f32\" or \"bf16\"");
    e.family = str(c, "family", where, p);
    e.purpose = str(c, "purpose", where, p);
    e.group = integer(c, "group", -1, 1 << 20, where, p);
    e.x = relative_path(c, "x", where, p);
    e.w = relative_path(c, "w", where, p);
    if (e.bias) e.b = relative_path(c, "b", where, p);
    else if (c.contains("b") && !c.at("b").is_string()) fail(where, p + ".b", "must be a string");
    e.y = relative_path(c, "y", where, p);
    e.x_sha256 = digest(c, "x_sha256", where, p);
    e.w_sha256 = digest(c, "w_sha256", where, p);
    if (e.bias) e.b_sha256 = digest(c, "b_sha256", where, p);
    m.cases.push_back(std::move(e));
  }
  if (j.contains("relations")) {
    const json& rel = j.at("relations");
    if (!rel.is_array()) fail(where, "relations", "must be an array");
    for (std::size_t i = 0; i < rel.size(); ++i) {
      const std::string p = "relations[" + std::to_string(i) + "]";
      const json& r = rel[i];
      if (!r.is_object()) fail(where, p, "must be an object");
      only(r, {"kind", "description", "cols", "reference", "subject"}, where, p);
      Relation out;
      out.kind = str(r, "kind", where, p);
      if (out.kind != "batch_size" && out.kind != "permutation" && out.kind != "column_shard")
        fail(where, p + ".kind", "must be \"batch_size\", \"permutation\" or \"column_shard\", got \"" + out.kind + "\"");
      out.description = r.contains("description") ? str(r, "description", where, p) : "";
      out.cols = integer(r, "cols", 1, kMaxDim, where, p);
      for (const char* side : {"reference", "subject"}) {
        const std::string sp = p + "." + side;
        const json& b = field(r, side, where, p);
        if (!b.is_object()) fail(where, sp, "must be an object");
        only(b, {"case", "rows", "col_begin"}, where, sp);
        RowBlock block;
        block.case_id = str(b, "case", where, sp);
        const CaseEntry* c = m.find(block.case_id);
        if (!c) fail(where, sp + ".case", "no case \"" + block.case_id + "\"");
        block.col_begin = integer(b, "col_begin", 0, kMaxDim, where, sp);
        if (block.col_begin + out.cols > c->N) fail(where, sp + ".col_begin", "columns past N = " + std::to_string(c->N));
        const json& rows = field(b, "rows", where, sp);
        if (!rows.is_array() || rows.empty()) fail(where, sp + ".rows", "must be a non-empty array");
        for (std::size_t k = 0; k < rows.size(); ++k) {
          if (!rows[k].is_number_integer()) fail(where, sp + ".rows[" + std::to_string(k) + "]", "must be an integer");
          const auto row = rows[k].get<std::int64_t>();
          if (row < 0 || row >= c->M)
            fail(where, sp + ".rows[" + std::to_string(k) + "]", std::to_string(row) + " is outside M = " + std::to_string(c->M));
          block.rows.push_back(row);
        }
        (std::string(side) == "reference" ? out.reference : out.subject) = std::move(block);
      }
      if (out.reference.rows.size() != out.subject.rows.size())
        fail(where, p, "reference and subject name different numbers of rows");
      m.relations.push_back(std::move(out));
    }
  }
  return m;
}

CasesManifest parse_manifest(std::string_view text, const std::string& where) {
  json j;
  try {
    j = parse_json_bounded(text, kMaxManifestDepth);
  } catch (const JsonTextError& e) {
    throw ManifestError(where + ": " + e.what());
  }
  return manifest_from_json(j, where);
}

CasesManifest read_manifest(const std::string& folder) {
  const std::string path = folder + "/manifest.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ManifestError(path + ": cannot open (is " + folder + " an `ordo cases` folder?)");
  try {
    return parse_manifest(read_bounded_file(path, kMaxManifestBytes, "manifests"), path);
  } catch (const FileReadError& e) {
    throw ManifestError(e.what());
  }
}

void write_manifest(const std::string& folder, const CasesManifest& m) {
  write_file_atomically(folder + "/manifest.json", manifest_to_json(m).dump(1) + "\n");
}

}  // namespace ordo::protocol
