#include "subjects/plugin_subject.h"

#include <cuda_runtime.h>

#include <cstring>

#include "core/float_bits.h"
#include "subjects/device_operands.h"
#include "subjects/guarded_buffer.h"

namespace ordo {
namespace {

using subjects::HostOperand;
using subjects::to_operand;

constexpr unsigned char kPoisonA = 0xA5, kPoisonB = 0x5A;

Status fault(std::string what) { return Status::error(StatusCode::subject_fault, std::move(what)); }

ordo_tensor tensor(const GuardedBuffer& b, DType t, std::int64_t rows, std::int64_t cols) {
  return {b.data(), dtype_to_abi(t), rows, cols};
}
ordo_output output(const GuardedBuffer& b, DType t, std::int64_t rows, std::int64_t cols) {
  return {b.data(), dtype_to_abi(t), rows, cols};
}

// An input as uploaded, kept to check that the subject did not write it.
struct Input {
  const char* name;
  GuardedBuffer buffer;
  std::vector<unsigned char> bytes;
  Status upload(const void* src, std::size_t n, bool device) {
    bytes.assign(static_cast<const unsigned char*>(src), static_cast<const unsigned char*>(src) + n);
    return buffer.upload(src, n, device);
  }
  Status check() {
    if (std::string d = buffer.guard_damage(); !d.empty()) return fault(std::string("wrote outside its input ") + name + ": " + d);
    if (bytes.empty()) return Status::success();
    std::vector<unsigned char> now(buffer.bytes());
    if (Status s = buffer.download(now.data()); !s.ok()) return s;
    if (std::memcmp(now.data(), bytes.data(), bytes.size()) != 0) return fault(std::string("changed its input ") + name);
    return Status::success();
  }
};

// The two operands of a call converted to the subject's operand dtype (both first: a value the dtype cannot hold is
// reported before any upload), then uploaded where the subject reads them (host or device memory).
Status upload_operands(Input& a, const std::vector<float>& a_values, Input& b, const std::vector<float>& b_values,
                       DType dtype, bool device) {
  HostOperand ha, hb;
  if (Status s = to_operand(a_values, dtype, &ha); !s.ok()) return s;
  if (Status s = to_operand(b_values, dtype, &hb); !s.ok()) return s;
  if (Status s = a.upload(ha.data(), ha.bytes(), device); !s.ok()) return s;
  return b.upload(hb.data(), hb.bytes(), device);
}

Status synchronize(bool device) {
  if (!device) return Status::success();
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return Status::error(StatusCode::launch_failed, std::string("the subject's work failed: ") + cudaGetErrorString(e));
  return Status::success();
}

// The indices of `out` (elements of `element` bytes) still holding the poison byte in every byte.
std::vector<std::size_t> unwritten(const std::vector<unsigned char>& out, std::size_t element, unsigned char poison) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < out.size() / element; ++i) {
    bool all = true;
    for (std::size_t b = 0; b < element && all; ++b) all = out[i * element + b] == poison;
    if (all) idx.push_back(i);
  }
  return idx;
}

// Runs `call` with the output poisoned by kPoisonA and, if some elements still hold it, again with
// kPoisonB: elements that hold the poison both times were never written.
template <class Call>
Status run_and_check(GuardedBuffer& out, const char* out_name, std::size_t element, std::int64_t cols,
                     const std::vector<Input*>& inputs, bool device, Call call, std::vector<unsigned char>& result) {
  std::vector<std::size_t> missing_a;
  for (const unsigned char poison : {kPoisonA, kPoisonB}) {
    if (Status s = out.fill(poison); !s.ok()) return s;
    if (Status s = call(); !s.ok()) return s;
    if (Status s = synchronize(device); !s.ok()) return s;
    if (std::string d = out.guard_damage(); !d.empty()) return fault(std::string("wrote outside its output ") + out_name + ": " + d);
    for (Input* in : inputs)
      if (Status s = in->check(); !s.ok()) return s;
    result.resize(out.bytes());
    if (Status s = out.download(result.data()); !s.ok()) return s;
    const std::vector<std::size_t> missing = unwritten(result, element, poison);
    if (missing.empty()) return Status::success();
    if (poison == kPoisonA) {
      missing_a = missing;
      continue;
    }
    std::vector<std::size_t> both;
    std::set_intersection(missing_a.begin(), missing_a.end(), missing.begin(), missing.end(), std::back_inserter(both));
    if (both.empty()) return Status::success();
    const std::size_t first = both[0];
    return fault("left " + std::to_string(both.size()) + " of " + std::to_string(result.size() / element) + " elements of " +
                 out_name + " unwritten (first at [" + std::to_string(static_cast<std::int64_t>(first) / cols) + "," +
                 std::to_string(static_cast<std::int64_t>(first) % cols) + "])");
  }
  return Status::success();
}

