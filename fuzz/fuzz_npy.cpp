// libFuzzer target: the .npy parser (protocol/npy.h, parse_npy). Documented failure: NpyError.
// Promises for an accepted array: its data is exactly element_count() * itemsize bytes, the decoder of
// its dtype accepts it, and encode_npy_header + the same data parse back to the same array.
#include "fuzz/fuzz_support.h"
#include "protocol/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ordo::protocol;
  namespace fuzz = ordo::fuzz;
  try {
    const NpyArray a = parse_npy(fuzz::as_text(data, size), fuzz::kWhere);
    const auto n = static_cast<std::size_t>(a.element_count());
    ORDO_FUZZ_REQUIRE(a.data.size() == n * npy_itemsize(a.dtype), "data is count * itemsize bytes");
    switch (a.dtype) {
      case NpyDtype::f4: ORDO_FUZZ_REQUIRE(a.as_f32().size() == n, "as_f32 decodes every element"); break;
      case NpyDtype::i8: ORDO_FUZZ_REQUIRE(a.as_i64().size() == n, "as_i64 decodes every element"); break;
      case NpyDtype::u2:
      case NpyDtype::i2:
      case NpyDtype::bf16: ORDO_FUZZ_REQUIRE(a.as_u16().size() == n, "as_u16 decodes every element"); break;
    }
    const NpyBf16Descr descr = a.dtype == NpyDtype::bf16 ? NpyBf16Descr::v2 : NpyBf16Descr::u2;
    std::string again = encode_npy_header(a.dtype, a.shape, descr, "<round trip>");
    again.append(a.data.begin(), a.data.end());
    NpyArray b;
    try {
      b = parse_npy(again, "<round trip>");
    } catch (const NpyError& e) {
      std::fprintf(stderr, "round trip refused: %s\n", e.what());
      ORDO_FUZZ_REQUIRE(false, "encode_npy_header writes what parse_npy reads");
    }
    ORDO_FUZZ_REQUIRE(b.dtype == a.dtype && b.shape == a.shape && b.data == a.data, "the round trip keeps the array");
  } catch (const NpyError& e) {
    ORDO_FUZZ_REQUIRE(fuzz::names_source(e.what()), "an NpyError names the file first");
  }
  return 0;
}
