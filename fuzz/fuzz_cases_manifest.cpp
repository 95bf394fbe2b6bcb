// libFuzzer target: the manifest reader of an `ordo cases` folder (protocol/cases_manifest.h,
// parse_manifest, what read_manifest calls on the file's text). Nothing may leave it but its documented
// failure, ManifestError, naming the source first (a json exception escaping it is a finding). Promises for an accepted manifest: at least
// one case, case ids non-empty and unique, shapes and dtypes in range, paths relative and inside the folder;
// every relation names existing cases, with rows inside their M and columns inside their N, and as many rows
// on both sides. Also: manifest_to_json of it reads back to the same JSON (what write_manifest writes,
// read_manifest reads).
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_support.h"
#include "protocol/cases_manifest.h"

namespace {

bool inside_folder(const std::string& p) {
  return !p.empty() && p[0] != '/' && p.find("..") == std::string::npos && p.find('\\') == std::string::npos;
}

void check_block(const ordo::protocol::CasesManifest& m, const ordo::protocol::RowBlock& b, std::int64_t cols) {
  const ordo::protocol::CaseEntry* c = m.find(b.case_id);
  ORDO_FUZZ_REQUIRE(c != nullptr, "a relation names an existing case");
  ORDO_FUZZ_REQUIRE(!b.rows.empty(), "a relation names rows");
  for (const std::int64_t r : b.rows) ORDO_FUZZ_REQUIRE(r >= 0 && r < c->M, "every row is inside M");
  ORDO_FUZZ_REQUIRE(b.col_begin >= 0 && cols >= 1 && b.col_begin + cols <= c->N, "the columns are inside N");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo;
  using nlohmann::json;
  try {
    const protocol::CasesManifest m = protocol::parse_manifest(fuzz::as_text(data, size), fuzz::kWhere);
    ORDO_FUZZ_REQUIRE(!m.cases.empty(), "an accepted manifest has cases");
    ORDO_FUZZ_REQUIRE(m.operands == "f32" || m.operands == "bf16", "operands f32 or bf16");
    std::set<std::string> ids;
    for (const protocol::CaseEntry& c : m.cases) {
      ORDO_FUZZ_REQUIRE(!c.id.empty() && ids.insert(c.id).second, "case ids are non-empty and unique");
      ORDO_FUZZ_REQUIRE(c.M >= 1 && c.N >= 1 && c.K >= 1, "every case has a shape");
      ORDO_FUZZ_REQUIRE(c.y_dtype == "f32" || c.y_dtype == "bf16", "y_dtype f32 or bf16");
      ORDO_FUZZ_REQUIRE(inside_folder(c.x) && inside_folder(c.w) && inside_folder(c.y), "paths inside the folder");
      ORDO_FUZZ_REQUIRE(!c.bias || inside_folder(c.b), "a bias path inside the folder");
    }
    for (const protocol::Relation& r : m.relations) {
      check_block(m, r.reference, r.cols);
      check_block(m, r.subject, r.cols);
      ORDO_FUZZ_REQUIRE(r.reference.rows.size() == r.subject.rows.size(), "as many rows on both sides");
    }
    const json once = protocol::manifest_to_json(m);
    protocol::CasesManifest again;
    try {
      again = protocol::parse_manifest(once.dump(), "<round trip>");
    } catch (const protocol::ManifestError& e) {
      std::fprintf(stderr, "round trip refused: %s\n", e.what());
      ORDO_FUZZ_REQUIRE(false, "manifest_to_json writes what manifest_from_json reads");
    }
    ORDO_FUZZ_REQUIRE(protocol::manifest_to_json(again) == once, "the round trip keeps every field");
  } catch (const protocol::ManifestError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "a ManifestError names the file first");
  }
  return 0;
}