std::vector<float> floats_of(const std::vector<unsigned char>& bytes, bool bf16) {
  std::vector<float> v(bytes.size() / (bf16 ? 2 : 4));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (bf16) {
      std::uint16_t h;
      std::memcpy(&h, &bytes[2 * i], 2);
      v[i] = float_of(std::uint32_t{h} << 16);
    } else {
      std::memcpy(&v[i], &bytes[4 * i], 4);
    }
  }
  return v;
}

// One call of an entry point of the subject ABI: its return code and message as a Status (the message cut to
// 1023 bytes and terminated, whatever the library wrote).
template <class Args>
Status call_abi(const std::function<int(const Args*, char*, size_t)>& entry, const Args& a) {
  char message[1024] = {};
  const int rc = entry(&a, message, sizeof message);
  message[sizeof message - 1] = '\0';
  return status_from_abi(rc, message);
}

class PluginForwardSubject final : public ForwardSubject {
 public:
  PluginForwardSubject(std::shared_ptr<PluginLibrary> lib, SubjectTraits t) : lib_(std::move(lib)), traits_(std::move(t)) {}
  const SubjectTraits& traits() const override { return traits_; }

  BackendResult forward(const ForwardProblem& p) override {
    const bool dev = traits_.device_buffers;
    Input in_x{"x", {}, {}}, in_w{"w", {}, {}}, in_b{"bias", {}, {}};
    if (Status s = upload_operands(in_x, p.x, in_w, p.w, traits_.operand_dtype, dev); !s.ok()) return {s, {}};
    if (p.bias)
      if (Status s = in_b.upload(p.bias->data(), p.bias->size() * 4, dev); !s.ok()) return {s, {}};
    const DType y_dtype = p.bf16_output ? DType::bf16 : DType::f32;
    const std::size_t element = p.bf16_output ? 2 : 4;
    GuardedBuffer y;
    if (Status s = y.allocate(static_cast<std::size_t>(p.M * p.N) * element, dev); !s.ok()) return {s, {}};
    ordo_forward_args a{};
    a.struct_size = sizeof a;
    a.x = tensor(in_x.buffer, traits_.operand_dtype, p.M, p.K);
    a.w = tensor(in_w.buffer, traits_.operand_dtype, p.N, p.K);
    if (p.bias) a.bias = tensor(in_b.buffer, DType::f32, 1, p.N);
    a.y = output(y, y_dtype, p.M, p.N);
    std::vector<unsigned char> bytes;
    std::vector<Input*> inputs{&in_x, &in_w};
    if (p.bias) inputs.push_back(&in_b);
    const Status s = run_and_check(y, "y", element, p.N, inputs, dev, [&] { return call(a); }, bytes);
    if (!s.ok()) return {s, {}};
    return {Status::success(), floats_of(bytes, p.bf16_output)};
  }

  std::vector<FailClosedOutcome> fail_closed_scenarios() override {
    return run_forward_fail_closed(plugin_fail_closed_target(lib_, traits_));
  }

 private:
  Status call(const ordo_forward_args& a) { return call_abi(lib_->forward, a); }
  std::shared_ptr<PluginLibrary> lib_;
  SubjectTraits traits_;
};

class PluginBackwardSubject final : public BackwardSubject {
 public:
  PluginBackwardSubject(std::shared_ptr<PluginLibrary> lib, SubjectTraits t, int op)
      : lib_(std::move(lib)), traits_(std::move(t)), op_(op) {}
  const SubjectTraits& traits() const override { return traits_; }
  bool has_fail_closed_scenarios() const override { return true; }
  std::vector<FailClosedOutcome> fail_closed_scenarios() override {
    return run_backward_fail_closed(plugin_backward_fail_closed_target(lib_, traits_));
  }

