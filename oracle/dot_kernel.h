#pragma once
#include <cstdint>
#include <vector>

// The inner loop of the exact dot-product engine (exact_dots.h), internal to the oracle. Operands are
// decoded once per row into signed integer significands and small relative exponents, so that the loop
// over k is nothing but integer multiplies, shifts and adds, in SIMD lanes where the CPU has AVX-512.
namespace ordo::oracle::dot_kernel {

inline constexpr int kLanes = 16;                // rows are zero-padded to a multiple of this (terms per step)
inline constexpr std::int64_t kBlock = 1 << 15;  // terms per dot_windows call: bounds every lane sum
inline constexpr int kMaxWindows = 8;            // exponent sums span at most 2 * 253 = 506 bits

// One row of binary32 values v[k] = significand[k] * 2^(min_exponent + exponent[k] - 149), exactly
// (subnormals included: max(biased exponent, 1) - 1 is the exponent of the 24-bit significand, less 149).
// The product of two rows' terms is then significand_a * significand_b * 2^(P + exponent_a + exponent_b)
// in units of 2^-298 (Superaccumulator's lsb), with P = min_exponent_a + min_exponent_b.
struct DecodedRow {
  const std::int32_t* significand = nullptr;  // +-24 bits, 0 for zeros and padding
  const std::uint8_t* exponent = nullptr;     // relative to min_exponent; 0 for zeros and padding
  std::int64_t padded_length = 0;             // the terms (K, + 1 for a bias) rounded up to kLanes
  int min_exponent = 0;                       // over the nonzero values (0 if none)
  int span = 0;                               // max - min exponent over the nonzero values
  bool special = false;                       // a NaN or an Inf: never passed to dot_windows
};

// Rows of K values decoded once (each row of X or W of a GEMM is reused N or M times).
class DecodedRows {
 public:
  // Row r = values[r*K, r*K + K), followed by appended[r * appended_stride] if appended is given: a bias
  // enters the dot product as one more term, 1 * bias (exact, and the same policy for NaN, Inf and -0).
  void decode(const float* values, std::int64_t rows, std::int64_t K, const float* appended = nullptr,
              std::int64_t appended_stride = 0);
  DecodedRow row(std::int64_t r) const;
  std::int64_t rows() const { return static_cast<std::int64_t>(info_.size()); }

 private:
  struct Info {
    int min_exponent, span;
    bool special;
  };
  std::int64_t stride_ = 0;
  std::vector<std::int32_t> significand_;
  std::vector<std::uint8_t> exponent_;
  std::vector<Info> info_;
};

// sum_{k in [begin, end)} a.significand[k] * b.significand[k] * 2^(a.exponent[k] + b.exponent[k])
//   = sum_{j < windows} (low[j] + mid[j] * 2^32 + high[j] * 2^64) * 2^(64 j),
// exactly. Each term t = p * 2^s, p the 48-bit signed product and s < 64 its offset in window j, is split
// into t mod 2^32, (t mod 2^64) div 2^32 and t div 2^64 (floor): the first two are below 2^32, the third
// below 2^47 in magnitude, so 8 lanes of kBlock / 8 terms and their sum never overflow 64 bits. No
// carries inside the loop; windows = (a.span + b.span) / 64 + 1 is the only per-row-pair cost.
struct WindowSums {
  int windows = 0;
  std::int64_t low[kMaxWindows], mid[kMaxWindows], high[kMaxWindows];
};

int window_count(const DecodedRow& a, const DecodedRow& b);

// begin and end multiples of kLanes (or end = padded_length), end - begin <= kBlock. AVX-512 where the
// CPU has it, else dot_windows_portable; both give the same sums.
void dot_windows(const DecodedRow& a, const DecodedRow& b, std::int64_t begin, std::int64_t end, WindowSums& out);
void dot_windows_portable(const DecodedRow& a, const DecodedRow& b, std::int64_t begin, std::int64_t end,
                          WindowSums& out);
bool have_simd_kernel();  // whether dot_windows runs the AVX-512 loop on this CPU

// True if every product a[k] * b[k] is -0 (a zero factor and opposite signs), the finite terms' half of the
// signed-zero rule; stops at the first other term, so it is cheap whenever it is false.
bool all_products_negative_zero(const float* a, const float* b, std::int64_t K);

}  // namespace ordo::oracle::dot_kernel
