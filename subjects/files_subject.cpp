#include "subjects/files_subject.h"

#include <algorithm>
#include <cstdint>
#include <cstring>


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

namespace {

// Two independent 64-bit multiply-xorshift streams over the words of a buffer: 128 bits, a few GB/s (SHA-256
// of every problem doubled the CPU time of `ordo check`). The inputs are ordo's own, not an adversary's.
struct Digest {
  std::uint64_t a = 0x243F6A8885A308D3ull, b = 0x13198A2E03707344ull;
  void word(std::uint64_t v) {
    a = (a ^ v) * 0x9E3779B97F4A7C15ull;
    a ^= a >> 29;
    b = (b + v) * 0xC2B2AE3D27D4EB4Full;
    b ^= b >> 31;
  }
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t v;
      std::memcpy(&v, p + i, 8);
      word(v);
    }
    std::uint64_t tail = 0;
    std::memcpy(&tail, p + i, n - i);
    word(tail ^ (static_cast<std::uint64_t>(n) << 56));
  }
};

}  // namespace

// A digest of everything that makes the problem (its shapes and the bits of every input): a case is found
// by its inputs, never by a pointer or an order of calls.
std::string FilesSubject::fingerprint(const ForwardProblem& p) {
  Digest d;
  for (const std::int64_t v : {p.M, p.N, p.K, std::int64_t{p.bias ? 1 : 0}}) d.word(static_cast<std::uint64_t>(v));
  d.bytes(p.x.data(), p.x.size() * sizeof(float));
  d.bytes(p.w.data(), p.w.size() * sizeof(float));
  if (p.bias) d.bytes(p.bias->data(), p.bias->size() * sizeof(float));
  std::string key(16, '\0');
  std::memcpy(key.data(), &d.a, 8);
  std::memcpy(key.data() + 8, &d.b, 8);
  return key;
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
        std::memcmp(y.values->data(), first->values->data(), y.values->size() * sizeof(float)) != 0) {
      std::string why = "cases ";
      why.append(first_id).append(" and ").append(id).append(" have the same inputs and different outputs");
      return {Status::error(StatusCode::subject_fault, why), {}};
    }
  }
  return {Status::success(), *first->values};  // a copy: the result owns its values
}

}  // namespace ordo
