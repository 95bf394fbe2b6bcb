// corpus/regressions/seed-dw-permutation.json: the seed review's reproducer, with the dW and db bits
// written down for each row order, with and without logical keys. The emulator and the scalar
// reference must both reproduce every expected bit, and the file must show what it claims: call
// order changes the bits, keys do not.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "backward_test_support.h"

namespace ordo::testing {
namespace {

float from_hex(const nlohmann::json& j) {
  return float_of(static_cast<std::uint32_t>(std::stoul(j.get<std::string>(), nullptr, 16)));
}

std::vector<float> flatten(const nlohmann::json& rows) {
  std::vector<float> v;
  for (const auto& row : rows)
    for (const auto& e : row) v.push_back(from_hex(e));
  return v;
}

nlohmann::json load_case_file() {
  const std::filesystem::path path =
      std::filesystem::path(ORDO_SOURCE_DIR) / "corpus" / "regressions" / "seed-dw-permutation.json";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing " << path;
  return nlohmann::json::parse(in);
}

struct RegressionCase {
  BackwardWeightProblem problem;
  BackwardWeightResult expected;
  std::string order;
};

std::vector<RegressionCase> read_cases(const nlohmann::json& j) {
  BackwardWeightProblem base;
  base.T = j.at("T").get<std::int64_t>();
  base.N = j.at("N").get<std::int64_t>();
  base.K = j.at("K").get<std::int64_t>();
  base.x = flatten(j.at("x"));
  base.g = flatten(j.at("g"));
  base.with_bias_grad = j.at("with_bias_grad").get<bool>();
  base.keys = LogicalKeys{j.at("keys").at("width").get<std::int64_t>(), {}};
  for (const auto& row : j.at("keys").at("rows"))
    for (const auto& v : row) base.keys->values.push_back(v.get<std::int64_t>());
  std::vector<RegressionCase> cases;
  for (const auto& c : j.at("cases")) {
    RegressionCase r;
    r.problem = select_rows(base, c.at("rows").get<std::vector<std::int64_t>>());
    if (!c.at("use_keys").get<bool>()) r.problem.keys.reset();
    r.expected.dw = flatten(c.at("dw"));
    r.expected.db = std::vector<float>();
    for (const auto& e : c.at("db")) r.expected.db->push_back(from_hex(e));
    r.order = c.at("order").get<std::string>();
    cases.push_back(std::move(r));
  }
  return cases;
}

TEST(BackwardRegression, SeedDwPermutationReproducesEveryExpectedBit) {
  const nlohmann::json j = load_case_file();
  const Contract* contract = find_contract(j.at("contract").get<std::string>());
  ASSERT_NE(contract, nullptr);
  const std::vector<RegressionCase> cases = read_cases(j);
  ASSERT_EQ(cases.size(), 4u);
  for (const RegressionCase& c : cases) {
    const oracle::BackwardWeightOutcome r = oracle::emulate_backward_weight(c.problem, contract->plan);
    ASSERT_TRUE(r.status.ok()) << r.status.to_string();
    EXPECT_EQ(first_difference(r.result, c.expected), "") << c.order << " (emulator)";
    EXPECT_EQ(first_difference(oracle::reference_backward_weight(c.problem, contract->plan), c.expected), "")
        << c.order << " (scalar reference)";
  }
}

TEST(BackwardRegression, SeedDwPermutationShowsCallOrderChangesAndKeysDoNot) {
  const std::vector<RegressionCase> cases = read_cases(load_case_file());
  ASSERT_EQ(cases.size(), 4u);
  // Cases 0 and 1: the same rows in two call orders, no keys. Cases 2 and 3: the same with keys.
  EXPECT_FALSE(cases[0].problem.keys || cases[1].problem.keys);
  EXPECT_TRUE(cases[2].problem.keys && cases[3].problem.keys);
  EXPECT_NE(first_difference(cases[0].expected, cases[1].expected), "");
  EXPECT_EQ(first_difference(cases[2].expected, cases[3].expected), "");
  EXPECT_EQ(bits_of(cases[0].expected.dw[0]), 0x00000000u);  // 1 + 2^-24 - 1
  EXPECT_EQ(bits_of(cases[1].expected.dw[0]), 0x33800000u);  // 1 - 1 + 2^-24
  EXPECT_EQ(bits_of((*cases[1].expected.db)[0]), 0x33800000u);
}

}  // namespace
}  // namespace ordo::testing
