#include "properties/case_coverage.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "properties/case_ladders.h"
#include "properties/value_families.h"
#include "protocol/npy.h"

namespace ordo::properties {
namespace {

std::int64_t file_bytes(const std::string& path) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<std::int64_t>(size);
}

std::string megabytes(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

// "name a + b, name a + b, ..." wrapped into lines of about 100 columns, each indented by `indent`.
std::string family_counts(const CasesCoverage& c, const std::string& indent) {
  std::string text, line = indent;
  for (const ValueFamily f : all_families()) {
    const std::string name(family_name(f));
    const auto count = [&name](const std::map<std::string, std::int64_t>& by) {
      const auto it = by.find(name);
      return it == by.end() ? std::int64_t{0} : it->second;
    };
    const std::string item = name + " " + std::to_string(count(c.random_cases_by_family)) + " + " +
                             std::to_string(count(c.group_cases_by_family));
    if (line.size() > indent.size() && line.size() + item.size() + 2 > 100) {
      text += line + ",\n";
      line = indent;
    }
    line += (line.size() > indent.size() ? ", " : "") + item;
  }
  return text + line + "\n";
}

}  // namespace

CasesCoverage cases_coverage(const protocol::CasesManifest& m, const std::string& folder) {
  CasesCoverage c;
  std::set<std::string> inputs{"manifest.json"};
  std::set<std::int64_t> groups;
  for (const protocol::CaseEntry& e : m.cases) {
    const bool first = c.cases++ == 0;
    c.output_elements += e.M * e.N;
    ++(e.group < 0 ? c.random_cases_by_family : c.group_cases_by_family)[e.family];
    if (e.group >= 0) groups.insert(e.group);
    c.k_min = first ? e.K : std::min(c.k_min, e.K);
    c.k_max = std::max(c.k_max, e.K);
    c.n_min = first ? e.N : std::min(c.n_min, e.N);
    c.n_max = std::max(c.n_max, e.N);
    if (e.K >= kLongK) ++c.cases_k_at_least_long;
    if (e.K > kLongK) {
      ++c.cases_k_above_long;
      c.ks_above_long.insert(e.K);
    }
    if (e.purpose == "batch") c.largest_batch = std::max(c.largest_batch, e.M);
    for (const std::string* path : {&e.x, &e.w, &e.b})
      if (!path->empty()) inputs.insert(*path);
    const protocol::NpyDtype y_dtype = e.y_dtype == "bf16" ? protocol::NpyDtype::u2 : protocol::NpyDtype::f4;
    c.output_bytes += static_cast<std::int64_t>(
                          protocol::encode_npy_header(y_dtype, {e.M, e.N}, protocol::NpyBf16Descr::u2, e.y).size()) +
                      e.M * e.N * (e.y_dtype == "bf16" ? 2 : 4);
  }
  c.groups = static_cast<std::int64_t>(groups.size());
  for (const std::string& path : inputs) c.input_bytes += file_bytes(folder + "/" + path);
  for (const std::int64_t at : kRowSwitches) c.anchor_relations_at_or_past[at] = 0;
  for (const protocol::Relation& r : m.relations) {
    ++c.relations_by_kind[r.kind];
    if (r.kind == "batch_size") {
      for (const std::int64_t row : r.subject.rows) {
        c.largest_anchor_row = std::max(c.largest_anchor_row, row);
        for (auto& [at, count] : c.anchor_relations_at_or_past)
          if (row >= at) ++count;
      }
    } else if (r.kind == "column_shard" && r.cols > c.widest_shard) {
      c.widest_shard = r.cols;
      const protocol::CaseEntry* whole = m.find(r.reference.case_id);
      c.widest_sharded_n = whole ? whole->N : 0;
    }
  }
  return c;
}

std::string describe_coverage(const CasesCoverage& c, double seconds) {
  std::string text = "  cases per value family (random + in invariance groups):\n" + family_counts(c, "    ");
  char buf[512];
  std::string long_ks;
  std::size_t listed = 0;
  for (const std::int64_t k : c.ks_above_long)
    if (++listed <= 10) long_ks += (long_ks.empty() ? "" : ", ") + std::to_string(k);
  if (listed > 10) long_ks += ", ...";
  std::snprintf(buf, sizeof buf, "  K: %lld .. %lld; %lld cases with K >= %lld, %lld with K > %lld%s%s%s\n",
                static_cast<long long>(c.k_min), static_cast<long long>(c.k_max),
                static_cast<long long>(c.cases_k_at_least_long), static_cast<long long>(kLongK),
                static_cast<long long>(c.cases_k_above_long), static_cast<long long>(kLongK),
                long_ks.empty() ? "" : " (K = ", long_ks.c_str(), long_ks.empty() ? "" : ")");
  text += buf;
  std::string past;
  for (const auto& [at, count] : c.anchor_relations_at_or_past)
    past += past.empty() ? "; at rows >= " + std::to_string(at) + " in " + std::to_string(count) + " relations"
                         : ", >= " + std::to_string(at) + " in " + std::to_string(count);
  std::snprintf(buf, sizeof buf,
                "  batches: %lld invariance groups, the largest batch %lld rows\n  anchor rows: up to %lld%s\n",
                static_cast<long long>(c.groups), static_cast<long long>(c.largest_batch),
                static_cast<long long>(c.largest_anchor_row), past.c_str());
  text += buf;
  std::snprintf(buf, sizeof buf, "  N: %lld .. %lld; the widest column shard %lld of %lld columns\n",
                static_cast<long long>(c.n_min), static_cast<long long>(c.n_max),
                static_cast<long long>(c.widest_shard), static_cast<long long>(c.widest_sharded_n));
  text += buf;
  std::string kinds;
  for (const char* kind : {"batch_size", "permutation", "column_shard"}) {
    const auto it = c.relations_by_kind.find(kind);
    kinds +=
        (kinds.empty() ? "" : ", ") + std::to_string(it == c.relations_by_kind.end() ? 0 : it->second) + " " + kind;
  }
  text += "  relations: " + kinds + "\n";
  std::snprintf(buf, sizeof buf, "  written: %s of inputs in %.1f s; the outputs will take %s more\n",
                megabytes(c.input_bytes).c_str(), seconds, megabytes(c.output_bytes).c_str());
  return text + buf;
}

}  // namespace ordo::properties
