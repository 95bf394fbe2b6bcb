#pragma once
// SHA-256 (FIPS 180-4), for the digests of corpus entries (protocol/corpus_entry.h): the values of a
// tensor, the .npy file an entry names, the name of a failure entry. A digest is what detects a file
// swapped or corrupted beside an entry; it is not used for anything secret. Written here, small and
// checked against the FIPS test vectors (tests/host/corpus_entry_test.cpp), so that ordo needs no
// crypto library.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ordo::protocol {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest as 64 lowercase hex digits. The object is finished: further updates are a logic error.
  std::string hex_digest();

 private:
  void block(const unsigned char* p);

  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
  bool finished_ = false;
};

std::string sha256_hex(const void* data, std::size_t bytes);
inline std::string sha256_hex(std::string_view text) { return sha256_hex(text.data(), text.size()); }

// Exactly 64 lowercase hex digits (what hex_digest writes; an entry's digests are compared as text).
bool is_sha256_hex(std::string_view s);

}  // namespace ordo::protocol

namespace ordo::protocol {

// The SHA-256 of a whole regular file, read in blocks (a plugin library, an input file); FileReadError
// (core/bounded_file.h) for anything that is not a regular file of at most `max_bytes`.
std::string file_sha256(const std::string& path, std::size_t max_bytes);

}  // namespace ordo::protocol
