#include "protocol/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <system_error>
#include <utility>

#include "core/bounded_file.h"
#include "core/checked_size.h"

namespace ordo::protocol {

// write_npy takes the caller's memory as the file's little-endian bytes and the as_* helpers memcpy the
// file's bytes into values: both are right on a little-endian host only, which is all ordo runs on.
static_assert(std::endian::native == std::endian::little, "write_npy writes host memory as little-endian");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

std::string errno_text(int err) { return std::generic_category().message(err); }

// numpy's repr of a shape tuple: "()", "(5,)", "(3, 4)".
std::string format_shape(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The element count, or nullopt if a dimension is negative or above 2^40 or the product is above 2^40.
std::optional<std::int64_t> checked_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    const std::optional<std::int64_t> p = checked_product(n, d);
    if (!p) return std::nullopt;
    n = *p;
  }
  return n;
}

// A byte as a message shows it: printable ASCII quoted, anything else as \xNN.
std::string show_char(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return "the end of the header";
  const auto c = static_cast<unsigned char>(s[pos]);
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte \\x") + hex[c >> 4] + hex[c & 15];
}

struct Header {
  NpyDtype dtype = NpyDtype::f4;
  std::string descr;  // as the file spells it, for messages
  std::vector<std::int64_t> shape;
  std::uint64_t data_bytes = 0;
};

