#include "properties/case_generation.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "properties/forward_case.h"
#include "protocol/npy.h"

namespace ordo::properties {
namespace {

using protocol::CaseEntry;
using protocol::CasesManifest;
using protocol::NpyDtype;
using protocol::Relation;

std::string case_id(std::size_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "c%04zu", i);
  return buf;
}

// Batch sizes of an invariance group: the small sizes where a kernel's tile choice or split heuristics
// usually switch, then powers of two (and one beyond each) up to the limit.
std::vector<std::int64_t> batch_ladder(int level, std::int64_t max_batch) {
  std::vector<std::int64_t> all{2, 3, 7, 8, 16, 17, 31, 64, 65, 127, 128, 129, 256, 257, 512, 1000, 1024, 2048, 4096, 8192};
  if (level < 2) all = {2, 3, 8, 17, 64, 128, 129, 256, 1024, 4096};
  std::vector<std::int64_t> out;
  for (std::int64_t s : all)
    if (s <= max_batch) out.push_back(s);
  if (out.empty() || out.back() != max_batch) out.push_back(max_batch);
  return out;
}

class Writer {
 public:
  Writer(std::string folder, DType operands) : folder_(std::move(folder)), operands_(operands) {}
  // Writes an operand [rows, cols] (bf16: the raw bits as '<u2').
  void operand(const std::string& rel, const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
    make_parent(rel);
    if (operands_ == DType::bf16) {
      std::vector<std::uint16_t> bits(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) bits[i] = static_cast<std::uint16_t>(bits_of(v[i]) >> 16);
      protocol::write_npy(folder_ + "/" + rel, NpyDtype::u2, {rows, cols}, bits.data(), bits.size() * 2);
    } else {
      protocol::write_npy(folder_ + "/" + rel, NpyDtype::f4, {rows, cols}, v.data(), v.size() * 4);
    }
  }
  void bias(const std::string& rel, const std::vector<float>& b) {
    make_parent(rel);
    protocol::write_npy(folder_ + "/" + rel, NpyDtype::f4, {static_cast<std::int64_t>(b.size())}, b.data(), b.size() * 4);
  }

 private:
  void make_parent(const std::string& rel) {
    std::filesystem::create_directories(std::filesystem::path(folder_ + "/" + rel).parent_path());
  }
  std::string folder_;
  DType operands_;
};

struct Generator {
  const CasesOptions& o;
  Writer& out;
  CasesManifest& m;
  bool bf16_operands;
  bool bf16_allowed;

  CaseEntry& add(std::int64_t M, std::int64_t N, std::int64_t K, bool bias, const std::string& family,
                 const std::string& purpose, std::int64_t group, bool bf16_y) {
    CaseEntry e;
    e.id = case_id(m.cases.size());
    e.M = M;
    e.N = N;
    e.K = K;
    e.bias = bias;
    e.family = family;
    e.purpose = purpose;
    e.group = group;
    e.y_dtype = bf16_y ? "bf16" : "f32";
    e.x = e.id + "/x.npy";
    e.w = e.id + "/w.npy";
    e.b = bias ? e.id + "/b.npy" : "";
    e.y = e.id + "/y.npy";
    m.cases.push_back(std::move(e));
    return m.cases.back();
  }

  bool y_bf16(std::size_t index) const {
    if (o.y_dtype == "bf16") return true;
    if (o.y_dtype == "f32") return false;
    return bf16_allowed && index % 2 == 1;
  }

  ForwardCase base_case(std::int64_t M, std::int64_t N, std::int64_t K, ValueFamily f, bool bias, std::uint64_t seed) const {
    ForwardCase c;
    c.M = M;
    c.N = N;
    c.K = K;
    c.family = f;
    c.has_bias = bias;
    c.seed = seed;
    c.bf16_operands = bf16_operands;
    return c;
  }

