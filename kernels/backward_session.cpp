// The GPU dW/db session (kernels/backward_session.h): every microbatch is validated as backward_weight
// validates it, its active rows get their places in the batch's canonical order, and the consecutive
// prefix from the first unreduced place is reduced by the variant's launcher with accumulate, either
// over the staging buffer (through an index of slots) or over the microbatch itself (in place or
// through an index of its rows). Everything that can refuse the microbatch runs before the first copy
// or launch is queued.
#include "kernels/backward_session.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/backward_internal.h"

namespace ordo::kernels {

struct BackwardWeightSessionState {
  const detail::BackwardWeightEntry* entry = nullptr;
  BackwardWeightSessionConfig cfg;
  cudaStream_t stream = nullptr;
  std::int64_t es = 4;    // operand element bytes
  std::int64_t unit = 1;  // rows a launch before finish() reduces a multiple of: 16 for BF16, 1 for FP32

  std::int64_t reduced = 0;   // places below this are folded into dW and db
  std::int64_t consumed = 0;  // in order: the places handed out so far
  bool started = false;       // a launch has fixed the start of the chains
  bool finished = false;
  bool broken = false;
  std::optional<bool> keyed;          // in order: whether the microbatches carry keys
  std::vector<std::int64_t> last_key;  // in order: the last key consumed

  std::map<std::int64_t, int> staged;  // place -> staging slot
  std::set<int> free_slots;            // slots of the staging buffer not in use
  void* sx = nullptr;                  // [capacity, K] operand dtype
  void* sg = nullptr;                  // [capacity, N] operand dtype
  std::int64_t capacity = 0;
  int* idx = nullptr;  // device index array
  std::int64_t idx_capacity = 0;

