#pragma once
// Where `ordo cases` may write. A cases folder is judged as a whole (every y.npy the manifest names), so
// writing into a folder that holds anything else would mix old outputs with new inputs, and `--out /`
// once wrote 66 folders into the root. The folder must be new or empty; `--replace` empties an earlier
// cases folder (one with a readable manifest) of everything its manifest names, outputs and reports
// included, and of nothing else.
#include <stdexcept>
#include <string>

namespace ordo::tools {

class OutFolderRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Makes `folder` ready for new cases or throws OutFolderRefused saying why and what to do
// (FileWriteError when it cannot be created or written).
void prepare_cases_out_folder(const std::string& folder, bool replace);

}  // namespace ordo::tools
