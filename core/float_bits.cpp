#include "core/float_bits.h"

#include <cstdio>

namespace ordo {

std::string hex_bits(float f) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", bits_of(f));
  return buf;
}

std::string describe_float(float f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%08x (%.9g)", bits_of(f), static_cast<double>(f));
  return buf;
}

}  // namespace ordo
