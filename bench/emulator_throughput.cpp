// ordo_bench_emulator: throughput of the host emulator (oracle/plan_emulator.h) in products per second,
// for every built-in contract and any contract file, on one thread and on every core: the emulator's
// fast paths (the FMA tiles, the T-FDPA lane kernel on each ISA the CPU runs) and, for scale, the
// per-element T-FDPA path the lane kernel replaced and the plain scalar reference. A product is one
// multiply-accumulate of one output element: M * N * K per problem. Host only.
//
// The backward contracts are timed through the dot form the backward emulators hand to emulate_dot
// (oracle/backward_emulator.h): an [M, K] x [N, K] problem under the backward plan, which is what dX and
// dW cost once their operands are gathered.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <immintrin.h>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/contract.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "oracle/plan_emulator_tc.h"
#include "oracle/tc_fdpa_lanes.h"
#include "oracle/tc_fdpa_model.h"
#include "properties/value_families.h"
#include "core/large_allocations.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::int64_t M = 1024, N = 1024, K = 1024;
  std::int64_t slow_K = 256;  // the shape's K for the per-element and scalar paths (they are 10-1000x slower)
  std::vector<std::string> contract_files;
  std::vector<std::string> only_ids;  // --only: time just these contracts (all when empty)
  std::string json_path;
  bool slow = true;
};

void usage(std::FILE* to) {
  std::fputs(
      "usage: ordo_bench_emulator [--shape M,N,K] [--slow-k K] [--no-slow] [--contract FILE]... [--only ID]... [--json PATH]\n"
      "  --shape     the problem timed for every contract (default 1024,1024,1024)\n"
      "  --slow-k    K for the per-element T-FDPA path and the scalar reference (default 256)\n"
      "  --no-slow   time only the fast paths\n"
      "  --contract  also time a contract file (ordo.contract/1), e.g. contracts/fwd.f32.seg256-ascending.json\n"
      "  --only      time only this contract id (repeatable), e.g. fwd.f32.fma-chain/1\n"
      "  --json      write every number as JSON (written atomically)\n"
      "Prints products/s (M * N * K multiply-accumulates per second) per contract and path, on 1 thread and on\n"
      "every core.\n",
      to);
}

[[noreturn]] void bad_usage(const std::string& what) {
  std::fprintf(stderr, "ordo_bench_emulator: %s\n", what.c_str());
  usage(stderr);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) bad_usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(stdout);
      std::exit(0);
    } else if (a == "--shape") {
      const std::string v = value();
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(v.c_str(), "%lld,%lld,%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
          m > 65536 || n > 65536 || k > 65536)
        bad_usage("--shape " + v + ": want M,N,K, each 1..65536");
      o.M = m, o.N = n, o.K = k;
    } else if (a == "--slow-k") {
      const std::string v = value();
      char* end = nullptr;
      const long long k = std::strtoll(v.c_str(), &end, 10);
      if (*end != 0 || k < 1 || k > 65536) bad_usage("--slow-k " + v + ": want 1..65536");
      o.slow_K = k;
    } else if (a == "--no-slow") {
      o.slow = false;
    } else if (a == "--contract") {
      o.contract_files.push_back(value());
    } else if (a == "--only") {
      o.only_ids.push_back(value());
    } else if (a == "--json") {
      o.json_path = value();
    } else {
      bad_usage("unknown argument " + a);
    }
  }
  return o;
}

// A random problem of the plan's operand type: the everyday value family, bfloat16 values (the
// values rounded to nearest even) under a bf16 plan.
ordo::ForwardProblem random_problem(const ordo::ReductionPlan& plan, std::int64_t M, std::int64_t N, std::int64_t K,
                                    std::uint64_t seed) {
  ordo::properties::Rng rng(seed);
  const bool bf16 = plan.operand_dtype == ordo::DType::bf16;

  const auto value = [&] {
    const float v = ordo::properties::sample_value(ordo::properties::ValueFamily::uniform, rng);
    return bf16 ? ordo::oracle::round_to_bf16(v) : v;
  };
  ordo::ForwardProblem p;
  p.M = M, p.N = N, p.K = K;
  p.x.resize(static_cast<std::size_t>(M * K));
  p.w.resize(static_cast<std::size_t>(N * K));
  for (float& v : p.x) v = value();
  for (float& v : p.w) v = value();
  if (plan.bias != ordo::BiasPlacement::none) {
    p.bias.emplace(static_cast<std::size_t>(N));
    for (float& v : *p.bias) v = value();
  }
  return p;
}

