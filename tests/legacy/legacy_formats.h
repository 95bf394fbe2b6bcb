#pragma once
// The three legacy corpus formats and where each file's ordo.corpus/1 entry went, shared by the tool that moved
// the corpus (convert_legacy_corpus.cpp) and the test that checks the move lost no bit
// (tests/host/legacy_corpus_test.cpp), so that both walk the same files to the same entries.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "protocol/corpus_legacy.h"

namespace ordo::legacy {

namespace fs = std::filesystem;

// The .json files directly in `dir`, sorted; none when `dir` is not a folder.
inline std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// One legacy format: its folder under the legacy root, its own reader, its converter, and the path of a
// file's entry under the corpus root.
template <class File>
struct Format;

template <>
struct Format<protocol::GoldenFile> {
  static constexpr const char* kFolder = "golden";
  static protocol::GoldenFile read(const fs::path& f) { return protocol::read_golden_file(f.string()); }
  static protocol::CorpusEntry convert(const protocol::GoldenFile& g) { return protocol::convert_legacy_golden(g); }
  static fs::path entry(const protocol::GoldenFile& g) { return fs::path("golden") / (g.variant + ".json"); }
};

template <>
struct Format<protocol::GoldenBackwardFile> {
  static constexpr const char* kFolder = "golden-backward";
  static protocol::GoldenBackwardFile read(const fs::path& f) {
    return protocol::read_golden_backward_file(f.string());
  }
  static protocol::CorpusEntry convert(const protocol::GoldenBackwardFile& g) {
    return protocol::convert_legacy_golden_backward(g);
  }
  static fs::path entry(const protocol::GoldenBackwardFile& g) { return fs::path("golden") / (g.variant + ".json"); }
};

template <>
struct Format<protocol::RegressionFile> {
  static constexpr const char* kFolder = "regressions";
  static protocol::RegressionFile read(const fs::path& f) { return protocol::read_regression_file(f.string()); }
  static protocol::CorpusEntry convert(const protocol::RegressionFile& r) {
    return protocol::convert_legacy_regression(r);
  }
  static fs::path entry(const protocol::RegressionFile& r) { return fs::path("regressions") / (r.name + ".json"); }
};

// visit(file, Format<...>{}) for every legacy file under `legacy`: the forward golden files, then the
// backward golden files, then the regressions, each folder in sorted order.
template <class Visit>
void for_each_legacy_file(const fs::path& legacy, Visit&& visit) {
  for (const fs::path& f : json_files(legacy / Format<protocol::GoldenFile>::kFolder))
    visit(f, Format<protocol::GoldenFile>{});
  for (const fs::path& f : json_files(legacy / Format<protocol::GoldenBackwardFile>::kFolder))
    visit(f, Format<protocol::GoldenBackwardFile>{});
  for (const fs::path& f : json_files(legacy / Format<protocol::RegressionFile>::kFolder))
    visit(f, Format<protocol::RegressionFile>{});
}

}  // namespace ordo::legacy
