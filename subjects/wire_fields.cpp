#include "subjects/wire_fields.h"

#include "subjects/worker_protocol.h"

namespace ordo::isolation {

void Writer::text(const std::string& s) { array(s.data(), s.size()); }

const unsigned char* Reader::take(std::size_t size, const char* field) {
  if (size > bytes_.size() - at_)
    throw ProtocolError(std::string(field) + ": needs " + std::to_string(size) + " bytes, " +
                        std::to_string(bytes_.size() - at_) + " left");
  const unsigned char* p = bytes_.data() + at_;
  at_ += size;
  return p;
}

std::uint64_t Reader::count(const char* field, std::size_t max_count, std::size_t element) {
  const auto n = scalar<std::uint64_t>(field);
  if (n > max_count)
    throw ProtocolError(std::string(field) + ": " + std::to_string(n) + " elements, at most " +
                        std::to_string(max_count) + " allowed");
  // Checked before the multiplication below can be trusted: n * element must fit what is left.
  if (n > (bytes_.size() - at_) / element)
    throw ProtocolError(std::string(field) + ": " + std::to_string(n) + " elements, only " +
                        std::to_string(bytes_.size() - at_) + " bytes left");
  return n;
}

bool Reader::boolean(const char* field) {
  const auto v = scalar<std::uint8_t>(field);
  if (v > 1) throw ProtocolError(std::string(field) + ": " + std::to_string(v) + " is not a boolean");
  return v == 1;
}

std::string Reader::text(const char* field, std::size_t max_bytes) {
  const std::uint64_t n = count(field, max_bytes, 1);
  const unsigned char* p = take(static_cast<std::size_t>(n), field);
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n));
}

std::vector<float> Reader::floats(const char* field, std::size_t max_count) {
  const std::uint64_t n = count(field, max_count, sizeof(float));
  std::vector<float> v(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(v.data(), take(v.size() * sizeof(float), field), v.size() * sizeof(float));
  return v;
}

std::vector<std::int64_t> Reader::int64s(const char* field, std::size_t max_count) {
  const std::uint64_t n = count(field, max_count, sizeof(std::int64_t));
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(v.data(), take(v.size() * sizeof(std::int64_t), field), v.size() * sizeof(std::int64_t));
  return v;
}

void Reader::expect_end(const char* message) const {
  if (at_ != bytes_.size())
    throw ProtocolError(std::string(message) + ": " + std::to_string(bytes_.size() - at_) +
                        " bytes after its last field");
}

}  // namespace ordo::isolation