// Seconds per call: the best of `rounds` calls after one warm-up (the minimum is the least disturbed
// estimate on a shared machine); one call when a call takes over 2 s.
double seconds_per_call(const std::function<void()>& body) {
  auto start = Clock::now();
  body();
  double best = std::chrono::duration<double>(Clock::now() - start).count();
  const int rounds = best > 2.0 ? 0 : best > 0.2 ? 3 : 7;
  for (int r = 0; r < rounds; ++r) {
    start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

volatile float g_sink;

// The host's FMA peak, measured: 12 independent vector FMA chains per thread (more than latency x
// throughput on any x86 core), no loads, for a fixed count, on `threads` threads, with the widest vectors
// the CPU has. The FP32 chain emulator does one FMA per product, so this is its ceiling.
#define ORDO_FMA_PEAK_LOOP(V, SET1, FMADD, ADD)                          \
  const V a = SET1(0.999999f), b = SET1(1e-7f);                          \
  /* distinct starts, or the compiler merges identical chains */       \
  V c0 = SET1(1.0f), c1 = SET1(2.0f), c2 = SET1(3.0f), c3 = SET1(4.0f); \
  V c4 = SET1(5.0f), c5 = SET1(6.0f), c6 = SET1(7.0f), c7 = SET1(8.0f); \
  V c8 = SET1(9.0f), c9 = SET1(10.0f), c10 = SET1(11.0f), c11 = SET1(12.0f); \
  for (std::int64_t i = 0; i < n; ++i) {                                 \
    c0 = FMADD(c0, a, b), c1 = FMADD(c1, a, b), c2 = FMADD(c2, a, b);    \
    c3 = FMADD(c3, a, b), c4 = FMADD(c4, a, b), c5 = FMADD(c5, a, b);    \
    c6 = FMADD(c6, a, b), c7 = FMADD(c7, a, b), c8 = FMADD(c8, a, b);    \
    c9 = FMADD(c9, a, b), c10 = FMADD(c10, a, b), c11 = FMADD(c11, a, b); \
  }                                                                      \
  V total = ADD(ADD(ADD(c0, c1), ADD(c2, c3)), ADD(ADD(c4, c5), ADD(c6, c7))); \
  total = ADD(total, ADD(ADD(c8, c9), ADD(c10, c11)));                   \
  std::memcpy(sink, &total, sizeof(float));                              \
  return static_cast<double>(n) * 12 * (sizeof(V) / sizeof(float));
__attribute__((target("avx512f"))) double fma_peak_avx512(std::int64_t n, float* sink) {
  ORDO_FMA_PEAK_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps)
}
__attribute__((target("avx2,fma"))) double fma_peak_avx2(std::int64_t n, float* sink) {
  ORDO_FMA_PEAK_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps)
}
#undef ORDO_FMA_PEAK_LOOP
double fma_chain_peak_one_thread(std::int64_t iterations) {
  float sink = 0;
  __builtin_cpu_init();
  double fmas = 0;
  if (__builtin_cpu_supports("avx512f")) fmas = fma_peak_avx512(iterations, &sink);
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) fmas = fma_peak_avx2(iterations, &sink);
  g_sink = sink;
  return fmas;
}

double fma_peak(unsigned threads) {
  constexpr std::int64_t kIterations = 20'000'000;
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    std::vector<std::thread> pool;
    std::vector<double> fmas(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&fmas, t] { fmas[t] = fma_chain_peak_one_thread(kIterations); });
    for (std::thread& t : pool) t.join();
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    double total = 0;
    for (double f : fmas) total += f;
    best = std::max(best, total / s);
  }
  return best;
}

