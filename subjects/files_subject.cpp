#include "subjects/files_subject.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "protocol/sha256.h"

namespace ordo {

FilesSubject::FilesSubject(protocol::CaseFolder& folder, const std::optional<Contract>& contract,
                           std::size_t output_cache_bytes)
    : folder_(folder), budget_bytes_(output_cache_bytes) {
  traits_.id = folder.folder();
  traits_.kind = "files";
  if (contract) {
    traits_.contract = *contract;
  } else {
    traits_.contract.id = "none";
  }
  traits_.operand_dtype = folder.manifest().operands == "bf16" ? DType::bf16 : DType::f32;
  traits_.output_dtypes = {DType::f32, DType::bf16};
  traits_.description = "the outputs recorded in " + folder.folder();
}

// A digest of everything that makes the problem (its shapes and the bits of every input): a case is found
// by its inputs, never by a pointer or an order of calls.
std::string FilesSubject::fingerprint(const ForwardProblem& p) {
  protocol::Sha256 h;
  const std::int64_t shape[4] = {p.M, p.N, p.K, p.bias ? 1 : 0};
  h.update(shape, sizeof shape);
  h.update(p.x.data(), p.x.size() * sizeof(float));
  h.update(p.w.data(), p.w.size() * sizeof(float));
  if (p.bias) h.update(p.bias->data(), p.bias->size() * sizeof(float));
  return h.hex_digest();
}

ForwardProblem FilesSubject::problem(const protocol::CaseEntry& c) {
  ForwardProblem p = folder_.inputs(c);
  const RecordedOutput y = recorded(c);
  p.bf16_output = y.fault.empty() && y.bf16;  // what the program wrote: the problem it answered
  if (!fingerprint_of_.count(c.id)) {
    const std::string f = fingerprint(p);
    fingerprint_of_[c.id] = f;
    cases_by_inputs_[f].push_back(c.id);
  }
  return p;
}

RecordedOutput FilesSubject::recorded(const protocol::CaseEntry& c) {
  if (auto it = held_.find(c.id); it != held_.end()) return it->second;
  RecordedOutput out;
  try {
    out.values = std::make_shared<const std::vector<float>>(folder_.output(c, &out.bf16));
  } catch (const protocol::InputError& e) {
    out.fault = e.what();
  }
  const std::size_t bytes = out.values ? out.values->size() * sizeof(float) : 0;
  if (held_bytes_ + bytes > budget_bytes_) {
    held_.clear();  // the handles already given out keep their values
    held_bytes_ = 0;
  }
  held_bytes_ += bytes;
  held_[c.id] = out;
  return out;
}

BackendResult FilesSubject::forward(const ForwardProblem& p) {
  const auto found = cases_by_inputs_.find(fingerprint(p));
  if (found == cases_by_inputs_.end())
    return {Status::error(StatusCode::unsupported_shape, "no case of " + folder_.folder() + " has these inputs (M=" +
                                                             std::to_string(p.M) + " N=" + std::to_string(p.N) +
                                                             " K=" + std::to_string(p.K) + ")"),
            {}};
  // Every case with these inputs: one output each, which must agree (the same inputs twice are the same
  // problem; a kernel of a fixed order gives it the same bits every time).
  std::optional<RecordedOutput> first;
  std::string first_id;
  for (const std::string& id : found->second) {
    const protocol::CaseEntry* c = folder_.manifest().find(id);
    RecordedOutput y = recorded(*c);
    if (!y.fault.empty())
      return {Status::error(StatusCode::subject_fault, id + ": no usable output: " + y.fault), {}};
    if (!first) {
      first = y;
      first_id = id;
      continue;
    }
    if (y.bf16 != first->bf16 || y.values->size() != first->values->size() ||
        std::memcmp(y.values->data(), first->values->data(), y.values->size() * sizeof(float)) != 0)
      return {Status::error(StatusCode::subject_fault, "cases " + first_id + " and " + id +
                                                           " have the same inputs and different outputs"),
              {}};
  }
  return {Status::success(), *first->values};  // a copy: the result owns its values
}

}  // namespace ordo
