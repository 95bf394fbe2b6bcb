#include "properties/case_generation.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include "core/contract_file.h"
#include "properties/case_ladders.h"
#include "protocol/case_writer.h"
#include "properties/forward_case.h"

namespace ordo::properties {
namespace {
using protocol::CaseWriter;

using protocol::CaseEntry;
using protocol::CasesManifest;
using protocol::Relation;

std::string case_id(std::size_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "c%04zu", i);
  return buf;
}

struct Generator {
  const CasesOptions& o;
  CaseWriter& out;
  CasesManifest& m;
  bool bf16_operands;
  bool bf16_allowed;
  std::size_t random_index = 0;  // alternates the random cases' Y between f32 and bf16 (--y-dtype auto)

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

  // Every value family at shapes biased to the tile edges, six times at level 1 (ten at level 2).
  void edge_cases() {
    const int per_family = o.level >= 2 ? 10 : 6;
    const ShapeLimits limits = o.level >= 2 ? ShapeLimits{.max_m = 1024, .max_n = 1024, .max_k = 6000, .max_volume = std::int64_t{1} << 25}
                                            : ShapeLimits{.max_m = 256, .max_n = 256, .max_k = 1100, .max_volume = std::int64_t{1} << 22};
    const auto gen = gen_forward_case(limits, all_families());
    rc::Random root(o.seed ^ 0x63617365ull);
    for (int round = 0; round < per_family; ++round)
      for (const ValueFamily f : all_families()) {
        ForwardCase c = gen(root.split(), rc::kNominalSize).value();
        c.family = f;
        c.has_bias = c.has_bias && o.bias;
        c.bf16_operands = bf16_operands;
        random_case(c);
      }
  }

  // Every value family at long K (long_k_ladder, taken in turn), twice at level 1 (four times at level 2): a
  // few rows and columns, so that a split or schedule that turns on past kLongK is judged on every family
  // while the files stay small.
  void long_k_cases() {
    const int per_family = o.level >= 2 ? 4 : 2;
    const std::vector<std::int64_t> ks = long_k_ladder(o.level);
    Rng rng(o.seed ^ 0x6c6f6e676bull);
    std::size_t turn = 0;
    for (int round = 0; round < per_family; ++round)
      for (const ValueFamily f : all_families()) {
        const auto M = 1 + static_cast<std::int64_t>(rng.next() % 4);
        const auto N = 1 + static_cast<std::int64_t>(rng.next() % 16);
        const bool bias = o.bias && rng.coin(2);
        random_case(base_case(M, N, ks[turn++ % ks.size()], f, bias, rng.next()));
      }
  }

  void random_case(const ForwardCase& c) {
    const ForwardProblem p = c.materialize();
    CaseEntry& e = add(p.M, p.N, p.K, p.bias.has_value(), std::string(family_name(c.family)), "random", -1,
                       y_bf16(random_index++));
    out.operand(e.x, p.x, p.M, p.K);
    out.operand(e.w, p.w, p.N, p.K);
    if (p.bias) out.bias(e.b, *p.bias);
  }