struct Row {
  std::string contract, path;
  unsigned threads;
  std::int64_t M, N, K;
  double seconds;
  double products_per_second() const { return static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) / seconds; }
};

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  const Options o = parse(argc, argv);
  std::vector<ordo::Contract> contracts;
  for (const ordo::Contract* c : ordo::all_contracts()) contracts.push_back(*c);
  for (const std::string& f : o.contract_files) {
    try {
      contracts.push_back(ordo::load_contract_file(f));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ordo_bench_emulator: %s\n", e.what());
      return 2;
    }
  }
  if (!o.only_ids.empty()) {
    for (const std::string& id : o.only_ids)
      if (std::none_of(contracts.begin(), contracts.end(), [&](const ordo::Contract& c) { return c.id == id; }))
        bad_usage("--only " + id + ": no such contract (the registry's ids and the --contract files')");
    std::erase_if(contracts, [&](const ordo::Contract& c) {
      return std::find(o.only_ids.begin(), o.only_ids.end(), c.id) == o.only_ids.end();
    });
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> thread_counts{1};
  if (cores > 1) thread_counts.push_back(cores);

  std::vector<std::pair<unsigned, double>> peaks;
  for (unsigned t : thread_counts) {
    peaks.emplace_back(t, fma_peak(t));
    std::printf("FMA peak of this host (measured, %u thread%s): %.3e FMA/s\n", t, t > 1 ? "s" : "", peaks.back().second);
  }
  std::vector<Row> rows;
  std::printf("%-32s %-28s %7s %16s %18s\n", "contract", "path", "threads", "M x N x K", "products/s");
  const auto record = [&](const ordo::Contract& c, const std::string& path, unsigned threads, const ordo::ForwardProblem& p,
                          const std::function<std::vector<float>()>& run) {
    const double s = seconds_per_call([&] { g_sink = run()[0]; });
    rows.push_back({c.id, path, threads, p.M, p.N, p.K, s});
    const std::string shape = std::to_string(p.M) + "x" + std::to_string(p.N) + "x" + std::to_string(p.K);
    std::printf("%-32s %-28s %7u %16s %18.3e\n", c.id.c_str(), path.c_str(), threads, shape.c_str(),
                rows.back().products_per_second());
    std::fflush(stdout);
  };

  for (const ordo::Contract& c : contracts) {
    const ordo::ReductionPlan& plan = c.plan;
    const ordo::ForwardProblem p = random_problem(plan, o.M, o.N, o.K, 1);
    const bool tc = plan.step.kind == ordo::StepKind::tc_fdpa;
    for (unsigned t : thread_counts) {
      record(c, "emulate_dot", t, p, [&] { return ordo::oracle::emulate_dot(plan, p, t); });
      if (tc)
        for (auto isa : {ordo::oracle::TcLaneIsa::avx512, ordo::oracle::TcLaneIsa::avx2, ordo::oracle::TcLaneIsa::generic})
          if (isa != ordo::oracle::tc_lane_isa_best() && ordo::oracle::tc_lane_isa_supported(isa))
            record(c, "lanes " + std::string(ordo::oracle::tc_lane_isa_name(isa)), t, p,
                   [&] { return ordo::oracle::emulate_dot_tc_lanes(plan, p, isa, t); });
    }
    if (!o.slow) continue;
    const ordo::ForwardProblem small = random_problem(plan, std::min<std::int64_t>(o.M, 256), o.N, std::min(o.K, o.slow_K), 2);
    if (tc)
      record(c, "per-element (tc_fdpa_step)", cores, small,
             [&] { return ordo::oracle::emulate_dot_tc_per_element(plan, small, cores); });
    record(c, "scalar reference", 1, small, [&] { return ordo::oracle::reference_dot(plan, small); });
  }

  if (!o.json_path.empty()) {
    nlohmann::json out;
    out["schema"] = "ordo.bench.emulator/1";
    out["tool"] = {{"version", ordo::build_version()}, {"git_commit", ordo::build_git_commit()},
                   {"git_dirty", ordo::build_git_dirty()}};
    out["host"] = {{"cores", cores}, {"tc_lane_isa", std::string(ordo::oracle::tc_lane_isa_name(ordo::oracle::tc_lane_isa_best()))}};
    out["method"] =
        "uniform values (bfloat16 under bf16 plans), best of 3-7 calls after a warm-up; products = M * N * K";
    for (const auto& [t, peak] : peaks) out["fma_peak"].push_back({{"threads", t}, {"fma_per_second", peak}});
    for (const Row& r : rows)
      out["rows"].push_back({{"contract", r.contract}, {"path", r.path}, {"threads", r.threads}, {"M", r.M}, {"N", r.N},
                             {"K", r.K}, {"seconds", r.seconds}, {"products_per_second", r.products_per_second()}});
    try {
      ordo::write_file_atomically(o.json_path, out.dump(1) + "\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ordo_bench_emulator: %s\n", e.what());
      return 1;
    }
    std::printf("json: %s\n", o.json_path.c_str());
  }
  return 0;
}
