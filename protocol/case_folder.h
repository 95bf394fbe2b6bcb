#pragma once
// The file protocol's cases, read back: `ordo cases` (properties/case_generation.h) writes generated inputs
// as .npy with a manifest (protocol/cases_manifest.h); any program in any language writes each y.npy beside
// them; `ordo check` and `ordo identify` read them through CaseFolder.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/problem.h"
#include "protocol/cases_manifest.h"
#include "protocol/npy.h"

namespace ordo::protocol {

// Bad input: a missing, malformed or mis-shaped file. The message names the file and what is wrong.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a folder's inputs and outputs, checking every file against the manifest. Weights shared by a
// group's cases are read once.
class CaseFolder {
 public:
  CaseFolder(std::string folder, CasesManifest manifest);
  const CasesManifest& manifest() const { return manifest_; }
  const std::string& folder() const { return folder_; }
  // The inputs of a case as a forward problem (bf16 operands as floats of equal value). bf16_output is
  // set from the output file when it exists.
  ForwardProblem inputs(const CaseEntry& c);
  // The output the user's program wrote: FP32 values, or BF16 values as floats; `bf16` reports which.
  std::vector<float> output(const CaseEntry& c, bool* bf16);
  // Every case's output file, checked for presence, dtype and shape; InputError for the first defect.
  void check_outputs_present();

 private:
  std::string path(const std::string& relative) const;
  NpyArray read_input(const std::string& relative);
  // InputError unless the data's SHA-256 is the manifest's (`sha256` empty: one problem, no manifest).
  void check_digest(const NpyArray& a, const std::string& relative, const std::string& sha256) const;
  // `shared`: a group's W, read once and kept (a folder is judged in one pass; files do not change under it).
  std::vector<float> operand(const std::string& relative, const std::string& sha256, std::int64_t rows, std::int64_t cols,
                             bool shared);
  std::string folder_;
  CasesManifest manifest_;
  std::map<std::string, std::vector<float>> cache_;  // shared weights by path
};

}  // namespace ordo::protocol