// A recursive-descent parser for exactly the dict literal numpy writes, not for Python: a header that
// only Python could read (escapes, comments, 5L, nested values) is not one ordo should trust.
// Whitespace is spaces only, as every known writer produces.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Header parse() {
    if (!consume('{')) fail_at("the header must start with '{', found " + show_char(s_, pos_));
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<std::int64_t>> shape;
    skip_spaces();
    while (!consume('}')) {
      const std::string key = quoted_string("a quoted key or '}'");
      const auto once = [&](const auto& slot) {
        if (slot) fail("duplicate key '" + key + "' in the header");
      };
      skip_spaces();
      if (!consume(':')) fail_at("expected ':' after key '" + key + "', found " + show_char(s_, pos_));
      skip_spaces();
      if (key == "descr") {
        once(descr);
        if (peek() != '\'' && peek() != '"')
          fail("descr is not a quoted string (found " + show_char(s_, pos_) + "); structured dtypes are not supported");
        descr = quoted_string("the descr string");
      } else if (key == "fortran_order") {
        once(fortran);
        fortran = boolean();
      } else if (key == "shape") {
        once(shape);
        shape = parse_shape();
      } else {
        fail("unknown key '" + key + "' in the header (ordo reads only 'descr', 'fortran_order', 'shape')");
      }
      skip_spaces();
      if (consume(','))
        skip_spaces();
      else if (peek() != '}')
        fail_at("expected ',' or '}' after the value of '" + key + "', found " + show_char(s_, pos_));
    }
    skip_spaces();
    if (pos_ != s_.size()) fail_at("junk after the header dict: " + show_char(s_, pos_));
    if (!descr) fail("the header has no 'descr' key");
    if (!fortran) fail("the header has no 'fortran_order' key");
    if (!shape) fail("the header has no 'shape' key");
    if (*fortran) fail("fortran_order is True; ordo reads C-order arrays only (np.ascontiguousarray)");
    const NpyDtype dtype = dtype_of(*descr);
    const std::optional<std::int64_t> count = checked_count(*shape);
    if (!count) fail("shape " + format_shape(*shape) + " has more than 2^40 elements (or its product overflows)");
    return {dtype, *descr, std::move(*shape), static_cast<std::uint64_t>(*count) * npy_itemsize(dtype)};
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw NpyError(name_, what); }
  [[noreturn]] void fail_at(const std::string& what) const {
    fail("header offset " + std::to_string(pos_) + ": " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool consume(char c) { return pos_ < s_.size() && s_[pos_] == c ? (++pos_, true) : false; }
  void skip_spaces() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }

  // 'text' or "text", with no escapes: no descr or key ordo accepts needs one.
  std::string quoted_string(const char* expected) {
    const char q = peek();
    if (q != '\'' && q != '"') fail_at(std::string("expected ") + expected + ", found " + show_char(s_, pos_));
    const std::size_t start = ++pos_;
    for (; pos_ < s_.size() && s_[pos_] != q && s_[pos_] != '\n'; ++pos_)
      if (s_[pos_] == '\\') fail_at("backslash escapes are not supported in header strings");
    if (pos_ >= s_.size() || s_[pos_] != q) fail_at("unterminated string in the header");
    return std::string(s_.substr(start, pos_++ - start));
  }

  // A run of characters that could belong to a Python token, so that messages quote the whole of
  // "1.5", "5L" or "False_" rather than its first character.
  std::string token() {
    const std::size_t start = pos_;
    const auto part = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '+';
    };
    while (pos_ < s_.size() && part(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  bool boolean() {
    const std::size_t start = pos_;
    const std::string t = token();
    if (t == "True") return true;
    if (t == "False") return false;
    pos_ = start;
    fail_at("fortran_order must be True or False, found " + (t.empty() ? show_char(s_, pos_) : "'" + t + "'"));
  }

  std::int64_t dimension() {
    const std::size_t start = pos_;
    const std::string t = token();
    pos_ = start;
    if (t.empty()) fail_at("expected a dimension in shape, found " + show_char(s_, pos_));
    const bool digits = t.find_first_not_of("0123456789") == std::string::npos;
    if (t[0] == '-' && t.size() > 1 && t.find_first_not_of("0123456789", 1) == std::string::npos)
      fail_at("negative dimension " + t + " in shape");
    if (!digits) fail_at("dimension '" + t + "' in shape is not a non-negative decimal integer");
    if (t.size() > 1 && t[0] == '0') fail_at("dimension '" + t + "' in shape has a leading zero");
    // 2^40 has 13 digits; anything longer is too large and must not be accumulated (it would overflow).
    std::int64_t v = 0;
    if (t.size() <= 13)
      for (const char c : t) v = v * 10 + (c - '0');
    if (t.size() > 13 || v > kMaxElements) fail_at("dimension " + t + " in shape exceeds 2^40");
    pos_ += t.size();
    return v;
  }

  // "()", "(5,)", "(3, 4)", "(3, 4,)". "(5)" is an int in Python, not a tuple, so it is refused.
  std::vector<std::int64_t> parse_shape() {
    if (!consume('(')) fail_at("shape is not a tuple: expected '(', found " + show_char(s_, pos_));
    std::vector<std::int64_t> dims;
    skip_spaces();
    if (consume(')')) return dims;
    while (true) {
      dims.push_back(dimension());
      skip_spaces();
      if (consume(')')) {
        if (dims.size() == 1)
          fail_at("shape (" + std::to_string(dims[0]) + ") is not a tuple; a 1-D shape is written (n,)");
        return dims;
      }
      if (!consume(',')) fail_at("expected ',' or ')' in shape, found " + show_char(s_, pos_));
      skip_spaces();
      if (consume(')')) return dims;
    }
  }

  NpyDtype dtype_of(const std::string& d) const {
    for (const NpyDtype t : {NpyDtype::f4, NpyDtype::u2, NpyDtype::i2, NpyDtype::i8})
      if (d == npy_dtype_name(t)) return t;
    if (d == "|V2" || d == "<V2" || d == "bfloat16") return NpyDtype::bf16;
    if (!d.empty() && d[0] == '>')
      fail("descr '" + d + "' is big-endian; ordo reads little-endian arrays only (arr.astype('<...'))");
    if (d == "|O" || d == "O" || d == "<O")
      fail("descr '" + d + "' is an object array (pickled Python objects); ordo reads numeric arrays only");
    fail("descr '" + d +
         "' is not supported (ordo reads '<f4', '<u2', '<i2', '<i8', and bfloat16 as '|V2', "
         "'<V2' or 'bfloat16')");
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  const std::string& name_;
};

std::uint64_t read_le(std::string_view b, std::size_t offset, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[offset + i])} << (8 * i);
  return v;
}

// The preamble: magic, version, header length. `head` holds the first min(12, file size) bytes. Returns
// the header's offset and length after checking that the header fits in `file_size`.
std::pair<std::size_t, std::uint64_t> parse_preamble(std::string_view head, std::uint64_t file_size,
                                                     const std::string& name) {
  if (head.empty()) throw NpyError(name, "empty file: not a .npy file");
  const std::size_t m = std::min(head.size(), kMagic.size());
  if (head.substr(0, m) != kMagic.substr(0, m))
    throw NpyError(name, "bad magic: not a .npy file (it must start with \\x93NUMPY)");
  if (head.size() < 8) throw NpyError(name, "truncated: the file ends inside the .npy preamble");
  const auto major = static_cast<unsigned char>(head[6]), minor = static_cast<unsigned char>(head[7]);
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(name, "format version " + std::to_string(major) + "." + std::to_string(minor) +
                             " is not supported (ordo reads 1.0, 2.0 and 3.0)");
  const std::size_t offset = major == 1 ? 10 : 12;
  if (head.size() < offset) throw NpyError(name, "truncated: the file ends inside the .npy preamble");
  const std::uint64_t header_len = read_le(head, 8, offset - 8);  // uint16 for 1.0, uint32 for 2.0 and 3.0
  if (offset + header_len > file_size)
    throw NpyError(name, "header length " + std::to_string(header_len) + " runs past the end of the file (" +
                             std::to_string(file_size) + " bytes, header from byte " + std::to_string(offset) + ")");
  return {offset, header_len};
}

Header parse_header(std::string_view header, const std::string& name) {
  if (header.empty() || header.back() != '\n') throw NpyError(name, "the header does not end with '\\n'");
  return HeaderParser(header.substr(0, header.size() - 1), name).parse();
}

// The header's promise against the bytes that follow it; returns the array without its data.
NpyArray checked_array(const Header& h, std::uint64_t have, const std::string& name) {
  if (have != h.data_bytes)
    throw NpyError(name, (have < h.data_bytes ? "truncated: " : "extra data: ") +
                             std::string("the header says shape ") + format_shape(h.shape) + " of " + h.descr + " = " +
                             std::to_string(h.data_bytes) + " bytes of data, the file has " + std::to_string(have));
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = h.shape;
  a.name = name;
  return a;
}

// A file descriptor closed on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void read_at(int fd, void* buf, std::size_t n, std::uint64_t offset, const std::string& name) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, std::min<std::size_t>(n, std::size_t{1} << 30), static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw NpyError(name, "read failed: " + errno_text(errno));
    if (r == 0) throw NpyError(name, "the file became shorter while it was read");
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

// write(2) until done; returns 0 or the errno.
int write_all(int fd, const unsigned char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = ::write(fd, p, std::min<std::size_t>(n, std::size_t{1} << 30));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return 0;
}

// The values of `a` as T, for a decoder that serves the dtypes `ok`. memcpy is exact here: the data is
// little-endian and so is the host (the static_assert above).
template <class T>
std::vector<T> decode(const NpyArray& a, std::initializer_list<NpyDtype> ok, const char* fn, const char* want) {
  if (std::find(ok.begin(), ok.end(), a.dtype) == ok.end())
    throw NpyError(a.name,
                   std::string(fn) + " needs " + want + ", the array is " + std::string(npy_dtype_name(a.dtype)));
  const auto n = static_cast<std::size_t>(a.element_count());
  if (a.data.size() != n * sizeof(T))
    throw NpyError(a.name, "data holds " + std::to_string(a.data.size()) + " bytes, shape " + format_shape(a.shape) +
                               " needs " + std::to_string(n * sizeof(T)));
  std::vector<T> v(n);
  if (n > 0) std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

// In the order of NpyDtype.
constexpr std::string_view kDtypeNames[] = {"<f4", "<u2", "<i2", "bfloat16", "<i8"};
constexpr std::size_t kItemsizes[] = {4, 2, 2, 2, 8};

}  // namespace

NpyError::NpyError(const std::string& name, const std::string& what) : std::runtime_error(name + ": " + what) {}

std::string_view npy_dtype_name(NpyDtype dtype) { return kDtypeNames[static_cast<std::size_t>(dtype)]; }
std::size_t npy_itemsize(NpyDtype dtype) { return kItemsizes[static_cast<std::size_t>(dtype)]; }

std::int64_t NpyArray::element_count() const {
  const std::optional<std::int64_t> n = checked_count(shape);
  if (!n) throw NpyError(name, "shape " + format_shape(shape) + " has more than 2^40 elements");
  return *n;
}

std::vector<float> NpyArray::as_f32() const { return decode<float>(*this, {NpyDtype::f4}, "as_f32", "<f4"); }
std::vector<std::uint16_t> NpyArray::as_u16() const {
  return decode<std::uint16_t>(*this, {NpyDtype::u2, NpyDtype::i2, NpyDtype::bf16}, "as_u16", "<u2, <i2 or bfloat16");
}
std::vector<std::int64_t> NpyArray::as_i64() const {
  return decode<std::int64_t>(*this, {NpyDtype::i8}, "as_i64", "<i8");
}

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  const auto [offset, header_len] = parse_preamble(bytes.substr(0, 12), bytes.size(), name);
  const Header h = parse_header(bytes.substr(offset, header_len), name);
  const std::string_view data = bytes.substr(offset + header_len);
  NpyArray a = checked_array(h, data.size(), name);
  a.data.assign(data.begin(), data.end());
  return a;
}

