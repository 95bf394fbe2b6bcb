#pragma once
#include <cstddef>
#include <string_view>

namespace ordo {

enum class DType { f32, bf16, f16, f64, i64 };

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::f64: return "f64";
    case DType::i64: return "i64";
  }
  return "?";
}

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::bf16: return 2;
    case DType::f16: return 2;
    case DType::f64: return 8;
    case DType::i64: return 8;
  }
  return 0;
}

}  // namespace ordo
