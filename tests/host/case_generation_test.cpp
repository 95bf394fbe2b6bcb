// What `ordo cases` promises to reach (properties/case_ladders.h): at level 1 already, K past 4096 up to 8192
// for every value family, batches to 16384 rows with the anchor around rows 2048, 4096 and 8192, column shards
// of a W wider than 4096, at least six cases of every family, and files that stay small, the same bytes on
// every run; a --shape group gets the rows past the switches its M holds, and --max-batch caps them.
#include "properties/case_generation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/contract.h"
#include "properties/case_coverage.h"
#include "properties/value_families.h"
#include "test_support.h"

namespace ordo::properties {
namespace {

std::string fresh_folder(const std::string& name) {
  return ordo::testing::unique_temp_path("generation-" + name);
}

std::string file_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

// The anchor rows of the batch_size relations, by the rows of the batch that holds them.
std::map<std::int64_t, std::set<std::int64_t>> anchor_rows_by_batch(const protocol::CasesManifest& m) {
  std::map<std::int64_t, std::set<std::int64_t>> rows;
  for (const protocol::Relation& r : m.relations)
    if (r.kind == "batch_size") rows[m.find(r.subject.case_id)->M].insert(r.subject.rows.begin(), r.subject.rows.end());
  return rows;
}

TEST(CaseGeneration, LevelOneReachesTheSizesUsersRun) {
  const std::string dir = fresh_folder("level1");
  CasesOptions o;
  o.contract = contract_fwd_f32_fma_chain();
  const protocol::CasesManifest m = generate_cases(o, dir);
  // Deterministic: a second run writes the same bytes (the random anchor rows of the large batches included).
  const std::string again = fresh_folder("level1-again");
  generate_cases(o, again);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), dir).string();
    EXPECT_EQ(file_text(entry.path().string()), file_text((std::filesystem::path(again) / rel).string())) << rel;
  }
  const CasesCoverage c = cases_coverage(m, dir);
  EXPECT_GE(c.k_max, 8192);
  std::map<std::string, std::int64_t> long_k_by_family;
  for (const protocol::CaseEntry& e : m.cases)
    if (e.K > 4096) ++long_k_by_family[e.family];
  for (const ValueFamily f : all_families()) {
    const std::string name(family_name(f));
    EXPECT_GE(c.random_cases_by_family.at(name), 6) << name;
    EXPECT_GE(long_k_by_family[name], 1) << name << " has no case with K > 4096";
  }
  EXPECT_EQ(c.largest_batch, 16384);
  const auto rows = anchor_rows_by_batch(m);
  for (const std::int64_t at : {2048, 4096, 8192}) {
    // Just before, at and just after the switch, all in one batch that goes on past it.
    const auto batch = std::find_if(rows.begin(), rows.end(), [at](const auto& b) {
      return b.first > at + 1 && b.second.count(at - 1) && b.second.count(at) && b.second.count(at + 1);
    });
    EXPECT_NE(batch, rows.end()) << "no batch holds the anchor at rows " << at - 1 << ", " << at << " and " << at + 1;
  }
  EXPECT_GT(c.widest_sharded_n, 4096);
  EXPECT_GT(c.widest_shard, 4096);
  EXPECT_GT(c.relations_by_kind.at("permutation"), 0);
  // Inputs and the outputs a program writes together stay under 100 MB.
  EXPECT_LT(c.input_bytes + c.output_bytes, 100'000'000);
}

TEST(CaseGeneration, AShapeGroupGetsTheRowsPastTheSwitchesItsBatchesHold) {
  const std::string dir = fresh_folder("shape");
  CasesOptions o;
  o.shapes = {{3000, 4, 8}};
  const protocol::CasesManifest m = generate_cases(o, dir);
  const auto rows = anchor_rows_by_batch(m);
  ASSERT_EQ(rows.rbegin()->first, 3000);
  for (const std::int64_t row : {2047, 2048, 2049, 2999}) EXPECT_TRUE(rows.at(3000).count(row)) << row;
  EXPECT_EQ(cases_coverage(m, dir).largest_anchor_row, 2999);
  // --max-batch caps the group: no batch, and so no anchor, past it.
  o.max_batch = 1024;
  const protocol::CasesManifest capped = generate_cases(o, fresh_folder("shape-capped"));
  EXPECT_EQ(anchor_rows_by_batch(capped).rbegin()->first, 1024);
  EXPECT_LT(cases_coverage(capped, dir).largest_anchor_row, 1024);
}

TEST(CaseGeneration, AGroupWiderThan4096IsShardedInHalvesAndWiderThan4096) {
  const std::string dir = fresh_folder("wide");
  CasesOptions o;
  o.shapes = {{8, 4100, 3}};
  const protocol::CasesManifest m = generate_cases(o, dir);
  std::set<std::pair<std::int64_t, std::int64_t>> shards;
  for (const protocol::Relation& r : m.relations)
    if (r.kind == "column_shard") shards.insert({r.reference.col_begin, r.reference.col_begin + r.cols});
  EXPECT_TRUE(shards.count({0, 2050}));
  EXPECT_TRUE(shards.count({2050, 4100}));
  EXPECT_TRUE(std::any_of(shards.begin(), shards.end(),
                          [](const auto& s) { return s.second - s.first > 4096 && s.second - s.first < 4100; }));
}

}  // namespace
}  // namespace ordo::properties