  BackendResult data(const BackwardDataProblem& p) override {
    if (op_ != ORDO_OP_BACKWARD_DATA) return {Status::error(StatusCode::unsupported_shape, "not a dX subject"), {}};
    const bool dev = traits_.device_buffers;
    Input in_g{"g", {}, {}}, in_w{"w", {}, {}};
    if (Status s = upload_operands(in_g, p.g, in_w, p.w, traits_.operand_dtype, dev); !s.ok()) return {s, {}};
    GuardedBuffer dx;
    if (Status s = dx.allocate(static_cast<std::size_t>(p.M * p.K) * 4, dev); !s.ok()) return {s, {}};
    ordo_backward_data_args a{};
    a.struct_size = sizeof a;
    a.g = tensor(in_g.buffer, traits_.operand_dtype, p.M, p.N);
    a.w = tensor(in_w.buffer, traits_.operand_dtype, p.N, p.K);
    a.dx = output(dx, DType::f32, p.M, p.K);
    std::vector<unsigned char> bytes;
    const Status s = run_and_check(
        dx, "dx", 4, p.K, {&in_g, &in_w}, dev, [&] { return call_abi(lib_->backward_data, a); }, bytes);
    if (!s.ok()) return {s, {}};
    return {Status::success(), floats_of(bytes, false)};
  }

  BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) override {
    if (op_ != ORDO_OP_BACKWARD_WEIGHT) return {Status::error(StatusCode::unsupported_shape, "not a dW subject"), {}};
    if (microbatches.empty()) return {Status::error(StatusCode::tool_error, "no microbatch"), {}};
    if (microbatches.size() > 1 && !traits_.accumulate)
      return {Status::error(StatusCode::unsupported_shape, "the subject does not declare ORDO_SUBJECT_ACCUMULATE"), {}};
    const bool dev = traits_.device_buffers;
    const std::int64_t N = microbatches[0].N, K = microbatches[0].K;
    const bool with_db = microbatches[0].with_bias_grad;
    GuardedBuffer dw, db;
    if (Status s = dw.allocate(static_cast<std::size_t>(N * K) * 4, dev); !s.ok()) return {s, {}};
    if (with_db)
      if (Status s = db.allocate(static_cast<std::size_t>(N) * 4, dev); !s.ok()) return {s, {}};
    std::vector<unsigned char> dw_bytes, db_bytes;
    for (std::size_t i = 0; i < microbatches.size(); ++i) {
      const BackwardWeightProblem& p = microbatches[i];
      if (p.N != N || p.K != K || p.with_bias_grad != with_db)
        return {Status::error(StatusCode::tool_error, "microbatches disagree on N, K or db"), {}};
      Input in_x{"x", {}, {}}, in_g{"g", {}, {}}, in_k{"keys", {}, {}};
      if (Status s = upload_operands(in_x, p.x, in_g, p.g, traits_.operand_dtype, dev); !s.ok()) return {s, {}};
      if (p.keys)
        if (Status s = in_k.upload(p.keys->values.data(), p.keys->values.size() * 8, dev); !s.ok()) return {s, {}};
      ordo_backward_weight_args a{};
      a.struct_size = sizeof a;
      a.x = tensor(in_x.buffer, traits_.operand_dtype, p.T, K);
      a.g = tensor(in_g.buffer, traits_.operand_dtype, p.T, N);
      if (p.keys) a.keys = tensor(in_k.buffer, DType::i64, p.T, p.keys->width);
      a.dw = output(dw, DType::f32, N, K);
      if (with_db) a.db = output(db, DType::f32, 1, N);
      a.accumulate = i > 0 ? 1 : 0;
      auto call = [&] { return call_abi(lib_->backward_weight, a); };
      std::vector<Input*> inputs{&in_x, &in_g};
      if (p.keys) inputs.push_back(&in_k);
      if (i == 0) {
        // The first call starts every chain: poison shows an element it never wrote. db is checked by
        // its guards only (a poisoned db may legitimately be read back if the call has no tokens).
        if (with_db)
          if (Status s = db.fill(kPoisonA); !s.ok()) return {s, {}};
        if (Status s = run_and_check(dw, "dw", 4, K, inputs, dev, call, dw_bytes); !s.ok()) return {s, {}};
      } else {
        if (Status s = call(); !s.ok()) return {s, {}};
        if (Status s = synchronize(dev); !s.ok()) return {s, {}};
        if (std::string d = dw.guard_damage(); !d.empty()) return {fault("wrote outside its output dw: " + d), {}};
        for (Input* in : inputs)
          if (Status s = in->check(); !s.ok()) return {s, {}};
      }
      if (with_db)
        if (std::string d = db.guard_damage(); !d.empty()) return {fault("wrote outside its output db: " + d), {}};
    }
    BackwardWeightRun r;
    dw_bytes.resize(dw.bytes());
    if (Status s = dw.download(dw_bytes.data()); !s.ok()) return {s, {}};
    r.result.dw = floats_of(dw_bytes, false);
    if (with_db) {
      db_bytes.resize(db.bytes());
      if (Status s = db.download(db_bytes.data()); !s.ok()) return {s, {}};
      r.result.db = floats_of(db_bytes, false);
    }
    return r;
  }

 private:
  std::shared_ptr<PluginLibrary> lib_;
  SubjectTraits traits_;
  int op_;
};

}  // namespace

