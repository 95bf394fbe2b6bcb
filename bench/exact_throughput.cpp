// ordo_bench_exact: throughput of the exact engines, single thread, on random binary32 vectors:
// the superaccumulator, MPFR (the judge, at 640 bits) and, for scale, a plain float FMA chain; and the
// wall time of one whole exact GEMM on every core (--gemm M,N,K). Host only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/build_info.h"
#include "oracle/exact_dot_mpfr.h"
#include "oracle/exact_gemm.h"
#include "oracle/mpfr_value.h"
#include "oracle/superaccumulator.h"
#include "properties/value_families.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  ordo::properties::Rng rng(seed);
  std::vector<float> v(n);
  for (float& f : v) f = ordo::properties::sample_value(ordo::properties::ValueFamily::wide_exponent, rng);
  return v;
}

// Seconds per call: the best of 7 rounds, each repeating `body` for at least 0.05 s. The minimum
// is the least disturbed estimate on a shared machine (each engine is timed the same way).
template <class Body>
double time_per_call(Body&& body) {
  double best = 1e30;
  for (int round = 0; round < 7; ++round) {
    int calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      body();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.05);
    best = std::min(best, elapsed / calls);
  }
  return best;
}

volatile float g_sink_f;  // keeps the measured work alive
volatile double g_sink_d;

void usage() {
  std::puts(
      "usage: ordo_bench_exact [--k K[,K...]] [--gemm M,N,K] [--json PATH]\n"
      "  --k      vector lengths for the per-term timings (default 32,1024,5376,65536)\n"
      "  --gemm   also time one exact GEMM of that shape on every core (e.g. 4096,5376,5376)\n"
      "  --json   write the numbers as JSON");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> ks{32, 1024, 5376, 65536};
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
  out["method"] = "single thread, random wide-exponent binary32 vectors, best of 7 rounds of >= 0.05 s, time per call / K";
  std::printf("%8s %14s %14s %14s %10s\n", "K", "superacc ns/t", "MPFR ns/t", "float ns/t", "speedup");
  for (long K : ks) {
    const auto x = random_vector(static_cast<std::size_t>(K), 1), w = random_vector(static_cast<std::size_t>(K), 2);
    ordo::oracle::Superaccumulator acc;
    const double t_super = time_per_call([&] {
      acc.clear();
      acc.add_products(x.data(), w.data(), K);
      g_sink_f = acc.to_float();
    });
    ordo::oracle::MpfrValue sum(ordo::oracle::kExactPrecisionBits);
    const double t_mpfr = time_per_call([&] {
      ordo::oracle::mpfr_exact_dot(x.data(), w.data(), K, std::nullopt, sum.get());
      g_sink_f = ordo::oracle::mpfr_round_to_float(sum.get());
    });
    const double t_float = time_per_call([&] {
      float a = 0;
      for (long k = 0; k < K; ++k) a = std::fma(x[k], w[k], a);
      g_sink_f = a;
    });
    const double ns = 1e9 / static_cast<double>(K);
    std::printf("%8ld %14.2f %14.2f %14.2f %9.1fx\n", K, t_super * ns, t_mpfr * ns, t_float * ns, t_mpfr / t_super);
    out["per_term"].push_back({{"K", K},
                               {"superacc_ns_per_term", t_super * ns},
                               {"mpfr_ns_per_term", t_mpfr * ns},
                               {"float_chain_ns_per_term", t_float * ns},
                               {"speedup_vs_mpfr", t_mpfr / t_super}});
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