  std::int64_t expected_count() const { return cfg.expected_keys ? cfg.expected_keys->rows() : 0; }
  const std::int64_t* expected_key(std::int64_t i) const {
    return cfg.expected_keys->values.data() + i * cfg.expected_keys->width;
  }
};

namespace {

using State = BackwardWeightSessionState;

Status cuda_failed(const std::string& what, cudaError_t e) {
  (void)cudaGetLastError();
  return Status::error(StatusCode::launch_failed, what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

// Frees a device allocation once the work queued on the stream before it has run.
void release(cudaStream_t stream, void* p) {
  if (!p) return;
  (void)cudaStreamSynchronize(stream);
  (void)cudaFree(p);
  (void)cudaGetLastError();
}

// At least `rows` slots in the staging buffer, the staged rows kept in their slots. On failure the
// old buffer and every slot stay as they were.
Status reserve_staging(State& s, std::int64_t rows) {
  if (rows <= s.capacity) return Status::success();
  const std::int64_t cap = std::min(std::max({rows, 2 * s.capacity, std::int64_t{16}}), detail::kMaxDim);
  const auto xb = static_cast<std::size_t>(cap * s.cfg.K * s.es), gb = static_cast<std::size_t>(cap * s.cfg.N * s.es);
  void* nx = nullptr;
  void* ng = nullptr;
  cudaError_t e = cudaMalloc(&nx, xb);
  if (e != cudaSuccess) return cuda_failed("allocating the staging buffer (" + std::to_string(cap) + " rows of x)", e);
  if ((e = cudaMalloc(&ng, gb)) != cudaSuccess) {
    const Status st = cuda_failed("allocating the staging buffer (" + std::to_string(cap) + " rows of g)", e);
    (void)cudaFree(nx);
    return st;
  }
  if (s.capacity > 0) {
    const auto oxb = static_cast<std::size_t>(s.capacity * s.cfg.K * s.es);
    const auto ogb = static_cast<std::size_t>(s.capacity * s.cfg.N * s.es);
    if ((e = cudaMemcpyAsync(nx, s.sx, oxb, cudaMemcpyDeviceToDevice, s.stream)) != cudaSuccess ||
        (e = cudaMemcpyAsync(ng, s.sg, ogb, cudaMemcpyDeviceToDevice, s.stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(s.stream)) != cudaSuccess) {
      const Status st = cuda_failed("moving the staged rows to the larger buffer", e);
      (void)cudaFree(nx);
      (void)cudaFree(ng);
      return st;
    }
    (void)cudaFree(s.sx);
    (void)cudaFree(s.sg);
  }
  for (std::int64_t slot = s.capacity; slot < cap; ++slot) s.free_slots.insert(static_cast<int>(slot));
  s.sx = nx;
  s.sg = ng;
  s.capacity = cap;
  return Status::success();
}

// At least `n` entries in the device index array. On failure the array is empty (nothing staged depends
// on its contents between calls).
Status reserve_index(State& s, std::int64_t n) {
  if (n <= s.idx_capacity) return Status::success();
  const std::int64_t cap = std::max({n, 2 * s.idx_capacity, std::int64_t{256}});
  release(s.stream, s.idx);
  s.idx = nullptr;
  s.idx_capacity = 0;
  void* p = nullptr;
  if (const cudaError_t e = cudaMalloc(&p, static_cast<std::size_t>(cap) * sizeof(int)); e != cudaSuccess)
    return cuda_failed("allocating the row index", e);
  s.idx = static_cast<int*>(p);
  s.idx_capacity = cap;
  return Status::success();
}

// One launch of the variant over `R` rows of (x, g): rows[r] through the index when `rows` is set
// (uploaded at idx + offset), else row r. The first launch starts the chains from +0 unless the session
// continues from dW; every later one continues.
Status launch(State& s, const void* x, const void* g, const std::vector<int>* rows, std::int64_t offset, std::int64_t R) {
  detail::BackwardWeightLaunch p;
  if (s.es == 2) {
    p.x_bf16 = static_cast<const std::uint16_t*>(x);
    p.g_bf16 = static_cast<const std::uint16_t*>(g);
  } else {
    p.x = static_cast<const float*>(x);
    p.g = static_cast<const float*>(g);
  }
  if (rows && R > 0) {
    int* dst = s.idx + offset;
    // From pageable memory: the copy has taken the host data when the call returns.
    if (const cudaError_t e = cudaMemcpyAsync(dst, rows->data(), static_cast<std::size_t>(R) * sizeof(int),
                                              cudaMemcpyHostToDevice, s.stream);
        e != cudaSuccess)
      return cuda_failed("uploading the row index", e);
    p.rows = dst;
  }
  p.R = static_cast<int>(R);
  p.dw = static_cast<float*>(s.cfg.dw.data);
  p.db = static_cast<float*>(s.cfg.db.data);
  p.N = static_cast<int>(s.cfg.N);
  p.K = static_cast<int>(s.cfg.K);
  p.accumulate = s.started || s.cfg.accumulate;
  p.stream = s.stream;
  if (const cudaError_t e = s.entry->launch(p); e != cudaSuccess)
    return cuda_failed("launch of " + s.entry->variant.id, e);
  s.started = true;
  return Status::success();
}

// Copies rows src[i] of (x, g) of the microbatch to staging slots dst[i], one copy per run of rows
// consecutive in both.
Status copy_rows(State& s, const void* x, const void* g, const std::vector<int>& src, const std::vector<int>& dst) {
  const std::int64_t xr = s.cfg.K * s.es, gr = s.cfg.N * s.es;  // bytes per row
  for (std::size_t i = 0; i < src.size();) {
    std::size_t j = i + 1;
    while (j < src.size() && src[j] == src[j - 1] + 1 && dst[j] == dst[j - 1] + 1) ++j;
    const auto n = static_cast<std::int64_t>(j - i);
    cudaError_t e = cudaMemcpyAsync(static_cast<char*>(s.sx) + dst[i] * xr, static_cast<const char*>(x) + src[i] * xr,
                                    static_cast<std::size_t>(n * xr), cudaMemcpyDeviceToDevice, s.stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(static_cast<char*>(s.sg) + dst[i] * gr, static_cast<const char*>(g) + src[i] * gr,
                          static_cast<std::size_t>(n * gr), cudaMemcpyDeviceToDevice, s.stream);
    if (e != cudaSuccess) return cuda_failed("staging microbatch rows", e);
    i = j;
  }
  return Status::success();
}

struct Item {
  std::int64_t place;
  bool staged;
  int src;  // the staging slot, or the microbatch row
};

// Folds in a validated microbatch whose active rows `rows` (ascending key order) take the places
// `places` (ascending, none reduced or staged yet). Refusals (bad_size, a failed allocation) come
// before the first copy or launch; a failure after that breaks the session.
Status absorb(State& s, const void* x, const void* g, const std::vector<std::int64_t>& places,
              const std::vector<int>& rows) {
  // The run of consecutive places from the first unreduced one, from the microbatch and the staging.
  std::vector<Item> run;
  std::size_t i = 0;
  auto it = s.staged.begin();
  for (std::int64_t cursor = s.reduced;; ++cursor) {
    if (i < places.size() && places[i] == cursor) {
      run.push_back({cursor, false, rows[i]});
      ++i;
    } else if (it != s.staged.end() && it->first == cursor) {
      run.push_back({cursor, true, it->second});
      ++it;
    } else {
      break;
    }
  }
  const auto L = static_cast<std::int64_t>(run.size());
  const std::int64_t reducible = L / s.unit * s.unit;
  std::int64_t head_end = 0;  // one past the run's last staged row
  for (std::int64_t r = 0; r < L; ++r)
    if (run[static_cast<std::size_t>(r)].staged) head_end = r + 1;
  // The head is reduced over the staging buffer (its microbatch rows copied there first), the tail,
  // which only the microbatch holds, where it lies. For BF16 the head is rounded up to whole groups.
  const std::int64_t head =
      head_end > 0 ? std::min((head_end + s.unit - 1) / s.unit * s.unit, reducible) : std::int64_t{0};

  // The microbatch rows to stage: those of the head, the run's unreduced rest, and the rows ahead of
  // the gap.
  std::vector<std::pair<int, std::int64_t>> copies;  // (microbatch row, place)
  for (std::int64_t r = 0; r < L; ++r) {
    const Item& item = run[static_cast<std::size_t>(r)];
    if (!item.staged && (r < head || r >= reducible)) copies.emplace_back(item.src, item.place);
  }
  for (; i < places.size(); ++i) copies.emplace_back(rows[i], places[i]);

  const auto peak = static_cast<std::int64_t>(s.staged.size() + copies.size());
  if (peak > detail::kMaxDim || peak * std::max(s.cfg.N, s.cfg.K) > detail::kMaxElements)
    return Status::error(StatusCode::bad_size, "the staging buffer would hold " + std::to_string(peak) +
                                                   " rows, above the kernels' limit of " +
                                                   std::to_string(detail::kMaxDim));
  // The tail is read in place when its rows are consecutive (from an offset pointer), else gathered.
  bool tail_in_place = true;
  for (std::int64_t r = head + 1; r < reducible; ++r)
    tail_in_place = tail_in_place && run[static_cast<std::size_t>(r)].src == run[static_cast<std::size_t>(r - 1)].src + 1;
  const std::int64_t index_entries = head + (tail_in_place ? 0 : reducible - head);
  if (Status st = reserve_staging(s, peak); !st.ok()) return st;
  if (Status st = reserve_index(s, index_entries); !st.ok()) return st;

  // From here on the work is queued; a failure breaks the session.
  s.broken = true;
  std::vector<int> src, dst;
  std::map<std::int64_t, int> slot_of;  // place -> slot of the rows copied now
  for (const auto& [row, place] : copies) {
    const int slot = *s.free_slots.begin();
    s.free_slots.erase(s.free_slots.begin());
    src.push_back(row);
    dst.push_back(slot);
    slot_of[place] = slot;
  }
  if (Status st = copy_rows(s, x, g, src, dst); !st.ok()) return st;
  if (head > 0) {
    std::vector<int> slots;
    for (std::int64_t r = 0; r < head; ++r) {
      const Item& item = run[static_cast<std::size_t>(r)];
      slots.push_back(item.staged ? item.src : slot_of.at(item.place));
    }
    if (Status st = launch(s, s.sx, s.sg, &slots, 0, head); !st.ok()) return st;
  }
  if (reducible > head) {
    const int first = run[static_cast<std::size_t>(head)].src;
    if (tail_in_place) {
      const char* xs = static_cast<const char*>(x) + first * s.cfg.K * s.es;
      const char* gs = static_cast<const char*>(g) + first * s.cfg.N * s.es;
      if (Status st = launch(s, xs, gs, nullptr, 0, reducible - head); !st.ok()) return st;
    } else {
      std::vector<int> tail;
      for (std::int64_t r = head; r < reducible; ++r) tail.push_back(run[static_cast<std::size_t>(r)].src);
      if (Status st = launch(s, x, g, &tail, head, reducible - head); !st.ok()) return st;
    }
  }
  // The reduced rows leave the staging; the copied rows not reduced enter it.
  for (std::int64_t r = 0; r < head; ++r) {
    const Item& item = run[static_cast<std::size_t>(r)];
    if (item.staged) {
      s.staged.erase(item.place);
      s.free_slots.insert(item.src);
    } else {
      s.free_slots.insert(slot_of.at(item.place));
      slot_of.erase(item.place);
    }
  }
  for (const auto& [place, slot] : slot_of) s.staged.emplace(place, slot);
  s.reduced += reducible;
  s.broken = false;
  return Status::success();
}

std::string key_text(const std::int64_t* key, std::int64_t width) { return describe_key(key, width); }

}  // namespace

BackwardWeightSession::BackwardWeightSession(std::unique_ptr<BackwardWeightSessionState> state)
    : s_(std::move(state)) {}

BackwardWeightSession::~BackwardWeightSession() {
  if (!s_) return;
  release(s_->stream, s_->sx);
  release(s_->stream, s_->sg);
  release(s_->stream, s_->idx);
}

Status BackwardWeightSession::create(BackwardWeightSessionConfig config, std::unique_ptr<BackwardWeightSession>* out) {
  out->reset();
  const detail::BackwardWeightEntry* entry = nullptr;
  for (const auto& e : detail::backward_weight_entries())
    if (e.variant.id == config.variant_id) entry = &e;
  if (!entry || entry->variant.is_mutant || entry->order != detail::TokenOrder::canonical) {
    std::string known;
    for (const auto& e : detail::backward_weight_entries())
      if (!e.variant.is_mutant && e.order == detail::TokenOrder::canonical)
        known += (known.empty() ? "" : ", ") + e.variant.id;
    return Status::error(StatusCode::unknown_variant, "no canonical-order dW variant with id \"" + config.variant_id +
                                                          "\" for a session (registered: " + known + ")");
  }
  // dW, db, N, K and the device, as backward_weight checks them for a call with no token.
  const DType od = entry->variant.operand_dtype;
  BackwardWeightArgs a;
  a.x = {nullptr, od, 0, config.K};
  a.g = {nullptr, od, 0, config.N};
  a.dw = config.dw;
  a.db = config.db;
  a.stream = config.stream;
  detail::BackwardWeightLaunch p;
  std::vector<int> order;
  bool in_place = true;
  if (Status st = detail::validate_backward_weight(*entry, a, &p, &order, &in_place); !st.ok()) return st;
  if (config.expected_keys) {
    const LogicalKeys& keys = *config.expected_keys;
    if (keys.width != 2 && keys.width != 3)
      return Status::error(StatusCode::bad_keys,
                           "expected keys need 2 or 3 columns, got " + std::to_string(keys.width));
    if (keys.values.size() % static_cast<std::size_t>(keys.width) != 0)
      return Status::error(StatusCode::bad_keys, "expected keys are not a whole number of rows");
    const LogicalKeysView v = keys.view();
    for (std::int64_t k = 0; k < v.rows; ++k) {
      if (v.is_padding(k))
        return Status::error(StatusCode::bad_keys, "expected key " + std::to_string(k) + " " +
                                                       key_text(v.row(k), v.width) + " is a padding key");
      if (k == 0) continue;
      const int c = compare_keys(v.row(k - 1), v.row(k), v.width);
      if (c == 0)
        return Status::error(StatusCode::duplicate_key, "expected keys " + std::to_string(k - 1) + " and " +
                                                            std::to_string(k) + " are both " +
                                                            key_text(v.row(k), v.width));
      if (c > 0)
        return Status::error(StatusCode::bad_keys, "expected keys must be in canonical (ascending) order; key " +
                                                       std::to_string(k) + " " + key_text(v.row(k), v.width) +
                                                       " is before " + key_text(v.row(k - 1), v.width));
    }
  }
  auto s = std::make_unique<BackwardWeightSessionState>();
  s->entry = entry;
  s->stream = static_cast<cudaStream_t>(config.stream);
  s->es = static_cast<std::int64_t>(dtype_size(od));
  s->unit = od == DType::bf16 ? 16 : 1;
  s->cfg = std::move(config);
  out->reset(new BackwardWeightSession(std::move(s)));
  return Status::success();
}

Status BackwardWeightSession::submit(const TensorRef& x, const TensorRef& g, const TensorRef& keys) {
  State& s = *s_;
  if (s.broken) return Status::error(StatusCode::tool_error, "the session is broken by an earlier CUDA failure");
  if (s.finished) return Status::error(StatusCode::tool_error, "the session has finished");
  BackwardWeightArgs a;
  a.x = x;
  a.g = g;
  a.keys = keys;
  a.dw = s.cfg.dw;
  a.db = s.cfg.db;
  a.accumulate = true;
  a.stream = s.cfg.stream;
  detail::BackwardWeightLaunch p;
  std::vector<int> order;
  bool in_place = true;
  if (Status st = detail::validate_backward_weight(*s.entry, a, &p, &order, &in_place); !st.ok()) return st;

  const bool has_keys = keys.data != nullptr || keys.rows != 0 || keys.cols != 0;
  const std::int64_t T = x.rows, width = has_keys ? keys.cols : 0;
  std::vector<std::int64_t> host_keys(static_cast<std::size_t>(T * width));
  if (!host_keys.empty()) {
    cudaError_t e = cudaMemcpyAsync(host_keys.data(), keys.data, host_keys.size() * sizeof(std::int64_t),
                                    cudaMemcpyDeviceToHost, s.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s.stream);
    if (e != cudaSuccess) return cuda_failed("reading the keys back", e);
  }
  const auto key_of = [&](int row) { return host_keys.data() + static_cast<std::int64_t>(row) * width; };

  std::vector<std::int64_t> places;
  places.reserve(order.size());
  if (s.cfg.expected_keys) {
    const std::int64_t ew = s.cfg.expected_keys->width;
    if (!has_keys)
      return Status::error(StatusCode::bad_keys, "the session orders rows by their keys; the microbatch has none");
    if (width != ew)
      return Status::error(StatusCode::bad_keys, "the microbatch's keys have " + std::to_string(width) +
                                                     " columns, the session's " + std::to_string(ew));
    for (const int t : order) {
      const std::int64_t* key = key_of(t);
      std::int64_t lo = 0, hi = s.expected_count();
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (compare_keys(s.expected_key(mid), key, ew) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo == s.expected_count() || compare_keys(s.expected_key(lo), key, ew) != 0)
        return Status::error(StatusCode::unexpected_key, "row " + std::to_string(t) + " has the key " +
                                                             key_text(key, ew) + ", which the session does not expect");
      if (lo < s.reduced || s.staged.count(lo) != 0)
        return Status::error(StatusCode::duplicate_key,
                             "row " + std::to_string(t) + ": the key " + key_text(key, ew) + " already arrived");
      places.push_back(lo);
    }
  } else {
    if (s.keyed && *s.keyed != has_keys)
      return Status::error(StatusCode::bad_keys, has_keys ? "the session's earlier microbatches had no keys"
                                                          : "the session's earlier microbatches had keys");
    if (has_keys && !s.last_key.empty() && static_cast<std::size_t>(width) != s.last_key.size())
      return Status::error(StatusCode::bad_keys, "the microbatch's keys have " + std::to_string(width) +
                                                     " columns, the session's " + std::to_string(s.last_key.size()));
    if (has_keys && !order.empty() && !s.last_key.empty()) {
      const std::int64_t* first = key_of(order.front());
      const int c = compare_keys(first, s.last_key.data(), width);
      const std::string what = "row " + std::to_string(order.front()) + " has the key " + key_text(first, width) +
                               ", the session last consumed " + key_text(s.last_key.data(), width);
      if (c == 0) return Status::error(StatusCode::duplicate_key, what);
      if (c < 0)
        return Status::error(StatusCode::key_out_of_order,
                             what + ": an in-order session cannot reorder; give the session its expected keys to "
                                    "accept microbatches in any order");
    }
    for (std::size_t r = 0; r < order.size(); ++r) places.push_back(s.consumed + static_cast<std::int64_t>(r));
  }

  const void* xd = s.es == 2 ? static_cast<const void*>(p.x_bf16) : static_cast<const void*>(p.x);
  const void* gd = s.es == 2 ? static_cast<const void*>(p.g_bf16) : static_cast<const void*>(p.g);
  if (Status st = absorb(s, xd, gd, places, order); !st.ok()) return st;
  if (!s.cfg.expected_keys) {
    s.keyed = has_keys;
    s.consumed += static_cast<std::int64_t>(order.size());
    if (has_keys && !order.empty()) {
      const std::int64_t* last = key_of(order.back());
      s.last_key.assign(last, last + width);
    }
  }
  return Status::success();
}

Status BackwardWeightSession::finish() {
  State& s = *s_;
  if (s.broken) return Status::error(StatusCode::tool_error, "the session is broken by an earlier CUDA failure");
  if (s.finished) return Status::error(StatusCode::tool_error, "the session has finished");
  if (s.cfg.expected_keys) {
    const std::int64_t arrived = s.reduced + static_cast<std::int64_t>(s.staged.size());
    if (arrived < s.expected_count()) {
      std::int64_t first_missing = s.reduced;
      for (auto it = s.staged.begin(); it != s.staged.end() && it->first == first_missing; ++it) ++first_missing;
      return Status::error(StatusCode::missing_keys,
                           std::to_string(s.expected_count() - arrived) + " of " +
                               std::to_string(s.expected_count()) + " expected keys have not arrived (" +
                               std::to_string(s.staged.size()) + " rows are staged); the first missing is " +
                               key_text(s.expected_key(first_missing), s.cfg.expected_keys->width));
    }
  }
  // Every staged row is now consecutive from the first unreduced place: one last launch.
  std::vector<int> slots;
  for (const auto& [place, slot] : s.staged) slots.push_back(slot);
  const auto R = static_cast<std::int64_t>(slots.size());
  if (Status st = reserve_index(s, R); !st.ok()) return st;
  if (R > 0 || (!s.started && !s.cfg.accumulate)) {
    s.broken = true;
    if (Status st = launch(s, s.sx, s.sg, R > 0 ? &slots : nullptr, 0, R); !st.ok()) return st;
    s.broken = false;
  }
  for (const int slot : slots) s.free_slots.insert(slot);
  s.staged.clear();
  s.reduced += R;
  s.finished = true;
  return Status::success();
}

std::int64_t BackwardWeightSession::reduced_tokens() const { return s_->reduced; }
std::int64_t BackwardWeightSession::staged_tokens() const { return static_cast<std::int64_t>(s_->staged.size()); }
std::int64_t BackwardWeightSession::staging_capacity() const { return s_->capacity; }

}  // namespace ordo::kernels
