// Writes the seed corpus of fuzz_npy (fuzz/corpus/fuzz_npy/) with protocol/npy.h's own writer: one small
// array of every dtype and descr ordo reads, a 0-d and an empty array, and the same f4 array under the
// 2.0 and 3.0 preambles (which the writer only produces for huge headers). Usage: make_npy_seeds DIR
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "protocol/npy.h"

using namespace ordo::protocol;

namespace {

// The same file with a version-2/3 preamble: 4-byte header length instead of 2.
void write_with_version(const std::string& from, const std::string& to, char major) {
  std::ifstream in(from, std::ios::binary);
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t header_len = static_cast<unsigned char>(s[8]) | static_cast<std::size_t>(static_cast<unsigned char>(s[9])) << 8;
  std::string out = s.substr(0, 6);
  out += major;
  out += '\0';
  for (int i = 0; i < 4; ++i) out += static_cast<char>((header_len >> (8 * i)) & 0xff);
  out += s.substr(10);
  std::ofstream(to, std::ios::binary) << out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<float> f = {1.0f, -0.0f, 0.5f, 3.0f, -2.0f, 1e-40f};
  const std::vector<std::uint16_t> h = {0x3f80, 0x7fc0, 0x8000, 0xffff};
  const std::vector<std::int64_t> k = {0, 1, -1, 7, 3, 2};
  write_npy(dir + "/f4_2x3.npy", NpyDtype::f4, {2, 3}, f.data(), 24);
  write_npy(dir + "/f4_0d.npy", NpyDtype::f4, {}, f.data(), 4);
  write_npy(dir + "/f4_empty_0x3.npy", NpyDtype::f4, {0, 3}, nullptr, 0);
  write_npy(dir + "/u2_4.npy", NpyDtype::u2, {4}, h.data(), 8);
  write_npy(dir + "/i2_2x2.npy", NpyDtype::i2, {2, 2}, h.data(), 8);
  write_npy(dir + "/bf16_v2_4.npy", NpyDtype::bf16, {4}, h.data(), 8, NpyBf16Descr::v2);
  write_npy(dir + "/i8_keys_3x2.npy", NpyDtype::i8, {3, 2}, k.data(), 48);
  write_with_version(dir + "/f4_2x3.npy", dir + "/f4_2x3_v2.npy", 2);
  write_with_version(dir + "/f4_2x3.npy", dir + "/f4_2x3_v3.npy", 3);
  return 0;
}
