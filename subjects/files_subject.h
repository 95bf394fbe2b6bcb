#pragma once
// A folder of cases and outputs (docs/file-protocol.md) as a forward subject: the program that wrote the
// y.npy files is the subject, and running a problem returns the output it recorded for the case with exactly
// those inputs. `ordo check` judges a folder through the same checks as a kernel or a plugin
// (properties/folder_check.h); the backward file protocol and a Python layer are subjects of this kind too.
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/case_folder.h"
#include "subjects/forward_subject.h"

namespace ordo {

// A case's output as recorded, or why there is none. The values are owned by whoever holds the handle:
// the subject's cache may drop its own copy at any time.
struct RecordedOutput {
  std::shared_ptr<const std::vector<float>> values;
  bool bf16 = false;
  std::string fault;  // non-empty: y.npy is missing or malformed (the program's failure on this case)
};

class FilesSubject final : public ForwardSubject {
 public:
  // `contract`: the contract the outputs are judged against (nullopt: none, the relations only; the traits
  // then name contract "none"). Outputs read are kept up to `output_cache_bytes`, then read again.
  FilesSubject(protocol::CaseFolder& folder, const std::optional<Contract>& contract, std::size_t output_cache_bytes);

  const SubjectTraits& traits() const override { return traits_; }
  // The output recorded for the case whose inputs are exactly p's (shapes and bits; bf16_output is the
  // recorded file's, not p's): a subject_fault when that case's y.npy is missing or malformed, or when two
  // cases have these inputs and different outputs; unsupported_shape when no case registered through
  // problem() has them.
  BackendResult forward(const ForwardProblem& p) override;

  // The inputs of a case (protocol::InputError for a malformed input or one whose digest differs from the
  // manifest's), with bf16_output from its output file; registers them so that forward() finds the case.
  ForwardProblem problem(const protocol::CaseEntry& c);
  // The output of a case, as recorded.
  RecordedOutput recorded(const protocol::CaseEntry& c);

 private:
  static std::string fingerprint(const ForwardProblem& p);
  protocol::CaseFolder& folder_;
  SubjectTraits traits_;
  std::size_t budget_bytes_;
  std::map<std::string, RecordedOutput> held_;  // by case id
  std::size_t held_bytes_ = 0;
  std::map<std::string, std::vector<std::string>> cases_by_inputs_;  // fingerprint -> case ids
  std::map<std::string, std::string> fingerprint_of_;                // case id -> fingerprint
};

}  // namespace ordo
