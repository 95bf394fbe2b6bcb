// ordo_bench_exact: throughput of the exact engines, single thread, on random binary32 vectors: the
// single-vector superaccumulator (one dot product per call), the batched engine (exact_dots: an M x N
// block of dot products per call, M * N * K about 2^20 terms), MPFR (the judge, at 640 bits) and, for
// scale, a plain float FMA chain; and the wall time of one whole exact GEMM on every core (--gemm M,N,K).
// Host only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/build_info.h"
#include "oracle/dot_kernel.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/exact_dots.h"
#include "oracle/exact_gemm.h"
#include "oracle/mpfr_value.h"
#include "oracle/superaccumulator.h"
#include "properties/value_families.h"
#include "core/large_allocations.h"

namespace {

using Clock = std::chrono::steady_clock;

ordo::properties::ValueFamily g_family = ordo::properties::ValueFamily::wide_exponent;

std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  ordo::properties::Rng rng(seed);
  std::vector<float> v(n);
  for (float& f : v) f = ordo::properties::sample_value(g_family, rng);
  return v;
}

bool set_family(const std::string& name) {
  for (ordo::properties::ValueFamily f : ordo::properties::all_families())
    if (ordo::properties::family_name(f) == name) {
      g_family = f;
      return true;
    }
  return false;
}

// The batched engine's block for one K: M = N with M * N * K about 2^20 terms, so that every K is timed
// on the same amount of work (and K = 65536 still has several outputs).
std::int64_t batch_side(long K) {
  const double side = std::sqrt(static_cast<double>(1 << 20) / static_cast<double>(K));
  return std::max<std::int64_t>(1, std::llround(side));
}

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Seconds per call: the best of 7 rounds, each repeating `body` for at least 0.05 s. The minimum is the
// least disturbed estimate on a shared machine (each engine is timed the same way). Wall clock, and the
// thread's CPU time over the same rounds: on a loaded machine the thread waits for a core part of the
// time, which the wall clock counts and the CPU time does not. Calls are made in batches of >= 1 ms
// between clock readings (the CPU clock is a system call), so reading the clocks costs nothing visible.
struct Timing {
  double wall = 1e30, cpu = 1e30;
};

template <class Body>
Timing time_per_call(Body&& body) {
  std::int64_t batch = 1;
  for (;;) {  // also warms the caches
    const auto start = Clock::now();
    for (std::int64_t i = 0; i < batch; ++i) body();
    if (std::chrono::duration<double>(Clock::now() - start).count() >= 1e-3) break;
    batch *= 2;
  }
  Timing best;
  for (int round = 0; round < 7; ++round) {
    std::int64_t calls = 0;
    const auto start = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    double elapsed = 0;
    do {
      for (std::int64_t i = 0; i < batch; ++i) body();
      calls += batch;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.05);
    best.wall = std::min(best.wall, elapsed / static_cast<double>(calls));
    best.cpu = std::min(best.cpu, (thread_cpu_seconds() - cpu_start) / static_cast<double>(calls));
  }
  return best;
}

volatile float g_sink_f;  // keeps the measured work alive
volatile double g_sink_d;

// One K: ns per term of each engine. single: the superaccumulator, one dot product per call (cleared,
// filled, rounded to binary32); batched: exact_dots on a side x side block (binary32 results); MPFR: the
// judge on the single vector; float FMA: a plain binary32 chain, for scale.
struct Row {
  long K = 0;
  std::int64_t side = 0;
  Timing single, batched, mpfr, fma;
};

Timing per_term(Timing t, double terms) { return {t.wall * 1e9 / terms, t.cpu * 1e9 / terms}; }

Row measure(long K) {
  Row r;
  r.K = K;
  const auto x = random_vector(static_cast<std::size_t>(K), 1), w = random_vector(static_cast<std::size_t>(K), 2);
  const auto terms = static_cast<double>(K);
  ordo::oracle::Superaccumulator acc;
  r.single = per_term(time_per_call([&] {
                        acc.clear();
                        acc.add_products(x.data(), w.data(), K);
                        g_sink_f = acc.to_float();
                      }),
                      terms);
  r.side = batch_side(K);
  const auto bx = random_vector(static_cast<std::size_t>(r.side * K), 3),
             bw = random_vector(static_cast<std::size_t>(r.side * K), 4);
  std::vector<float> by(static_cast<std::size_t>(r.side * r.side));
  ordo::oracle::ExactDotsOutput bout;
  bout.f32 = by.data();
  r.batched = per_term(time_per_call([&] {
                         ordo::oracle::exact_dots(bx.data(), bw.data(), nullptr, r.side, r.side, K, bout, 1);
                         g_sink_f = by[0];
                       }),
                       terms * static_cast<double>(r.side * r.side));
  ordo::oracle::MpfrValue sum(ordo::oracle::kExactPrecisionBits);
  r.mpfr = per_term(time_per_call([&] {
                      ordo::oracle::mpfr_exact_dot(x.data(), w.data(), K, std::nullopt, sum.get());
                      g_sink_f = ordo::oracle::mpfr_round_to_float(sum.get());
                    }),
                    terms);
  r.fma = per_term(time_per_call([&] {
                     float a = 0;
                     for (long k = 0; k < K; ++k) a = std::fma(x[k], w[k], a);
                     g_sink_f = a;
                   }),
                   terms);
  return r;
}

void usage() {
  std::puts(
      "usage: ordo_bench_exact [--k K[,K...]] [--family NAME] [--gemm M,N,K] [--json PATH]\n"
      "  --k      vector lengths for the per-term timings (default 32,128,1024,5376,65536)\n"
      "  --family the operands' value family (default wide_exponent; e.g. uniform, subnormal)\n"
      "  --gemm   also time one exact GEMM of that shape on every core (e.g. 4096,5376,5376)\n"
      "  --json   write the numbers as JSON");
}

}  // namespace