NpyArray read_npy(const std::string& path) {
  // Three reads (preamble, header, data) so that the data goes straight into the array and a bad header
  // is refused before anything large is allocated.
  // Opened without blocking and checked to be a regular file before a byte is read: a FIFO would block
  // the open itself, a device would never end.
  Fd f;
  std::size_t file_size = 0;
  try {
    f.fd = open_regular_file(path, static_cast<std::size_t>(kNpyMaxFileBytes), ".npy files", &file_size);
  } catch (const FileReadError& e) {
    const std::string what = e.what();
    throw NpyError(path, what.rfind(path + ": ", 0) == 0 ? what.substr(path.size() + 2) : what);
  }
  const auto size = static_cast<std::uint64_t>(file_size);
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 12)), '\0');
  read_at(f.fd, head.data(), head.size(), 0, path);
  const auto [offset, header_len] = parse_preamble(head, size, path);
  std::string header(static_cast<std::size_t>(header_len), '\0');
  read_at(f.fd, header.data(), header.size(), offset, path);
  NpyArray a = checked_array(parse_header(header, path), size - offset - header_len, path);
  a.data.resize(static_cast<std::size_t>(size - offset - header_len));
  read_at(f.fd, a.data.data(), a.data.size(), offset + header_len, path);
  return a;
}

