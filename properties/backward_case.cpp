#include "properties/backward_case.h"

#include <algorithm>
#include <stdexcept>

#include "core/float_bits.h"
#include "oracle/tc_fdpa_model.h"

namespace ordo::properties {

std::vector<float> transpose(const std::vector<float>& a, std::int64_t rows, std::int64_t cols) {
  std::vector<float> t(a.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      t[static_cast<std::size_t>(c * rows + r)] = a[static_cast<std::size_t>(r * cols + c)];
  return t;
}

BackwardDataProblem data_problem(const ForwardCase& c) {
  const ForwardProblem f = c.materialize();
  BackwardDataProblem p;
  p.M = f.M;
  p.N = f.K;
  p.K = f.N;
  p.g = f.x;                       // [M, N]
  p.w = transpose(f.w, f.N, f.K);  // [N, K]
  p.bf16_operands = c.bf16_operands;
  return p;
}

LogicalKeys random_keys(std::int64_t T, std::int64_t width, std::uint64_t seed, bool ascending) {
  Rng rng(seed);
  std::vector<std::int64_t> codes(static_cast<std::size_t>(4 * T));
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::int64_t>(i);
  for (std::size_t i = codes.size(); i > 1; --i) std::swap(codes[i - 1], codes[rng.next() % i]);
  codes.resize(static_cast<std::size_t>(T));
  if (ascending) std::sort(codes.begin(), codes.end());
  LogicalKeys keys{width, {}};
  for (const std::int64_t code : codes) {
    keys.values.push_back(code / 4 * 1000000007);
    keys.values.push_back(width == 2 ? code % 4 - 2 : code / 2 % 2 - 1);
    if (width == 3) keys.values.push_back(code % 2 == 0 ? -(std::int64_t{1} << 40) : 7);
  }
  return keys;
}

BackwardWeightProblem weight_problem(const ForwardCase& c, std::int64_t key_width, bool ascending_keys) {
  const ForwardProblem f = c.materialize();
  BackwardWeightProblem p;
  p.T = f.K;
  p.N = f.M;
  p.K = f.N;
  p.g = transpose(f.x, f.M, f.K);  // [T, N]
  p.x = transpose(f.w, f.N, f.K);  // [T, K]
  p.with_bias_grad = c.has_bias;
  p.bf16_operands = c.bf16_operands;
  if (key_width > 0) p.keys = random_keys(p.T, key_width, c.seed ^ 0x6b657973ull, ascending_keys);
  return p;
}

BackwardWeightProblem with_padding(const BackwardWeightProblem& p, std::int64_t count, std::uint64_t seed) {
  if (!p.keys) throw std::invalid_argument("with_padding: padding rows need keys");
  Rng rng(seed);
  BackwardWeightProblem q = p;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto at = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(q.T + 1));
    std::vector<float> x(static_cast<std::size_t>(q.K)), g(static_cast<std::size_t>(q.N));
    for (float& v : x) v = sample_value(ValueFamily::nan_inf, rng);
    if (q.bf16_operands)
      for (float& v : x) v = oracle::round_to_bf16(v);
    for (float& v : g) v = rng.coin(2) ? -0.0f : 0.0f;
    std::vector<std::int64_t> key(static_cast<std::size_t>(q.keys->width), 3);
    key[0] = -1 - static_cast<std::int64_t>(rng.next() % 5);
    q.x.insert(q.x.begin() + at * q.K, x.begin(), x.end());
    q.g.insert(q.g.begin() + at * q.N, g.begin(), g.end());
    q.keys->values.insert(q.keys->values.begin() + at * q.keys->width, key.begin(), key.end());
    ++q.T;
  }
  return q;
}

std::vector<std::int64_t> random_permutation(std::int64_t n, Rng& rng) {
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
  for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.next() % i]);
  return perm;
}

std::string describe(const BackwardWeightProblem& p) {
  std::int64_t padding = 0;
  for (std::int64_t t = 0; p.keys && t < p.T; ++t) padding += p.keys->view().is_padding(t) ? 1 : 0;
  return "dW T=" + std::to_string(p.T) + " N=" + std::to_string(p.N) + " K=" + std::to_string(p.K) +
         (p.keys ? ", keys [T," + std::to_string(p.keys->width) + "], " + std::to_string(padding) + " padding rows"
                 : ", no keys") +
         (p.with_bias_grad ? ", db" : "");
}

std::string first_difference(const std::vector<float>& a, const std::vector<float>& b, const std::string& what) {
  if (a.size() != b.size())
    return what + ": " + std::to_string(a.size()) + " values against " + std::to_string(b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits_of(a[i]) != bits_of(b[i]))
      return what + "[" + std::to_string(i) + "]: " + describe_float(a[i]) + " against " + describe_float(b[i]);
  return "";
}

std::string first_difference(const BackwardWeightResult& a, const BackwardWeightResult& b) {
  if (std::string d = first_difference(a.dw, b.dw, "dW"); !d.empty()) return d;
  if (a.db.has_value() != b.db.has_value()) return "db present in one result only";
  return a.db ? first_difference(*a.db, *b.db, "db") : "";
}

}  // namespace ordo::properties