  void random_cases() {
    // Every value family, twice at level 1 (ten times at level 2), at shapes biased to the tile edges.
    const int per_family = o.level >= 2 ? 10 : 2;
    const ShapeLimits limits = o.level >= 2 ? ShapeLimits{.max_m = 1024, .max_n = 1024, .max_k = 6000, .max_volume = std::int64_t{1} << 25}
                                            : ShapeLimits{.max_m = 256, .max_n = 256, .max_k = 1100, .max_volume = std::int64_t{1} << 22};
    const auto gen = gen_forward_case(limits, all_families());
    rc::Random root(o.seed ^ 0x63617365ull);
    std::size_t index = 0;
    for (int round = 0; round < per_family; ++round)
      for (const ValueFamily f : all_families()) {
        ForwardCase c = gen(root.split(), rc::kNominalSize).value();
        c.family = f;
        c.has_bias = c.has_bias && o.bias;
        c.bf16_operands = bf16_operands;
        const ForwardProblem p = c.materialize();
        CaseEntry& e = add(p.M, p.N, p.K, p.bias.has_value(), std::string(family_name(f)), "random", -1, y_bf16(index++));
        out.operand(e.x, p.x, p.M, p.K);
        out.operand(e.w, p.w, p.N, p.K);
        if (p.bias) out.bias(e.b, *p.bias);
      }
  }

  // One invariance group: a row alone, the same row in batches of every ladder size (first, last or at a
  // random position), a batch and its row permutation, a whole batch and a column shard of it.
  void group(std::int64_t g, std::int64_t N, std::int64_t K, std::int64_t max_batch, ValueFamily f, std::uint64_t seed) {
    const std::string family(family_name(f));
    const bool bias = o.bias && g % 2 == 0;
    const ForwardProblem anchor = base_case(1, N, K, f, bias, seed).materialize();
    const std::string shared = "g" + std::to_string(g);
    CaseEntry& a = add(1, N, K, bias, family, "anchor", g, o.y_dtype == "bf16");
    a.w = shared + "/w.npy";
    a.b = bias ? shared + "/b.npy" : "";
    out.operand(a.x, anchor.x, 1, K);
    out.operand(a.w, anchor.w, N, K);
    if (bias) out.bias(a.b, *anchor.bias);
    const std::string anchor_id = a.id;
    Rng rng(seed ^ 0x62617463ull);
    const char* positions[] = {"first", "last", "random"};
    std::string permutable;  // the largest batch of at most 256 rows: permuted and sharded below
    std::int64_t permutable_rows = 0;
    std::vector<float> permutable_x;
    const std::vector<std::int64_t> ladder = batch_ladder(o.level, max_batch);
    for (std::size_t i = 0; i < ladder.size(); ++i) {
      const std::int64_t s = ladder[i];
      ForwardProblem batch = base_case(s, N, K, f, bias, seed + 1 + i).materialize();
      const std::string where = positions[i % 3];
      const std::int64_t pos = where == std::string("first") ? 0 : where == std::string("last") ? s - 1 : static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(s));
      std::copy(anchor.x.begin(), anchor.x.end(), batch.x.begin() + pos * K);
      CaseEntry& e = add(s, N, K, bias, family, "batch", g, o.y_dtype == "bf16");
      e.w = shared + "/w.npy";
      e.b = bias ? shared + "/b.npy" : "";
      out.operand(e.x, batch.x, s, K);
      m.relations.push_back(Relation{"batch_size",
                                     "row alone == the same row in a batch of " + std::to_string(s) + " rows (" + where + ", row " +
                                         std::to_string(pos) + ")",
                                     N, {anchor_id, {0}, 0}, {e.id, {pos}, 0}});
      if (s <= 256) {
        permutable = e.id;
        permutable_rows = s;
        permutable_x = batch.x;
      }
    }
    if (!permutable.empty()) {
      // The permuted batch: row i of it is row perm[i] of the original.
      const CaseEntry* base = m.find(permutable);
      std::vector<std::int64_t> perm(static_cast<std::size_t>(permutable_rows));
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.next() % (i + 1)]);
      std::vector<float> px(permutable_x.size());
      for (std::int64_t i = 0; i < permutable_rows; ++i) {
        const std::int64_t from = perm[static_cast<std::size_t>(i)];
        std::copy(permutable_x.begin() + from * K, permutable_x.begin() + (from + 1) * K, px.begin() + i * K);
      }
      const std::string base_id = base->id;
      CaseEntry& e = add(permutable_rows, N, K, bias, family, "permuted", g, o.y_dtype == "bf16");
      e.w = shared + "/w.npy";
      e.b = bias ? shared + "/b.npy" : "";
      out.operand(e.x, px, permutable_rows, K);
      std::vector<std::int64_t> identity(perm.size());
      std::iota(identity.begin(), identity.end(), 0);
      m.relations.push_back(Relation{"permutation", "the rows of a batch of " + std::to_string(permutable_rows) + " permuted",
                                     N, {base_id, perm, 0}, {e.id, identity, 0}});
      if (N >= 2) {
        // A contiguous output shard (a tensor-parallel slice of W's rows) of the same batch.
        const std::int64_t n0 = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(N - 1));
        const std::int64_t n1 = n0 + 1 + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(N - n0));
        CaseEntry& s = add(permutable_rows, n1 - n0, K, bias, family, "shard", g, o.y_dtype == "bf16");
        s.x = m.find(base_id)->x;
        std::vector<float> w(anchor.w.begin() + n0 * K, anchor.w.begin() + n1 * K);
        out.operand(s.w, w, n1 - n0, K);
        if (bias) out.bias(s.b, std::vector<float>(anchor.bias->begin() + n0, anchor.bias->begin() + n1));
        m.relations.push_back(Relation{"column_shard",
                                       "output columns [" + std::to_string(n0) + ", " + std::to_string(n1) + ") as a shard of W",
                                       n1 - n0, {base_id, identity, n0}, {s.id, identity, 0}});
      }
    }
  }
};

}  // namespace