std::string encode_npy_header(NpyDtype dtype, const std::vector<std::int64_t>& shape, NpyBf16Descr bf16,
                              const std::string& name) {
  if (!checked_count(shape))
    throw NpyError(name, "cannot write shape " + format_shape(shape) +
                             ": a dimension is negative, or it has more than 2^40 elements");
  const std::string descr = dtype != NpyDtype::bf16    ? std::string(npy_dtype_name(dtype))
                            : bf16 == NpyBf16Descr::v2 ? "|V2"
                                                       : "<u2";
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + format_shape(shape) + ", }";
  // numpy (format.py, _write_array_header) leaves room to rewrite axis 0 with up to 21 digits in place.
  if (!shape.empty()) dict.append(21 - std::to_string(shape[0]).size(), ' ');
  // _wrap_header: 1..64 spaces and '\n' so that the data starts at a multiple of 64; version 2.0 (a
  // uint32 length) only when the padded header does not fit in version 1.0's uint16.
  const auto padding = [&](std::size_t len_bytes) { return 64 - (8 + len_bytes + dict.size() + 1) % 64; };
  const std::size_t len_bytes = dict.size() + 1 + padding(2) > 65535 ? 4 : 2, pad = padding(len_bytes);
  const std::size_t total = dict.size() + 1 + pad;
  std::string out(kMagic);
  out += static_cast<char>(len_bytes == 2 ? 1 : 2);
  out += '\0';
  for (std::size_t i = 0; i < len_bytes; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
  return out + dict + std::string(pad, ' ') + '\n';
}

void write_npy(const std::string& path, NpyDtype dtype, const std::vector<std::int64_t>& shape, const void* data,
               std::size_t bytes, NpyBf16Descr bf16) {
  const std::string header = encode_npy_header(dtype, shape, bf16, path);
  const auto need = static_cast<std::uint64_t>(*checked_count(shape)) * npy_itemsize(dtype);
  if (bytes != need)
    throw NpyError(path, "cannot write shape " + format_shape(shape) + " of " + std::string(npy_dtype_name(dtype)) +
                             " from " + std::to_string(bytes) + " bytes: it needs " + std::to_string(need));
  if (bytes > 0 && data == nullptr) throw NpyError(path, "cannot write: data is null");
  // The counter makes names unique across threads of one process, the pid across processes.
  static std::atomic<unsigned long long> counter{0};
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  Fd f;
  f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (f.fd < 0) throw NpyError(path, "cannot create the temporary file " + tmp + ": " + errno_text(errno));
  const auto fail = [&](const char* step, int err) {
    ::unlink(tmp.c_str());
    throw NpyError(path, std::string("cannot write (") + step + " of " + tmp + " failed): " + errno_text(err));
  };
  int err = write_all(f.fd, reinterpret_cast<const unsigned char*>(header.data()), header.size());
  if (err == 0) err = write_all(f.fd, static_cast<const unsigned char*>(data), bytes);
  if (err != 0) fail("write", err);
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty or partial file.
  if (::fsync(f.fd) != 0) fail("fsync", errno);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) fail("close", errno);  // NFS reports some write errors only here
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename", errno);
}

}  // namespace ordo::protocol
