#pragma once
// The file protocol's cases: `ordo cases` writes generated inputs as .npy with a manifest
// (protocol/cases_manifest.h); any program in any language writes each y.npy beside them; `ordo check`
// and `ordo identify` read them back. Generation is deterministic in (seed, level, operands, shapes), so
// a folder can be regenerated anywhere and only the outputs moved.
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

namespace ordo::properties {

struct ShapeRequest {
  std::int64_t M = 0, N = 0, K = 0;  // an invariance group at N x K with batches up to M rows
};

struct CasesOptions {
  std::optional<Contract> contract;  // nullopt: "none" (operands and the output from the options)
  DType operands = DType::f32;
  int level = 1;
  std::uint64_t seed = 1;
  std::vector<ShapeRequest> shapes;  // empty: groups at generated shapes
  std::string y_dtype = "auto";      // "auto" (f32, half bf16 where the contract allows), "f32", "bf16"
  std::int64_t max_batch = 1024;     // the largest batch of an invariance group
  bool bias = true;                  // false: no case has a bias (e.g. a library whose bias is not FP32)
  std::string generated_by;
};

// Writes the folder (created if needed; existing case files are replaced) and returns its manifest.
// Throws std::invalid_argument for options that cannot be met (a bf16 Y under a contract without one).
protocol::CasesManifest generate_cases(const CasesOptions& options, const std::string& folder);

// Bad input: a missing, malformed or mis-shaped file. The message names the file and what is wrong.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Fills every case's input digests (x_sha256, w_sha256, b_sha256) from the files written in `folder`:
// what the manifest records and `ordo check` verifies.
void record_input_digests(const std::string& folder, protocol::CasesManifest& manifest);

// Reads a folder's inputs and outputs, checking every file against the manifest. Weights shared by a
// group's cases are read once.
class CaseFolder {
 public:
  CaseFolder(std::string folder, protocol::CasesManifest manifest);
  const protocol::CasesManifest& manifest() const { return manifest_; }
  const std::string& folder() const { return folder_; }
  // The inputs of a case as a forward problem (bf16 operands as floats of equal value). bf16_output is
  // set from the output file when it exists.
  ForwardProblem inputs(const protocol::CaseEntry& c);
  // The output the user's program wrote: FP32 values, or BF16 values as floats; `bf16` reports which.
  std::vector<float> output(const protocol::CaseEntry& c, bool* bf16);
  // Every case's output file, checked for presence, dtype and shape; InputError for the first defect.
  void check_outputs_present();

 private:
  std::string path(const std::string& relative) const;
  protocol::NpyArray read_input(const std::string& relative);
  // InputError unless the data's SHA-256 is the manifest's (`sha256` empty: one problem, no manifest).
  void check_digest(const protocol::NpyArray& a, const std::string& relative, const std::string& sha256) const;
  // `shared`: a group's W, read once and kept (a folder is judged in one pass; files do not change under it).
  std::vector<float> operand(const std::string& relative, const std::string& sha256, std::int64_t rows, std::int64_t cols,
                             bool shared);
  std::string folder_;
  protocol::CasesManifest manifest_;
  std::map<std::string, std::vector<float>> cache_;  // shared weights by path
};

}  // namespace ordo::properties
