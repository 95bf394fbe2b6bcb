// The host twins of the dW/db mutants: the token order and key checks of the defect
// (kernels/mutants/bwd_dw_orders.h) and its element functions (bwd_dw_defects.h), the code the GPU
// mutants run. The atomics twin adds its chunks' partial sums in a fresh pseudo-random order on every
// call: the GPU's atomics give no order at all, and a fixed one here would hide nothing but that.
#include <algorithm>
#include <numeric>
#include <random>

#include "core/contract.h"
#include "kernels/mutants/bwd_dw_orders.h"
#include "subjects/mutants/host_mutants_internal.h"

namespace ordo::mutants {
namespace {

class HostDwTwin final : public BackwardSubject {
 public:
  HostDwTwin(const HostTwinInfo& info, DwDefect d)
      : traits_(host_twin_traits(info.id, info.contract_id, info.defect)), defect_(d) {
    traits_.accumulate = true;
  }
  const SubjectTraits& traits() const override { return traits_; }
  BackendResult data(const BackwardDataProblem&) override {
    return {Status::error(StatusCode::unsupported_shape, traits_.id + " is a dW/db subject"), {}};
  }

  BackwardWeightRun weight(const std::vector<BackwardWeightProblem>& microbatches) override {
    if (microbatches.empty()) return {Status::error(StatusCode::tool_error, "no microbatch"), {}};
    const std::int64_t N = microbatches[0].N, K = microbatches[0].K;
    const bool with_db = microbatches[0].with_bias_grad;
    if (N > kMaxTwinDim || K > kMaxTwinDim)
      return {Status::error(StatusCode::unsupported_shape, "N, K below 2^30"), {}};
    BackwardWeightRun run;
    run.result.dw.assign(static_cast<std::size_t>(N * K), 0.0f);
    if (with_db) run.result.db.emplace(static_cast<std::size_t>(N), 0.0f);
    for (std::size_t i = 0; i < microbatches.size(); ++i) {
      const BackwardWeightProblem& p = microbatches[i];
      if (p.N != N || p.K != K || p.with_bias_grad != with_db || p.bf16_operands)
        return {Status::error(StatusCode::inconsistent_size, "microbatches disagree on N, K, db or dtype"), {}};
      if (Status s = call(p, i > 0, run.result); !s.ok()) return {s, {}};
    }
    return run;
  }

 private:
  Status call(const BackwardWeightProblem& p, bool accumulate, BackwardWeightResult& out) {
    if (p.T > kMaxTwinDim) return Status::error(StatusCode::unsupported_shape, "T below 2^30");
    const LogicalKeysView view = p.keys ? p.keys->view() : LogicalKeysView{};
    const DwOrders orders = dw_orders(defect_, p.keys ? &view : nullptr, p.T, p.g.data(), p.N);
    if (!orders.status.ok()) return orders.status;
    const int N = static_cast<int>(p.N), K = static_cast<int>(p.K);
    const int R = static_cast<int>(orders.dw_rows.size()), Rb = static_cast<int>(orders.db_rows.size());
    const float* g = p.g.data();
    const float* x = p.x.data();
    if (defect_ == DwDefect::atomics) return add_chunks(orders, g, x, N, K, accumulate, out);
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        float& v = out.dw[static_cast<std::size_t>(n) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)];
        v = dw_element(defect_, g, x, orders.dw_rows.data(), R, N, K, n, k, accumulate, v);
      }
    if (out.db)
      for (int n = 0; n < N; ++n) {
        float& v = (*out.db)[static_cast<std::size_t>(n)];
        v = db_element(defect_, g, orders.db_rows.data(), Rb, N, n, accumulate, v);
      }
    return Status::success();
  }

  Status add_chunks(const DwOrders& orders, const float* g, const float* x, int N, int K, bool accumulate,
                    BackwardWeightResult& out) {
    const int R = static_cast<int>(orders.dw_rows.size());
    std::vector<int> chunks(static_cast<std::size_t>((R + kDwChunk - 1) / kDwChunk));
    std::iota(chunks.begin(), chunks.end(), 0);
    std::shuffle(chunks.begin(), chunks.end(), random_);
    if (!accumulate) {
      std::fill(out.dw.begin(), out.dw.end(), 0.0f);
      if (out.db) std::fill(out.db->begin(), out.db->end(), 0.0f);
    }
    const int* rows = orders.dw_rows.data();
    for (const int c : chunks) {
      const int r0 = c * kDwChunk, r1 = std::min(R, r0 + kDwChunk);
      for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) {
          float& v = out.dw[static_cast<std::size_t>(n) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)];
          v = add_rn(v, dw_chain(g, x, rows, r0, r1, N, K, n, k, 0.0f));
        }
      if (out.db)
        for (int n = 0; n < N; ++n) {
          float& v = (*out.db)[static_cast<std::size_t>(n)];
          v = add_rn(v, db_chain(g, rows, r0, r1, N, n, 0.0f));
        }
    }
    return Status::success();
  }

  SubjectTraits traits_;
  DwDefect defect_;
  std::minstd_rand random_{20261201u};  // the chunks' finishing order: a new one on every call
};

}  // namespace

std::vector<HostTwinInfo> dw_twin_infos() {
  std::vector<HostTwinInfo> out;
  for (const DwDefect d : all_dw_defects())
    out.push_back({dw_defect_id(d), dw_defect_text(d), "bwd.dw.f32.fma-chain/1"});
  return out;
}

std::unique_ptr<BackwardSubject> make_dw_twin(const std::string& id) {
  for (const DwDefect d : all_dw_defects())
    if (id == dw_defect_id(d))
      return std::make_unique<HostDwTwin>(HostTwinInfo{id, dw_defect_text(d), "bwd.dw.f32.fma-chain/1"}, d);
  return nullptr;
}

}  // namespace ordo::mutants
