// One-off tool that moved the corpus to ordo.corpus/1: reads the legacy files (ordo.golden/1,
// ordo.golden-backward/1, ordo.regression/1) with their own readers, writes one entry per file with
// protocol/corpus_legacy.h's converter, reads each entry back with the new reader and compares every
// input and output bit (legacy_difference). Built with the tests, never installed.
//   build/tests/ordo_convert_legacy_corpus tests/data/legacy-corpus corpus
// writes corpus/golden/<variant>.json (forward and backward variants alike) and
// corpus/regressions/<name>.json. Exit 0 when every entry was written and compares equal, 1 otherwise.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "protocol/corpus_legacy.h"
#include "tests/legacy/legacy_formats.h"

namespace {

namespace fs = std::filesystem;
using namespace ordo::protocol;

// Converts one legacy file: `convert` returns the entry's path and writes it; `compare` reads it back.
bool convert_one(const fs::path& from, const std::function<std::string(std::string&)>& convert) {
  try {
    std::string written;
    const std::string difference = convert(written);
    if (!difference.empty()) {
      std::printf("DIFFERS %s -> %s: %s\n", from.c_str(), written.c_str(), difference.c_str());
      return false;
    }
    std::printf("ok      %s -> %s\n", from.c_str(), written.c_str());
    return true;
  } catch (const std::exception& e) {
    std::printf("ERROR   %s: %s\n", from.c_str(), e.what());
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LEGACY_DIR CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const fs::path legacy = argv[1], out = argv[2];
  fs::create_directories(out / "golden");
  fs::create_directories(out / "regressions");
  bool ok = true;
  ordo::legacy::for_each_legacy_file(legacy, [&](const fs::path& f, auto format) {
    ok &= convert_one(f, [&](std::string& path) {
      const auto legacy_file = decltype(format)::read(f);
      path = (out / decltype(format)::entry(legacy_file)).string();
      write_corpus_entry(path, decltype(format)::convert(legacy_file));
      return legacy_difference(legacy_file, read_corpus_entry(path));
    });
  });
  return ok ? 0 : 1;
}
