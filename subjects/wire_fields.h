#pragma once
// The fields of the worker protocol's messages (subjects/worker_protocol.h): a Writer appends them to a
// payload, a Reader takes them off one, checking each against the bytes that are left and each count
// against its limit before it allocates; every defect is a ProtocolError naming the field.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace ordo::isolation {

class Writer {
 public:
  template <class T>
  void scalar(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const unsigned char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof value);
  }
  void boolean(bool value) { scalar<std::uint8_t>(value ? 1 : 0); }
  void text(const std::string& s);
  void floats(const std::vector<float>& v) { array(v.data(), v.size()); }
  void int64s(const std::vector<std::int64_t>& v) { array(v.data(), v.size()); }
  std::vector<unsigned char> take() { return std::move(bytes_); }

 private:
  template <class T>
  void array(const T* data, std::size_t count) {
    scalar<std::uint64_t>(count);
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
  }
  std::vector<unsigned char> bytes_;
};

class Reader {
 public:
  explicit Reader(const std::vector<unsigned char>& bytes) : bytes_(bytes) {}
  template <class T>
  T scalar(const char* field) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof value, field), sizeof value);
    return value;
  }
  bool boolean(const char* field);
  std::string text(const char* field, std::size_t max_bytes);
  std::vector<float> floats(const char* field, std::size_t max_count);
  std::vector<std::int64_t> int64s(const char* field, std::size_t max_count);
  // The message must end here: trailing bytes are a defect too.
  void expect_end(const char* message) const;

 private:
  const unsigned char* take(std::size_t size, const char* field);
  std::uint64_t count(const char* field, std::size_t max_count, std::size_t element);
  const std::vector<unsigned char>& bytes_;
  std::size_t at_ = 0;
};

}  // namespace ordo::isolation
