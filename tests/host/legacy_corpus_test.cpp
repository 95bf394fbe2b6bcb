// The move of the corpus to ordo.corpus/1 lost no bit: every legacy file kept in tests/data/legacy-corpus/
// (ordo.golden/1, ordo.golden-backward/1, ordo.regression/1), read by its own reader, against the entry that
// replaced it in corpus/, read by the new reader: every input and output bit, the keys and row order, the
// header. And the converter (protocol/corpus_legacy.h) still writes entries that compare equal, while a
// single changed bit is found and located.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/float_bits.h"
#include "protocol/corpus_legacy.h"
#include "tests/legacy/legacy_formats.h"
#include "test_support.h"

namespace ordo::properties {
namespace {
using protocol::CorpusCase;
using protocol::CorpusEntry;
using protocol::GoldenBackwardFile;
using protocol::GoldenFile;
using protocol::RegressionFile;
using protocol::convert_legacy_golden;
using protocol::convert_legacy_golden_backward;
using protocol::convert_legacy_regression;
using protocol::legacy_difference;
using protocol::read_corpus_entry;
using protocol::read_golden_backward_file;
using protocol::read_golden_file;
using protocol::read_regression_file;
using protocol::write_corpus_entry;
using legacy::json_files;


namespace fs = std::filesystem;

const fs::path kLegacy = fs::path(ORDO_SOURCE_DIR) / "tests" / "data" / "legacy-corpus";
const fs::path kCorpus = fs::path(ORDO_SOURCE_DIR) / "corpus";

std::string temp(const std::string& name) { return ordo::testing::process_temp_path("legacy_" + name); }

TEST(LegacyCorpus, EveryLegacyFileHasItsEntryWithEveryBit) {
  std::size_t files = 0, cases = 0;
  legacy::for_each_legacy_file(kLegacy, [&](const fs::path& f, auto format) {
    const auto legacy_file = decltype(format)::read(f);
    const fs::path entry = kCorpus / decltype(format)::entry(legacy_file);
    EXPECT_EQ(legacy_difference(legacy_file, read_corpus_entry(entry.string())), "") << f << " against " << entry;
    ++files;
    cases += legacy_file.cases.size();
  });
  // 4 forward and 6 backward golden files of 30 cases, and the seed's regression of 4.
  EXPECT_EQ(files, 11u);
  EXPECT_EQ(cases, 304u);
}

TEST(LegacyCorpus, TheConverterStillWritesEqualEntriesAndAChangedBitIsFound) {
  const fs::path golden = json_files(kLegacy / "golden").at(2);  // a BF16 forward file
  const GoldenFile g = read_golden_file(golden.string());
  write_corpus_entry(temp("golden.json"), convert_legacy_golden(g));
  EXPECT_EQ(legacy_difference(g, read_corpus_entry(temp("golden.json"))), "");

  const GoldenBackwardFile b = read_golden_backward_file(json_files(kLegacy / "golden-backward").at(0).string());
  write_corpus_entry(temp("backward.json"), convert_legacy_golden_backward(b));
  CorpusEntry e = read_corpus_entry(temp("backward.json"));
  EXPECT_EQ(legacy_difference(b, e), "");
  // Planted defects: one bit of one input, the keys of one case dropped (another row order).
  const auto big = std::find_if(e.cases.begin(), e.cases.end(), [](const CorpusCase& c) { return c.weight->x.size() > 3; });
  ASSERT_NE(big, e.cases.end());
  big->weight->x[3] = float_of(bits_of(big->weight->x[3]) ^ 1u);
  const std::string where = "case " + std::to_string(big - e.cases.begin()) + ": x[3]: ";
  EXPECT_EQ(legacy_difference(b, e).rfind(where, 0), 0u) << legacy_difference(b, e);
  e = read_corpus_entry(temp("backward.json"));
  for (CorpusCase& c : e.cases)
    if (c.weight->keys) {
      c.weight->keys.reset();
      break;
    }
  EXPECT_NE(legacy_difference(b, e).find("keys: present in one of the two only"), std::string::npos);

  const RegressionFile r = read_regression_file((kLegacy / "regressions" / "seed-dw-permutation.json").string());
  write_corpus_entry(temp("regression.json"), convert_legacy_regression(r));
  e = read_corpus_entry(temp("regression.json"));
  EXPECT_EQ(legacy_difference(r, e), "");
  (*e.cases[1].expected_db)[0] = 0.0f;  // 2^-24 in the file
  EXPECT_EQ(legacy_difference(r, e), "case 1: db[0]: 0x33800000 in the legacy file, 0x00000000 in the entry");
}

}  // namespace
}  // namespace ordo::properties