FailClosedTarget plugin_fail_closed_target(const std::shared_ptr<PluginLibrary>& library, const SubjectTraits& traits) {
  return {traits,
          false,
          [library](const std::string&, const kernels::ForwardArgs& k) {
            ordo_forward_args a{};
            a.struct_size = sizeof a;
            a.x = {k.x.data, dtype_to_abi(k.x.dtype), k.x.rows, k.x.cols};
            a.w = {k.w.data, dtype_to_abi(k.w.dtype), k.w.rows, k.w.cols};
            a.bias = {k.bias.data, dtype_to_abi(k.bias.dtype), k.bias.rows, k.bias.cols};
            a.y = {k.y, dtype_to_abi(k.y_dtype), k.y_rows, k.y_cols};
            a.stream = k.stream;
            return call_abi(library->forward, a);
          },
          {}};
}

BackwardFailClosedTarget plugin_backward_fail_closed_target(const std::shared_ptr<PluginLibrary>& library,
                                                            const SubjectTraits& traits) {
  const auto tensor_of = [](const kernels::TensorRef& t) {
    return ordo_tensor{t.data, dtype_to_abi(t.dtype), t.rows, t.cols};
  };
  const auto output_of = [](const kernels::OutputRef& o) {
    return ordo_output{o.data, dtype_to_abi(o.dtype), o.rows, o.cols};
  };
  BackwardFailClosedTarget target;
  target.traits = traits;
  target.call_data = [library, tensor_of, output_of](const kernels::BackwardDataArgs& k) {
    ordo_backward_data_args a{};
    a.struct_size = sizeof a;
    a.g = tensor_of(k.g);
    a.w = tensor_of(k.w);
    a.dx = output_of(k.dx);
    a.stream = k.stream;
    return call_abi(library->backward_data, a);
  };
  target.call_weight = [library, tensor_of, output_of](const kernels::BackwardWeightArgs& k) {
    ordo_backward_weight_args a{};
    a.struct_size = sizeof a;
    a.x = tensor_of(k.x);
    a.g = tensor_of(k.g);
    a.keys = tensor_of(k.keys);
    a.dw = output_of(k.dw);
    a.db = output_of(k.db);
    a.accumulate = k.accumulate ? 1 : 0;
    a.stream = k.stream;
    return call_abi(library->backward_weight, a);
  };
  return target;
}

PluginSubjects load_plugin_subjects(const std::string& path) { return make_plugin_subjects(open_plugin_library(path)); }

PluginSubjects make_plugin_subjects(std::shared_ptr<PluginLibrary> library) {
  PluginSubjects out;
  out.library = std::move(library);
  for (const PluginOperation& op : out.library->operations) {
    if (op.op == ORDO_OP_FORWARD) out.forward.push_back(std::make_unique<PluginForwardSubject>(out.library, op.traits));
    else out.backward.push_back(std::make_unique<PluginBackwardSubject>(out.library, op.traits, op.op));
  }
  return out;
}

}  // namespace ordo
