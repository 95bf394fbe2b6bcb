// A stand-in for a user's program over an `ordo cases` folder: it writes every case's y.npy with the plan
// emulator of the manifest's contract, so `ordo check` must pass it. With one --switch option it reduces in
// another order (K reversed) at one size only, the way real kernels change tile, split or tier there:
//   --switch-k-at K      cases with K >= K (split-K above a K threshold);
//   --switch-row-at R    rows at index >= R of every case (a different tile past row R of a batch);
//   --switch-batch-at M  cases with M >= M rows (another tier for large batches).
// Such a program is still within the contract's error bound; only a bitwise check at that size can see it.
// Exit 0 when every output is written, 2 on bad usage or input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "core/contract.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "protocol/case_folder.h"
#include "protocol/cases_manifest.h"
#include "protocol/npy.h"

namespace {

using ordo::ForwardProblem;

struct Switch {
  std::optional<std::int64_t> k_at, row_at, batch_at;
};

// Rows [first, M) of a problem, with every X row and every W row reversed: the same terms summed in the
// opposite order.
ForwardProblem reversed_rows_from(const ForwardProblem& p, std::int64_t first) {
  ForwardProblem q = p;
  q.M = p.M - first;
  q.x.assign(p.x.begin() + first * p.K, p.x.end());
  for (std::int64_t r = 0; r < q.M; ++r) std::reverse(q.x.begin() + r * p.K, q.x.begin() + (r + 1) * p.K);
  for (std::int64_t r = 0; r < q.N; ++r) std::reverse(q.w.begin() + r * p.K, q.w.begin() + (r + 1) * p.K);
  return q;
}

// The first row this program reduces in the other order (M: none).
std::int64_t first_switched_row(const ForwardProblem& p, const Switch& s) {
  if (s.k_at && p.K >= *s.k_at) return 0;
  if (s.batch_at && p.M >= *s.batch_at) return 0;
  if (s.row_at) return std::min(p.M, *s.row_at);
  return p.M;
}

std::vector<float> outputs(const ordo::ReductionPlan& plan, const ForwardProblem& p, const Switch& s) {
  const std::int64_t first = first_switched_row(p, s);
  if (first == 0) return ordo::oracle::emulate_dot(plan, reversed_rows_from(p, 0));
  std::vector<float> y = ordo::oracle::emulate_dot(plan, p);
  if (first < p.M) {
    const std::vector<float> tail = ordo::oracle::emulate_dot(plan, reversed_rows_from(p, first));
    std::copy(tail.begin(), tail.end(), y.begin() + first * p.N);
  }
  return y;
}

void write_output(const std::string& path, const ordo::protocol::CaseEntry& c, const std::vector<float>& y, bool bf16) {
  using ordo::protocol::NpyDtype;
  if (!bf16) {
    ordo::protocol::write_npy(path, NpyDtype::f4, {c.M, c.N}, y.data(), y.size() * sizeof(float));
    return;
  }
  std::vector<std::uint16_t> bits(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) bits[i] = static_cast<std::uint16_t>(ordo::bits_of(y[i]) >> 16);
  ordo::protocol::write_npy(path, NpyDtype::u2, {c.M, c.N}, bits.data(), bits.size() * sizeof(std::uint16_t));
}

ordo::Contract manifest_contract(const ordo::protocol::CasesManifest& m, const std::string& folder) {
  if (m.contract == "none") throw std::invalid_argument(folder + ": the cases name no contract to emulate");
  if (m.contract_definition) return ordo::contract_from_json(*m.contract_definition, folder + "/manifest.json");
  return ordo::resolve_contract(m.contract);
}

int usage() {
  std::fprintf(stderr,
               "usage: ordo_test_write_outputs FOLDER [--switch-k-at K | --switch-row-at R | --switch-batch-at M]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  const std::string folder = argv[1];
  Switch s;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) return usage();
    const std::string option = argv[i];
    const std::int64_t at = std::strtoll(argv[i + 1], nullptr, 10);
    if (at < 1) return usage();
    if (option == "--switch-k-at") {
      s.k_at = at;
    } else if (option == "--switch-row-at") {
      s.row_at = at;
    } else if (option == "--switch-batch-at") {
      s.batch_at = at;
    } else {
      return usage();
    }
  }
  try {
    ordo::protocol::CaseFolder cases(folder, ordo::protocol::read_manifest(folder));
    const ordo::Contract contract = manifest_contract(cases.manifest(), folder);
    for (const ordo::protocol::CaseEntry& c : cases.manifest().cases) {
      ForwardProblem p = cases.inputs(c);
      p.bf16_output = c.y_dtype == "bf16";
      write_output(folder + "/" + c.y, c, outputs(contract.plan, p, s), p.bf16_output);
    }
    std::printf("ordo_test_write_outputs: %zu outputs written under %s\n", cases.manifest().cases.size(),
                folder.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ordo_test_write_outputs: %s\n", e.what());
    return 2;
  }
}
