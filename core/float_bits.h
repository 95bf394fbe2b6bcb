#pragma once
#include <bit>
#include <cstdint>
#include <string>

namespace ordo {

// CUDA's arithmetic returns this one NaN for every NaN result (shared/design numerics §1, and the
// kernel-vs-emulator property checks it on the GPU). x86 propagates payloads instead, so the host
// emulator canonicalises every NaN it produces to this pattern.
inline constexpr std::uint32_t kCanonicalNaNBits = 0x7FFFFFFFu;

inline std::uint32_t bits_of(float f) { return std::bit_cast<std::uint32_t>(f); }
inline float float_of(std::uint32_t u) { return std::bit_cast<float>(u); }
inline bool is_nan_bits(std::uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0; }
inline float canonical_nan() { return float_of(kCanonicalNaNBits); }

// "0x3f800000 (1)" : bits first, then the value with enough digits to round-trip.
std::string describe_float(float f);
std::string hex_bits(float f);

}  // namespace ordo