protocol::CasesManifest generate_cases(const CasesOptions& o, const std::string& folder) {
  if (o.y_dtype != "auto" && o.y_dtype != "f32" && o.y_dtype != "bf16")
    throw std::invalid_argument("--y-dtype must be auto, f32 or bf16, got \"" + o.y_dtype + "\"");
  if (o.contract && o.contract->kind != ContractKind::forward)
    throw std::invalid_argument("ordo cases writes forward cases; " + o.contract->id + " is a " +
                                std::string(contract_kind_name(o.contract->kind)) + " contract");
  const DType operands = o.contract ? o.contract->plan.operand_dtype : o.operands;
  const bool bf16_allowed = o.contract ? o.contract->plan.allows_output(DType::bf16) : true;
  if (o.y_dtype == "bf16" && !bf16_allowed) throw std::invalid_argument("contract " + o.contract->id + " has no bf16 output");
  if (o.contract && o.y_dtype == "f32" && !o.contract->plan.allows_output(DType::f32))
    throw std::invalid_argument("contract " + o.contract->id + " has no f32 output");
  if (o.max_batch < 2 || o.max_batch > (1 << 20)) throw std::invalid_argument("--max-batch must be in [2, 2^20]");
  std::filesystem::create_directories(folder);
  CasesManifest m;
  m.contract = o.contract ? o.contract->id : "none";
  if (o.contract) m.contract_definition = nlohmann::json::parse(contract_to_json(*o.contract).dump());
  m.operands = operands == DType::bf16 ? "bf16" : "f32";
  m.seed = o.seed;
  m.level = o.level;
  m.generated_by = o.generated_by;
  Writer out(folder, operands);
  Generator gen{o, out, m, operands == DType::bf16, bf16_allowed && (!o.contract || o.contract->plan.allows_output(DType::bf16))};
  if (o.shapes.empty()) gen.random_cases();
  // Invariance groups at the requested shapes, or at a few generated ones.
  std::vector<ShapeRequest> shapes = o.shapes;
  if (shapes.empty()) {
    shapes = {{o.max_batch, 96, 129}, {o.max_batch, 33, 1024}, {o.max_batch, 130, 17}};
    if (o.level >= 2) shapes.push_back({o.max_batch, 1024, 2048});
  }
  const ValueFamily families[] = {ValueFamily::order_2m24, ValueFamily::wide_exponent, ValueFamily::ties,
                                  ValueFamily::cancellation, ValueFamily::uniform, ValueFamily::testfloat};
  for (std::size_t g = 0; g < shapes.size(); ++g) {
    const ShapeRequest& s = shapes[g];
    if (s.N < 1 || s.K < 1 || s.M < 2) throw std::invalid_argument("--shape needs M >= 2, N >= 1, K >= 1");
    gen.group(static_cast<std::int64_t>(g), s.N, s.K, std::min(o.max_batch, s.M), families[g % std::size(families)],
              o.seed * 1000003 + g);
  }
  protocol::write_manifest(folder, m);
  return m;
}


}  // namespace ordo::properties
