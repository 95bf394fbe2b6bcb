#include "tools/cases_out_folder.h"

#include <filesystem>
#include <set>
#include <system_error>

#include "core/atomic_file.h"
#include "protocol/cases_manifest.h"

namespace ordo::tools {
namespace {

namespace fs = std::filesystem;

bool empty_folder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::is_empty(p, ec);
}

// Removes what an earlier `ordo cases` wrote: every file its manifest names (inputs and outputs), the
// default report folder of `ordo check`, the manifest, and then the case folders left empty.
void remove_earlier_cases(const fs::path& folder, const protocol::CasesManifest& m) {
  std::set<fs::path> dirs;
  std::error_code ec;
  for (const protocol::CaseEntry& c : m.cases)
    for (const std::string* rel : {&c.x, &c.w, &c.b, &c.y}) {
      if (rel->empty()) continue;
      const fs::path p = folder / *rel;  // relative and without "..": checked when the manifest was read
      fs::remove(p, ec);
      for (fs::path d = p.parent_path(); d != folder && !d.empty(); d = d.parent_path()) dirs.insert(d);
    }
  fs::remove_all(folder / "check-report", ec);
  fs::remove(folder / "manifest.json", ec);
  // Deepest first, so that a parent is empty by the time its turn comes; a folder with other files stays.
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
    if (empty_folder(*it)) fs::remove(*it, ec);
}

}  // namespace

void prepare_cases_out_folder(const std::string& folder, bool replace) {
  const fs::path p(folder);
  std::error_code ec;
  if (fs::exists(p, ec) && !fs::is_directory(p, ec))
    throw OutFolderRefused("--out " + folder + ": exists and is not a folder");
  if (fs::exists(p, ec) && !empty_folder(p)) {
    if (!fs::exists(p / "manifest.json", ec))
      throw OutFolderRefused("--out " + folder + ": the folder is not empty and is not an `ordo cases` folder; give a new or empty folder");
    if (!replace)
      throw OutFolderRefused("--out " + folder + ": holds earlier cases (its outputs would be judged with the new inputs); give "
                             "--replace to remove them, or a new folder");
    protocol::CasesManifest old;
    try {
      old = protocol::read_manifest(folder);
    } catch (const protocol::ManifestError& e) {
      throw OutFolderRefused("--out " + folder + ": --replace removes only what a readable manifest names, and " + e.what() +
                             "; remove the folder yourself");
    }
    remove_earlier_cases(p, old);
  }
  require_writable_folder(folder);
}

}  // namespace ordo::tools
