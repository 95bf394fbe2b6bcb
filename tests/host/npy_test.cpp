#include "protocol/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace ordo {
namespace {

namespace fs = std::filesystem;
using protocol::NpyArray;
using protocol::NpyBf16Descr;
using protocol::NpyDtype;
using protocol::NpyError;

// What np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) writes (numpy 2.4.6, checked byte for byte):
// magic, version 1.0, header length 0x0076 = 118 so that 10 + 118 = 128 is a multiple of 64, the dict,
// 58 spaces (20 that numpy leaves for growing axis 0, 38 of alignment), '\n', then 0.0f .. 5.0f.
const std::string kNumpyF4x2x3 = std::string(
    "\x93NUMPY\x01\x00\x76\x00"
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"
    "\x00\x00\x00\x00\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40",
    152);

// A .npy file laid out as numpy lays it out, around any dict text (valid or not) and any data.
std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12, hlen = dict.size() + 1;
  const std::size_t pad = 64 - (prefix + hlen) % 64, total = hlen + pad;
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
  return out + dict + std::string(pad, ' ') + "\n" + data;
}

std::string f4_dict(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

// parse_npy must throw NpyError whose message starts with the name and contains `fragment`.
void expect_error(const std::string& bytes, const std::string& fragment) {
  try {
    (void)protocol::parse_npy(bytes, "t.npy");
    ADD_FAILURE() << "no error; expected: " << fragment;
  } catch (const NpyError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("t.npy: ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << "message: " << what << "\nexpected: " << fragment;
  }
}

TEST(Npy, ReadsWhatNumpyWrites) {
  const NpyArray a = protocol::parse_npy(kNumpyF4x2x3, "numpy.npy");
  EXPECT_EQ(a.dtype, NpyDtype::f4);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.as_f32(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(Npy, WritesTheHeaderNumpyWrites) {
  EXPECT_EQ(protocol::encode_npy_header(NpyDtype::f4, {2, 3}, NpyBf16Descr::u2, "x"), kNumpyF4x2x3.substr(0, 128));
}

TEST(Npy, HeaderFormsOfShape) {
  const auto header = [](const std::vector<std::int64_t>& shape) {
    std::string h = protocol::encode_npy_header(NpyDtype::i8, shape, NpyBf16Descr::u2, "x");
    EXPECT_EQ(h.size() % 64, 0u);
    EXPECT_EQ(h.back(), '\n');
    return h;
  };
  EXPECT_NE(header({}).find("'shape': (), }"), std::string::npos);
  EXPECT_NE(header({5}).find("'shape': (5,), }"), std::string::npos);
  EXPECT_NE(header({0}).find("'descr': '<i8'"), std::string::npos);
  EXPECT_NE(header({2, 3, 4}).find("'shape': (2, 3, 4), }"), std::string::npos);
}

TEST(Npy, Bf16DescrFlags) {
  EXPECT_NE(protocol::encode_npy_header(NpyDtype::bf16, {1}, NpyBf16Descr::u2, "x").find("'<u2'"), std::string::npos);
  EXPECT_NE(protocol::encode_npy_header(NpyDtype::bf16, {1}, NpyBf16Descr::v2, "x").find("'|V2'"), std::string::npos);
}

TEST(Npy, AcceptsEveryBf16Descr) {
  for (const char* descr : {"|V2", "<V2", "bfloat16"}) {
    const std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }";
    const NpyArray a = protocol::parse_npy(npy_bytes(dict, std::string("\x80\x3f\xc0\x7f", 4)), "b.npy");
    EXPECT_EQ(a.dtype, NpyDtype::bf16) << descr;
    EXPECT_EQ(a.as_u16(), (std::vector<std::uint16_t>{0x3f80, 0x7fc0})) << descr;
  }
}

TEST(Npy, AcceptsNumpyVariants) {
  // Keys in any order, double quotes, no trailing comma, extra spaces, a trailing comma in the shape,
  // format versions 2.0 and 3.0.
  const std::string d8(8, '\0');
  for (const std::string& dict : {std::string("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}"),
                                  std::string("{ 'fortran_order' : False , 'descr' : '<f4' , 'shape' : ( 2 , ) , }"),
                                  std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2,)}")}) {
    EXPECT_EQ(protocol::parse_npy(npy_bytes(dict, d8), "v.npy").element_count(), 2) << dict;
  }
  EXPECT_EQ(protocol::parse_npy(npy_bytes(f4_dict("(2,)"), d8, 2), "v2.npy").shape.size(), 1u);
  EXPECT_EQ(protocol::parse_npy(npy_bytes(f4_dict("(2,)"), d8, 3), "v3.npy").shape.size(), 1u);
  // A dimension of exactly 2^40 is allowed (here with no elements at all).
  EXPECT_EQ(protocol::parse_npy(npy_bytes(f4_dict("(1099511627776, 0)"), ""), "z.npy").element_count(), 0);
}

TEST(Npy, WritesVersion2WhenTheHeaderNeedsIt) {
  const std::vector<std::int64_t> shape(22000, 0);  // "0, " x 22000 is longer than 65535 bytes
  const std::string h = protocol::encode_npy_header(NpyDtype::u2, shape, NpyBf16Descr::u2, "x");
  EXPECT_EQ(h[6], '\x02');
  EXPECT_EQ(h.size() % 64, 0u);
  EXPECT_EQ(protocol::parse_npy(h, "big.npy").shape, shape);
}

TEST(Npy, ValueHelpersCheckTheDtype) {
  const NpyArray a = protocol::parse_npy(kNumpyF4x2x3, "numpy.npy");
  try {
    (void)a.as_u16();
    ADD_FAILURE() << "as_u16 accepted <f4";
  } catch (const NpyError& e) {
    EXPECT_STREQ(e.what(), "numpy.npy: as_u16 needs <u2, <i2 or bfloat16, the array is <f4");
  }
  EXPECT_THROW((void)a.as_i64(), NpyError);
  NpyArray broken = a;
  broken.data.pop_back();
  EXPECT_THROW((void)broken.as_f32(), NpyError);
}

// Errors, one each.
// The bytes up to the first NUL: what the literal "\x93NUMPX\x01\x00\x00\x00" always passed as a std::string.
TEST(NpyErrors, BadMagic) { expect_error("\x93NUMPX\x01", "bad magic"); }
TEST(NpyErrors, EmptyInput) { expect_error("", "empty file"); }
TEST(NpyErrors, TruncatedPreamble) {
  expect_error("\x93NUMPY\x01", "truncated: the file ends inside the .npy preamble");
}
TEST(NpyErrors, Version4) {
  std::string b = kNumpyF4x2x3;
  b[6] = '\x04';
  expect_error(b, "format version 4.0 is not supported");
}
TEST(NpyErrors, MinorVersion) {
  std::string b = kNumpyF4x2x3;
  b[7] = '\x01';
  expect_error(b, "format version 1.1 is not supported");
}
TEST(NpyErrors, HeaderLengthPastEndOfFile) {
  expect_error(kNumpyF4x2x3.substr(0, 100), "header length 118 runs past the end of the file (100 bytes");
}
TEST(NpyErrors, HeaderWithoutNewline) {
  std::string b = kNumpyF4x2x3;
  b[127] = ' ';
  expect_error(b, "the header does not end with '\\n'");
}
TEST(NpyErrors, OtherDtypes) {
  // No data: what the literals "\0\0" and "\0" always passed as a std::string.
  expect_error(npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", ""), "descr '<f2'");
  expect_error(npy_bytes("{'descr': '|u1', 'fortran_order': False, 'shape': (), }", ""), "descr '|u1'");
}
TEST(NpyErrors, DimensionAbove2To40) {
  expect_error(npy_bytes(f4_dict("(1099511627777, 0)"), ""), "dimension 1099511627777 in shape exceeds 2^40");
  expect_error(npy_bytes(f4_dict("(99999999999999999999999,)"), ""), "exceeds 2^40");
}

// A header or data defect each, as npy_bytes lays it out: the test's name, the dict text, the data, and a
// fragment of the message parse_npy must refuse it with. The test names are
// NpyErrors/NpyDefectTest.IsRefusedNamingIt/<name>.
struct NpyDefect {
  const char* name;
  std::string dict, data, fragment;
};

void PrintTo(const NpyDefect& d, std::ostream* os) { *os << d.name; }

std::vector<NpyDefect> npy_defects() {
  return {
      {"MissingKey", "{'descr': '<f4', 'shape': (2,), }", std::string(8, '\0'),
       "the header has no 'fortran_order' key"},
      {"DuplicateKey", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }", "",
       "duplicate key 'shape' in the header"},
      {"UnknownKey", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'order': 'C', }", "",
       "unknown key 'order' in the header"},
      {"FortranOrderTrue", "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", std::string(8, '\0'),
       "fortran_order is True; ordo reads C-order arrays only (np.ascontiguousarray)"},
      {"FortranOrderNotABool", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", "",
       "fortran_order must be True or False, found '0'"},
      {"BigEndian", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'),
       "descr '>f4' is big-endian"},
      {"Float64", "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", std::string(16, '\0'),
       "descr '<f8' is not supported"},
      {"ObjectArray", "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'),
       "descr '|O' is an object array"},
      {"StructuredDtype", "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "",
       "descr is not a quoted string"},
      {"NegativeDimension", f4_dict("(3, -1)"), "", "negative dimension -1 in shape"},
      {"NonIntegralDimension", f4_dict("(1.5,)"), "", "dimension '1.5' in shape is not a non-negative decimal integer"},
      {"LongSuffixDimension", f4_dict("(5L,)"), "", "dimension '5L' in shape"},
      {"LeadingZeroDimension", f4_dict("(05,)"), "", "has a leading zero"},
      {"ShapeNotATuple", f4_dict("[3, 4]"), "", "shape is not a tuple"},
      {"ParenthesisedIntIsNotATuple", f4_dict("(5)"), std::string(20, '\0'), "shape (5) is not a tuple"},
      {"ElementCountOverflow", f4_dict("(4294967296, 4294967296)"), "",
       "shape (4294967296, 4294967296) has more than 2^40 elements"},
      {"JunkAfterTheDict", f4_dict("(2,)") + " x", std::string(8, '\0'), "junk after the header dict: 'x'"},
      {"TruncatedData", f4_dict("(3, 4)"), std::string(40, '\0'),
       "truncated: the header says shape (3, 4) of <f4 = 48 bytes of data, the file has 40"},
  };
}

class NpyDefectTest : public ::testing::TestWithParam<NpyDefect> {};

TEST_P(NpyDefectTest, IsRefusedNamingIt) {
  const NpyDefect& d = GetParam();
  expect_error(npy_bytes(d.dict, d.data), d.fragment);
}

INSTANTIATE_TEST_SUITE_P(NpyErrors, NpyDefectTest, ::testing::ValuesIn(npy_defects()),
                         [](const ::testing::TestParamInfo<NpyDefect>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(NpyErrors, ExtraData) {
  expect_error(kNumpyF4x2x3 + std::string(1, '\0'),
               "extra data: the header says shape (2, 3) of <f4 = 24 bytes of data, the file has 25");
}

// Files: a fresh directory per test.
class NpyFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ordo::testing::test_temp_dir("npy");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& leaf) const { return (dir_ / leaf).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  fs::path dir_;
};

TEST_F(NpyFiles, RoundTripEveryDtypeAndShape) {
  const std::vector<std::vector<std::int64_t>> shapes = {{}, {0}, {5}, {3, 4}, {2, 3, 4}};
  struct Case {
    NpyDtype dtype;
    NpyBf16Descr flag;
    NpyDtype reads_as;
  };
  const Case cases[] = {{NpyDtype::f4, NpyBf16Descr::u2, NpyDtype::f4},
                        {NpyDtype::u2, NpyBf16Descr::u2, NpyDtype::u2},
                        {NpyDtype::i2, NpyBf16Descr::u2, NpyDtype::i2},
                        {NpyDtype::bf16, NpyBf16Descr::u2, NpyDtype::u2},  // raw bits as '<u2'
                        {NpyDtype::bf16, NpyBf16Descr::v2, NpyDtype::bf16},
                        {NpyDtype::i8, NpyBf16Descr::u2, NpyDtype::i8}};
  int file = 0;
  for (const Case& c : cases) {
    for (const auto& shape : shapes) {
      std::int64_t n = 1;
      for (const std::int64_t d : shape) n *= d;
      // Bit patterns, not values: NaN payloads and -0 must survive too.
      std::vector<unsigned char> bytes(static_cast<std::size_t>(n) * protocol::npy_itemsize(c.dtype));
      for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 0xf1);
      const std::string p = path("a" + std::to_string(file++) + ".npy");
      protocol::write_npy(p, c.dtype, shape, bytes.data(), bytes.size(), c.flag);
      const NpyArray a = protocol::read_npy(p);
      SCOPED_TRACE(p);
      EXPECT_EQ(a.dtype, c.reads_as);
      EXPECT_EQ(a.shape, shape);
      EXPECT_EQ(a.data, bytes);
      EXPECT_EQ(a.name, p);
      EXPECT_EQ((fs::file_size(p) - bytes.size()) % 64, 0u);
      const auto count = static_cast<std::size_t>(n);
      if (c.reads_as == NpyDtype::f4) {
        const std::vector<float> v = a.as_f32();
        ASSERT_EQ(v.size(), count);
        if (count > 0) {
          EXPECT_EQ(std::memcmp(v.data(), bytes.data(), bytes.size()), 0);
        }
      } else if (c.reads_as == NpyDtype::i8) {
        const std::vector<std::int64_t> v = a.as_i64();
        ASSERT_EQ(v.size(), count);
        if (count > 0) {
          EXPECT_EQ(std::memcmp(v.data(), bytes.data(), bytes.size()), 0);
        }
      } else {
        const std::vector<std::uint16_t> v = a.as_u16();
        ASSERT_EQ(v.size(), count);
        if (count > 0) {
          EXPECT_EQ(std::memcmp(v.data(), bytes.data(), bytes.size()), 0);
        }
      }
    }
  }
  EXPECT_EQ(entries().size(), static_cast<std::size_t>(file));  // no temp file left behind
}

TEST_F(NpyFiles, ReadsNumpyBytesFromAFile) {
  std::ofstream(path("n.npy"), std::ios::binary) << kNumpyF4x2x3;
  EXPECT_EQ(protocol::read_npy(path("n.npy")).as_f32(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST_F(NpyFiles, OverwritesAnExistingFile) {
  const float one[] = {1.0f}, two[] = {2.0f, 3.0f};
  protocol::write_npy(path("o.npy"), NpyDtype::f4, {1}, one, sizeof one);
  protocol::write_npy(path("o.npy"), NpyDtype::f4, {2}, two, sizeof two);
  EXPECT_EQ(protocol::read_npy(path("o.npy")).as_f32(), (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(entries(), std::vector<std::string>{"o.npy"});
}

TEST_F(NpyFiles, ReadErrorsNameThePath) {
  const std::string p = path("missing.npy");
  try {
    (void)protocol::read_npy(p);
    ADD_FAILURE();
  } catch (const NpyError& e) {
    EXPECT_EQ(std::string(e.what()), p + ": cannot open: No such file or directory");
  }
  std::ofstream(path("t.npy"), std::ios::binary) << kNumpyF4x2x3.substr(0, 140);
  try {
    (void)protocol::read_npy(path("t.npy"));
    ADD_FAILURE();
  } catch (const NpyError& e) {
    EXPECT_EQ(std::string(e.what()),
              path("t.npy") + ": truncated: the header says shape (2, 3) of <f4 = 24 bytes of data, the file has 12");
  }
  EXPECT_THROW((void)protocol::read_npy(dir_.string()), NpyError);  // a directory is not a regular file
}

TEST_F(NpyFiles, RefusesFilesOver16GiB) {
  const std::string p = path("huge.npy");
  std::ofstream(p, std::ios::binary) << kNumpyF4x2x3;
  std::error_code ec;
  fs::resize_file(p, protocol::kNpyMaxFileBytes + 1, ec);  // sparse: no disk space used
  if (ec) GTEST_SKIP() << "cannot make a sparse file here: " << ec.message();
  try {
    (void)protocol::read_npy(p);
    ADD_FAILURE();
  } catch (const NpyError& e) {
    EXPECT_EQ(std::string(e.what()), p + ": the file is 17179869185 bytes; ordo reads .npy files of at most 16 GiB");
  }
}

TEST_F(NpyFiles, WriteIntoAMissingDirectoryFails) {
  const std::string p = path("no/such/dir/x.npy");
  const float v[] = {1.0f};
  try {
    protocol::write_npy(p, NpyDtype::f4, {1}, v, sizeof v);
    ADD_FAILURE();
  } catch (const NpyError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(p + ": ", 0), 0u) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
  EXPECT_TRUE(entries().empty());
}

TEST_F(NpyFiles, FailedRenameRemovesTheTempFile) {
  // Renaming a file over a non-empty directory fails after the temp file is written and fsynced.
  fs::create_directories(dir_ / "d.npy" / "inside");
  const float v[] = {1.0f};
  try {
    protocol::write_npy(path("d.npy"), NpyDtype::f4, {1}, v, sizeof v);
    ADD_FAILURE();
  } catch (const NpyError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(path("d.npy") + ": cannot write (rename of ", 0), 0u) << what;
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"d.npy"});
}

TEST_F(NpyFiles, WriteChecksTheSize) {
  const float v[] = {1.0f, 2.0f};
  EXPECT_THROW(protocol::write_npy(path("s.npy"), NpyDtype::f4, {3}, v, sizeof v), NpyError);
  EXPECT_THROW(protocol::write_npy(path("s.npy"), NpyDtype::f4, {-1}, v, 0), NpyError);
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace ordo