  // One invariance group: a row alone (the anchor), the same row in batches of every ladder size (at one or
  // more places each), a batch and its row permutation, the batch and column shards of it. Its cases share W.
  void group(std::int64_t g, std::int64_t N, std::int64_t K, std::int64_t max_batch, ValueFamily f, std::uint64_t seed) {
    const std::string family(family_name(f));
    const bool bias = o.bias && g % 2 == 0;
    const bool bf16_y = o.y_dtype == "bf16";
    const ForwardProblem anchor = base_case(1, N, K, f, bias, seed).materialize();
    const std::string shared = "g" + std::to_string(g);
    const auto add_member = [&](std::int64_t rows, const std::string& purpose) -> CaseEntry& {
      CaseEntry& e = add(rows, N, K, bias, family, purpose, g, bf16_y);
      e.w = shared + "/w.npy";
      e.b = bias ? shared + "/b.npy" : "";
      return e;
    };
    CaseEntry& a = add_member(1, "anchor");
    out.operand(a.x, anchor.x, 1, K);
    out.operand(a.w, anchor.w, N, K);
    if (bias) out.bias(a.b, *anchor.bias);
    const std::string anchor_id = a.id;
    Rng rng(seed ^ 0x62617463ull);
    std::string permutable;  // the largest batch of at most 256 rows: permuted and sharded below
    std::int64_t permutable_rows = 0;
    std::vector<float> permutable_x;
    const std::vector<BatchRung> ladder = batch_ladder(o.level, max_batch, rng);
    for (std::size_t i = 0; i < ladder.size(); ++i) {
      const std::int64_t s = ladder[i].rows;
      ForwardProblem batch = base_case(s, N, K, f, bias, seed + 1 + i).materialize();
      for (const AnchorPlace& place : ladder[i].places)
        std::copy(anchor.x.begin(), anchor.x.end(), batch.x.begin() + place.row * K);
      CaseEntry& e = add_member(s, "batch");
      out.operand(e.x, batch.x, s, K);
      for (const AnchorPlace& place : ladder[i].places)
        m.relations.push_back(Relation{"batch_size",
                                       "row alone == the same row in a batch of " + std::to_string(s) + " rows (" +
                                           place.why + ", row " + std::to_string(place.row) + ")",
                                       N,
                                       {anchor_id, {0}, 0},
                                       {e.id, {place.row}, 0}});
      if (s <= 256) {
        permutable = e.id;
        permutable_rows = s;
        permutable_x = std::move(batch.x);
      }
    }
    if (permutable.empty()) return;
    // The permuted batch: row i of it is row perm[i] of the original.
    std::vector<std::int64_t> perm(static_cast<std::size_t>(permutable_rows));
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[rng.next() % (i + 1)]);
    std::vector<float> px(permutable_x.size());
    for (std::int64_t i = 0; i < permutable_rows; ++i) {
      const std::int64_t from = perm[static_cast<std::size_t>(i)];
      std::copy(permutable_x.begin() + from * K, permutable_x.begin() + (from + 1) * K, px.begin() + i * K);
    }
    CaseEntry& e = add_member(permutable_rows, "permuted");
    out.operand(e.x, px, permutable_rows, K);
    std::vector<std::int64_t> identity(perm.size());
    std::iota(identity.begin(), identity.end(), 0);
    m.relations.push_back(Relation{"permutation",
                                   "the rows of a batch of " + std::to_string(permutable_rows) + " permuted",
                                   N,
                                   {permutable, perm, 0},
                                   {e.id, identity, 0}});
    // Contiguous output shards (tensor-parallel slices of W's rows) of the same batch, which they share.
    const std::string batch_x = m.find(permutable)->x;
    for (const auto& [n0, n1] : shard_columns(N, rng)) {
      CaseEntry& s = add(permutable_rows, n1 - n0, K, bias, family, "shard", g, bf16_y);
      s.x = batch_x;
      out.operand(s.w, std::vector<float>(anchor.w.begin() + n0 * K, anchor.w.begin() + n1 * K), n1 - n0, K);
      if (bias) out.bias(s.b, std::vector<float>(anchor.bias->begin() + n0, anchor.bias->begin() + n1));
      m.relations.push_back(
          Relation{"column_shard",
                   "output columns [" + std::to_string(n0) + ", " + std::to_string(n1) + ") as a shard of W",
                   n1 - n0,
                   {permutable, identity, n0},
                   {s.id, identity, 0}});
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
  CaseWriter out(folder, operands);
  Generator gen{o, out, m, operands == DType::bf16, bf16_allowed && (!o.contract || o.contract->plan.allows_output(DType::bf16))};
  if (o.shapes.empty()) {
    gen.edge_cases();
    gen.long_k_cases();
  }
  // Invariance groups at the requested shapes, or at the default ones; each gets batches up to its M rows,
  // and never more than --max-batch.
  std::vector<GroupShape> shapes;
  for (const ShapeRequest& s : o.shapes) shapes.push_back({s.M, s.N, s.K});
  if (shapes.empty()) shapes = default_groups(o.level);
  const ValueFamily families[] = {ValueFamily::order_2m24, ValueFamily::wide_exponent, ValueFamily::ties,
                                  ValueFamily::cancellation, ValueFamily::uniform, ValueFamily::testfloat};
  for (std::size_t g = 0; g < shapes.size(); ++g) {
    const GroupShape& s = shapes[g];
    if (s.N < 1 || s.K < 1 || s.M < 2) throw std::invalid_argument("--shape needs M >= 2, N >= 1, K >= 1");
    gen.group(static_cast<std::int64_t>(g), s.N, s.K, std::min(o.max_batch, s.M), families[g % std::size(families)],
              o.seed * 1000003 + g);
  }
  // Every input's digest, as written: `ordo check` refuses an input changed since.
  for (protocol::CaseEntry& c : m.cases) {
    c.x_sha256 = out.digests().at(c.x);
    c.w_sha256 = out.digests().at(c.w);
    c.b_sha256 = c.bias ? out.digests().at(c.b) : "";
  }
  protocol::write_manifest(folder, m);
  return m;
}

}  // namespace ordo::properties
