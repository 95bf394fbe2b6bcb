#include "oracle/fpu_environment.h"

#include <cfenv>
#include <cstdio>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ordo::oracle {

std::string host_fpu_environment_problem() {
  std::string problem;
  if (std::fegetround() != FE_TONEAREST) problem += "rounding mode is not round-to-nearest; ";
#if defined(__x86_64__) || defined(__i386__)
  const unsigned csr = _mm_getcsr();
  constexpr unsigned kFlushToZero = 1u << 15, kDenormalsAreZero = 1u << 6, kRoundingBits = 3u << 13;
  if (csr & kFlushToZero) problem += "MXCSR flush-to-zero is set; ";
  if (csr & kDenormalsAreZero) problem += "MXCSR denormals-are-zero is set; ";
  if (csr & kRoundingBits) problem += "MXCSR rounding is not round-to-nearest; ";
  if (!problem.empty()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "(MXCSR = 0x%08x)", csr);
    problem += buf;
  }
#endif
  return problem;
}

}  // namespace ordo::oracle