int main(int argc, char** argv) {
  ordo::keep_large_allocations_mapped();
  std::vector<long> ks{32, 128, 1024, 5376, 65536};
  long gm = 0, gn = 0, gk = 0;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else if (a == "--k" && i + 1 < argc) {
      ks.clear();
      for (char* s = argv[++i]; *s;) {
        ks.push_back(std::strtol(s, &s, 10));
        if (*s == ',') ++s;
      }
    } else if (a == "--gemm" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%ld,%ld,%ld", &gm, &gn, &gk) != 3) {
        usage();
        return 2;
      }
    } else if (a == "--family" && i + 1 < argc) {
      if (!set_family(argv[++i])) {
        usage();
        return 2;
      }
    } else if (a == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      usage();
      return 2;
    }
  }

  nlohmann::json out;
  out["tool"] = {{"version", ordo::build_version()}, {"git_commit", ordo::build_git_commit()},
                 {"git_dirty", ordo::build_git_dirty()}};
  out["method"] = "single thread, random " + std::string(ordo::properties::family_name(g_family)) +
                  " binary32 vectors, best of 7 rounds of >= 0.05 s, time per call / terms (wall clock; the same "
                  "rounds' thread CPU time under \"cpu\"); batched: an M x N block of dot products per call "
                  "(M = N, M * N * K ~ 2^20), binary32 results";
  out["family"] = ordo::properties::family_name(g_family);
  out["simd_kernel"] = ordo::oracle::dot_kernel::have_simd_kernel();
  std::printf("operands: %s; batched kernel: %s\n", std::string(ordo::properties::family_name(g_family)).c_str(),
              ordo::oracle::dot_kernel::have_simd_kernel() ? "AVX-512" : "portable");
  double load[1] = {0};
  const bool have_load = getloadavg(load, 1) == 1;
  std::printf("machine: %u cores, load average %.2f (1 min)\n", std::thread::hardware_concurrency(), load[0]);
  out["machine"] = {{"cores", std::thread::hardware_concurrency()}, {"load_average_1min", have_load ? load[0] : -1.0}};
  std::vector<Row> rows;
  for (long K : ks) rows.push_back(measure(K));
  std::printf("wall clock, ns per term:\n%8s %13s %13s %13s %13s %11s %11s\n", "K", "single", "batched", "MPFR",
              "float FMA", "MPFR/single", "MPFR/batch");
  for (const Row& r : rows)
    std::printf("%8ld %13.2f %13.2f %13.2f %13.2f %10.1fx %10.1fx\n", r.K, r.single.wall, r.batched.wall, r.mpfr.wall,
                r.fma.wall, r.mpfr.wall / r.single.wall, r.mpfr.wall / r.batched.wall);
  std::printf("thread CPU time, ns per term (the same rounds; without the time spent waiting for a core):\n"
              "%8s %13s %13s %13s %13s %11s %11s\n", "K", "single", "batched", "MPFR", "float FMA", "MPFR/single",
              "MPFR/batch");
  for (const Row& r : rows) {
    std::printf("%8ld %13.2f %13.2f %13.2f %13.2f %10.1fx %10.1fx\n", r.K, r.single.cpu, r.batched.cpu, r.mpfr.cpu,
                r.fma.cpu, r.mpfr.cpu / r.single.cpu, r.mpfr.cpu / r.batched.cpu);
    out["per_term"].push_back({{"K", r.K},
                               {"superacc_ns_per_term", r.single.wall},
                               {"batched_ns_per_term", r.batched.wall},
                               {"batched_block", {{"M", r.side}, {"N", r.side}}},
                               {"mpfr_ns_per_term", r.mpfr.wall},
                               {"float_chain_ns_per_term", r.fma.wall},
                               {"speedup_vs_mpfr", r.mpfr.wall / r.single.wall},
                               {"batched_speedup_vs_mpfr", r.mpfr.wall / r.batched.wall},
                               {"cpu", {{"superacc_ns_per_term", r.single.cpu},
                                        {"batched_ns_per_term", r.batched.cpu},
                                        {"mpfr_ns_per_term", r.mpfr.cpu},
                                        {"float_chain_ns_per_term", r.fma.cpu},
                                        {"speedup_vs_mpfr", r.mpfr.cpu / r.single.cpu},
                                        {"batched_speedup_vs_mpfr", r.mpfr.cpu / r.batched.cpu}}}});
  }

  if (gm > 0) {
    ordo::ForwardProblem p;
    p.M = gm;
    p.N = gn;
    p.K = gk;
    p.x = random_vector(static_cast<std::size_t>(gm * gk), 3);
    p.w = random_vector(static_cast<std::size_t>(gn * gk), 4);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("exact GEMM %ldx%ldx%ld on %u threads ...\n", gm, gn, gk, threads);
    std::fflush(stdout);
    const auto start = Clock::now();
    const ordo::oracle::ExactForward e = ordo::oracle::exact_forward(p, threads);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    g_sink_d = e.f64[0];
    const double terms = static_cast<double>(gm) * static_cast<double>(gn) * static_cast<double>(gk);
    std::printf("exact GEMM %ldx%ldx%ld: %.1f s on %u threads (%.2f ns per term per thread)\n", gm, gn, gk, seconds,
                threads, seconds * threads * 1e9 / terms);
    out["exact_gemm"] = {{"M", gm}, {"N", gn}, {"K", gk}, {"seconds", seconds}, {"threads", threads},
                         {"ns_per_term_per_thread", seconds * threads * 1e9 / terms}};
  }
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
