#pragma once
// A strict reader and writer of NumPy .npy files (format versions 1.0, 2.0 and 3.0), for exchanging
// operands and results with Python tools. Strict because ordo is a verifier: a file is either exactly
// what its header says, in one of the few dtypes ordo uses, or it is refused with a message that names
// the file and the field. Nothing is guessed, converted or byte-swapped.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ordo::protocol {

// The dtypes ordo exchanges. Every one is little-endian; big-endian files are refused rather than
// swapped, so that the bytes read are the bytes that were written.
enum class NpyDtype {
  f4,    // '<f4': IEEE binary32
  u2,    // '<u2': also how ordo writes bfloat16 by default (raw bits), since plain numpy reads it
  i2,    // '<i2'
  bf16,  // bfloat16 bits: '<V2' (what np.save writes for an ml_dtypes.bfloat16 array: numpy 2.4,
         // ml_dtypes 0.6), '|V2' (a plain 2-byte void array, e.g. bfloat16 viewed as 'V2'), or
         // 'bfloat16' (what tools that put str(dtype) in the header write)
  i8,    // '<i8': logical keys and other int64 tensors
};

// The descr ordo writes for a dtype ('bfloat16' for bf16, which is only a name: see NpyBf16Descr), for
// messages and reports.
std::string_view npy_dtype_name(NpyDtype dtype);
// Bytes per element: 4, 2, 2, 2, 8.
std::size_t npy_itemsize(NpyDtype dtype);

// Every failure of this module. what() is always "<file or name>: <what is wrong>", so that a message
// that reaches a report or a terminal says which of many files was bad. The only constructor takes
// the name separately to keep that form.
class NpyError : public std::runtime_error {
 public:
  NpyError(const std::string& name, const std::string& what);
};

// One array as read. The data stays raw bytes (little-endian, C order) so that a NaN payload, a
// signalling NaN or -0 reaches the caller bit for bit; the as_* helpers decode it.
struct NpyArray {
  NpyDtype dtype = NpyDtype::f4;
  std::vector<std::int64_t> shape;  // () for a 0-d array, which holds one element
  std::vector<unsigned char> data;  // exactly element_count() * npy_itemsize(dtype) bytes
  std::string name;                 // the path (or parse_npy's name), so that as_* errors name the file

  // The product of the shape, checked: every dimension and the product in [0, 2^40]. Throws NpyError
  // otherwise (only possible if the fields were changed after reading).
  std::int64_t element_count() const;
  // The values. Each throws NpyError naming the file if the dtype is not the one it decodes (a loader
  // that expects f4 and gets i2 has a wrong file, not a number to convert) or if data has the wrong
  // size. as_u16 serves u2, i2 and bf16: it returns the raw 16-bit patterns (an i2 -1 is 0xffff).
  std::vector<float> as_f32() const;          // f4
  std::vector<std::uint16_t> as_u16() const;  // u2, i2, bf16
  std::vector<std::int64_t> as_i64() const;   // i8
};

// Largest file read_npy opens: far above any case ordo stores, and a bound on what a corrupt or hostile
// header can make it allocate.
inline constexpr std::uint64_t kNpyMaxFileBytes = std::uint64_t{16} << 30;

// Reads and checks a whole file (see parse_npy). Files over kNpyMaxFileBytes, and anything that is not
// a regular file, are refused before a byte of data is read.
NpyArray read_npy(const std::string& path);

// The same from memory, for tests and fuzzers; `name` stands for the path in messages. Checks: the
// magic, version 1.0/2.0/3.0, that the header fits in the input and ends with '\n', that the header is
// a dict of exactly 'descr', 'fortran_order' and 'shape' (any order, each once, nothing after the '}'
// but spaces), C order, a supported little-endian descr, a shape tuple of decimal integers each at
// most 2^40 with a product at most 2^40, and that the data is exactly product * itemsize bytes.
NpyArray parse_npy(std::string_view bytes, const std::string& name);

// How write_npy labels a bf16 array. '<u2' (the default) is readable by any numpy without ml_dtypes,
// and reads back here as NpyDtype::u2 with the same bits; '|V2' marks the array as bfloat16 and reads
// back here as NpyDtype::bf16 (numpy loads it as void 'V2'; arr.view(ml_dtypes.bfloat16) restores it).
enum class NpyBf16Descr { u2, v2 };

// The preamble and header that numpy's np.save writes for this dtype and shape, byte for byte: magic,
// version 1.0 (2.0 only when the header needs more than 65535 bytes), the length, the dict with sorted
// keys and numpy's repr of the shape, the spare spaces numpy leaves for growing axis 0, and space
// padding so that the data starts at a multiple of 64 bytes, then '\n'. Throws NpyError naming `name`
// for a negative dimension or a shape with more than 2^40 elements.
std::string encode_npy_header(NpyDtype dtype, const std::vector<std::int64_t>& shape, NpyBf16Descr bf16,
                              const std::string& name);

// Writes an array: encode_npy_header then `bytes` bytes of raw little-endian C-order data (the memory
// of a float/uint16_t/int64_t array on the little-endian hosts ordo runs on), which must be exactly the
// shape's element count times the itemsize. Atomic, so that a reader, or a rerun after a crash, never
// sees half a file: the bytes go to "<path>.tmp-<pid>-<counter>" in the same directory, are fsynced,
// and the temp file is renamed over `path`. On any error the temp file is removed and NpyError names
// `path` and the errno text.
void write_npy(const std::string& path, NpyDtype dtype, const std::vector<std::int64_t>& shape, const void* data,
               std::size_t bytes, NpyBf16Descr bf16 = NpyBf16Descr::u2);

}  // namespace ordo::protocol
