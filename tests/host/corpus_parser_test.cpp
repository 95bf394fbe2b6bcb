// The corpus readers fail closed (protocol/strict_json.h): one test per defect, each writing a bad
// file into TempDir and asserting the whole located message, "FILE: case N: FIELD: what is wrong". Each
// starts from a file that reads (checked first), so that a test passes only because of its defect.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "corpus_error.h"
#include "oracle/plan_emulator.h"
#include "protocol/golden_backward.h"
#include "protocol/golden_corpus.h"
#include "protocol/regression_corpus.h"
#include "protocol/strict_json.h"
#include "test_support.h"

namespace ordo::properties {
namespace {
using protocol::CorpusError;
using protocol::GoldenBackwardCase;
using protocol::GoldenBackwardFile;
using protocol::GoldenFile;
using protocol::RegressionFile;
using protocol::parse_golden_text;
using protocol::parse_hex32;
using protocol::read_golden_backward_file;
using protocol::read_golden_file;
using protocol::read_regression_file;


using ojson = nlohmann::ordered_json;
using Edit = std::function<void(ojson&)>;

// A defect planted in a valid corpus file: the test's name, the file it is written as, the edit that plants
// it, and the message the reader must refuse it with after the file's path.
struct Defect {
  const char* name;
  const char* file;
  Edit edit;
  std::string message;
};

void PrintTo(const Defect& d, std::ostream* os) { *os << d.name; }

// The message a format's reader refuses `file` with once `edit` planted a defect in its valid file.
using Refusal = std::string (*)(const std::string& file, const Edit& edit);

std::string defect_name(const ::testing::TestParamInfo<std::tuple<Refusal, Defect>>& info) {
  return std::get<1>(info.param).name;
}

// The legacy formats' files: corpus/ holds ordo.corpus/1 since the move (protocol/corpus_legacy.h).
const std::filesystem::path kCorpus = std::filesystem::path(ORDO_SOURCE_DIR) / "tests" / "data" / "legacy-corpus";

std::string temp_path(const std::string& name) { return ordo::testing::process_temp_path("corpus_parser_" + name); }

std::string write_text(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

using ordo::testing::corpus_error_of;

// A valid ordo.golden/1 file: one case, M = 1, N = 2, K = 2, with a bias.
ojson golden_json() {
  ojson c = {{"family", "uniform"}, {"M", 1}, {"N", 2}, {"K", 2},
             {"x", {"3f800000", "40000000"}}, {"w", {"3f800000", "3f800000", "bf800000", "00000000"}},
             {"bias", {"00000000", "3f800000"}}, {"y", {"40400000", "bf800000"}}};
  return {{"schema", "ordo.golden/1"}, {"variant", "v"}, {"contract", "fwd.f32.fma-chain/1"},
          {"gpu", "none"},             {"commit", "c"},  {"cases", ojson::array({c})}};
}

// The golden file after `edit`, written as `name`; returns its path.
std::string golden_file(const std::string& name, const Edit& edit) {
  ojson j = golden_json();
  edit(j);
  return write_text(name, j.dump());
}

// The message `read` refuses a file with: the valid file `valid()` after `edit`, written as `name`.
template <class Read>
std::string edited_file_error(ojson (*valid)(), Read read, const std::string& name, const Edit& edit) {
  ojson j = valid();
  edit(j);
  return corpus_error_of(read, write_text(name, j.dump()));
}

std::string golden_error(const std::string& path) { return corpus_error_of(read_golden_file, path); }

void set_case(ojson& j, const char* field, const ojson& v) { j["cases"][0][field] = v; }

const char* const kHexRule = "must be exactly 8 hex digits (a binary32 bit pattern, no 0x, sign or spaces), got ";

TEST(GoldenParser, TheBaseFileReads) {
  const GoldenFile f = read_golden_file(golden_file("base.json", [](ojson&) {}));
  ASSERT_EQ(f.cases.size(), 1u);
  EXPECT_TRUE(f.cases[0].problem.shapes_consistent());
  EXPECT_EQ(f.cases[0].problem.x[1], 2.0f);
}

TEST(GoldenParser, UpperCaseHexIsAccepted) {
  const GoldenFile f = read_golden_file(golden_file("hex_upper.json", [](ojson& j) { j["cases"][0]["w"][2] = "BF800000"; }));
  EXPECT_EQ(f.cases[0].problem.w[2], -1.0f);
}

TEST(GoldenParser, ADuplicateCaseKeyIsRefused) {
  std::string text = golden_json().dump();
  const std::string m = "\"M\":1,";
  text.replace(text.find(m), m.size(), "\"M\":1,\"M\":1,");
  const std::string p = write_text("duplicate_case.json", text);
  EXPECT_EQ(golden_error(p), p + ": case 0: M: field given twice");
}

TEST(GoldenParser, ADuplicateHeaderKeyIsRefused) {
  std::string text = golden_json().dump();
  text.insert(1, "\"variant\":\"w\",");
  const std::string p = write_text("duplicate_header.json", text);
  EXPECT_EQ(golden_error(p), p + ": variant: field given twice");
}

TEST(GoldenParser, ATruncatedFileIsInvalidJson) {
  const std::string text = golden_json().dump();
  const std::string p = write_text("truncated.json", text.substr(0, text.size() / 2));
  EXPECT_EQ(golden_error(p).rfind(p + ": not valid JSON: parse error at line 1, column ", 0), 0u) << golden_error(p);
}

TEST(GoldenParser, ANumberThatOverflowsADoubleIsInvalidJson) {
  // nlohmann reports this one as out_of_range, not parse_error: it must still be a CorpusError.
  std::string text = golden_json().dump();
  text.replace(text.find("\"M\":1"), 5, "\"M\":1e999");
  const std::string p = write_text("overflow.json", text);
  EXPECT_EQ(golden_error(p), p + ": not valid JSON: number overflow parsing '1e999'");
}

TEST(GoldenParser, DeepNestingIsRefusedWhileParsing) {
  const std::string p = write_text("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_EQ(golden_error(p), p + ": nested deeper than 32 levels: not a corpus file");
}

// One defect each in the valid ordo.golden/1 file, with the located message after the file's path. The test
// names are GoldenParser/CorpusFileDefect.IsRefusedWithItsLocatedMessage/<name>.
std::vector<Defect> golden_defects() {
  return {
      // The brief's crash: M * K wrapped, and a few values went into a problem claiming 2^62 rows.
      {"MOf2To62Plus1IsALocatedErrorNotACrash", "m_huge.json",
       [](ojson& j) { set_case(j, "M", (std::uint64_t{1} << 62) + 1); },
       ": case 0: M: must be an integer in [1, 2147483648], got 4611686018427387905"},
      {"AnElementCountAbove2To40IsALocatedError", "mk_product.json",
       [](ojson& j) {
         set_case(j, "M", std::int64_t{1} << 31);
         set_case(j, "K", std::int64_t{1} << 31);
       },
       ": case 0: x: M*K = 2147483648 * 2147483648 is more than 2^40 elements"},
      {"MAsAFloatIsRefused", "m_float.json", [](ojson& j) { set_case(j, "M", 3.0); },
       ": case 0: M: must be an integer in [1, 2147483648], got 3.0"},
      {"MAsAStringIsRefused", "m_string.json", [](ojson& j) { set_case(j, "M", "3"); },
       ": case 0: M: must be an integer in [1, 2147483648], got the string \"3\""},
      {"NegativeMIsRefused", "m_negative.json", [](ojson& j) { set_case(j, "M", -1); },
       ": case 0: M: must be an integer in [1, 2147483648], got -1"},
      {"MAsABoolIsRefused", "m_bool.json", [](ojson& j) { set_case(j, "M", true); },
       ": case 0: M: must be an integer in [1, 2147483648], got true"},
      {"HexWithTrailingJunkIsRefused", "hex_junk.json", [](ojson& j) { j["cases"][0]["x"][1] = "3f800000x"; },
       std::string(": case 0: x[1]: ") + kHexRule + "\"3f800000x\""},
      {"HexWith0xPrefixIsRefused", "hex_0x.json", [](ojson& j) { j["cases"][0]["w"][2] = "0xbf800000"; },
       std::string(": case 0: w[2]: ") + kHexRule + "\"0xbf800000\""},
      {"HexWithNineDigitsIsRefused", "hex_nine.json", [](ojson& j) { j["cases"][0]["y"][0] = "040400000"; },
       std::string(": case 0: y[0]: ") + kHexRule + "\"040400000\""},
      {"HexWithSevenDigitsIsRefused", "hex_seven.json", [](ojson& j) { j["cases"][0]["bias"][1] = "3f80000"; },
       std::string(": case 0: bias[1]: ") + kHexRule + "\"3f80000\""},
      // Eight characters, so only the digit check can refuse it (stoul skips leading spaces).
      {"HexWithASpaceIsRefused", "hex_space.json", [](ojson& j) { j["cases"][0]["x"][0] = " 3f80000"; },
       std::string(": case 0: x[0]: ") + kHexRule + "\" 3f80000\""},
      {"HexWithASignIsRefused", "hex_sign.json", [](ojson& j) { j["cases"][0]["x"][0] = "+3f80000"; },
       std::string(": case 0: x[0]: ") + kHexRule + "\"+3f80000\""},
      {"HexAsANumberIsRefused", "hex_number.json", [](ojson& j) { j["cases"][0]["x"][0] = 1065353216; },
       ": case 0: x[0]: must be a string of 8 hex digits (a binary32 bit pattern), got 1065353216"},
      {"XWithOneValueTooFewIsRefused", "x_short.json", [](ojson& j) { j["cases"][0]["x"].erase(1); },
       ": case 0: x: must hold 2 values (M*K), found 1"},
      {"BiasWithOneValueTooManyIsRefused", "bias_long.json",
       [](ojson& j) { j["cases"][0]["bias"].push_back("00000000"); },
       ": case 0: bias: must hold 2 values (N), found 3"},
      {"AnUnknownCaseFieldIsRefused", "unknown_case.json", [](ojson& j) { set_case(j, "colour", "red"); },
       ": case 0: colour: unknown field"},
      {"AnUnknownHeaderFieldIsRefused", "unknown_header.json", [](ojson& j) { j["comment"] = "hi"; },
       ": comment: unknown field"},
      {"AMissingCaseFieldIsRefused", "missing_y.json", [](ojson& j) { j["cases"][0].erase("y"); },
       ": case 0: y: required field missing"},
      {"AMissingHeaderFieldIsRefused", "missing_gpu.json", [](ojson& j) { j.erase("gpu"); },
       ": gpu: required field missing"},
      {"AWrongSchemaIsRefused", "schema.json", [](ojson& j) { j["schema"] = "ordo.golden/2"; },
       ": schema: must be \"ordo.golden/1\", got \"ordo.golden/2\""},
      {"AMissingSchemaIsRefused", "no_schema.json", [](ojson& j) { j.erase("schema"); },
       ": schema: required field missing"},
      {"AnUnknownYDtypeIsRefused", "y_dtype.json", [](ojson& j) { set_case(j, "y_dtype", "f16"); },
       ": case 0: y_dtype: must be \"f32\" or \"bf16\", got \"f16\""},
      {"AFileWithoutCasesIsRefused", "no_cases.json", [](ojson& j) { j["cases"] = ojson::array(); },
       ": cases: must hold at least one case"},
      {"ACaseThatIsNotAnObjectIsRefused", "case_array.json", [](ojson& j) { j["cases"].push_back(ojson::array()); },
       ": case 1: must be a JSON object, got an array of 0"},
  };
}

TEST(GoldenParser, AFileOver256MiBIsRefusedUnread) {
  const std::string p = temp_path("huge.json");
  std::ofstream(p).put('{');
  std::filesystem::resize_file(p, (std::uintmax_t{256} << 20) + 1);  // sparse: nothing is written
  EXPECT_EQ(golden_error(p), p + ": the file is 268435457 bytes; ordo reads corpus files of at most 256 MiB");
  std::filesystem::remove(p);
}

TEST(GoldenParser, AMissingFileIsALocatedError) {
  const std::string p = temp_path("does_not_exist.json");
  EXPECT_EQ(golden_error(p), p + ": cannot open: No such file or directory");
}

TEST(GoldenParser, ParseFromTextNamesTheSource) {
  EXPECT_EQ(corpus_error_of([](const std::string& t) { return parse_golden_text(t, "<text>"); }, "[]"),
            "<text>: must be a JSON object, got an array of 0");
}

// ---- ordo.golden-backward/1 --------------------------------------------------------------------

// A valid dW file: T = 2 rows with keys of width 2, N = 1, K = 1, a db.
ojson backward_json() {
  ojson c = {{"family", "uniform"}, {"kind", "dw"}, {"T", 2}, {"N", 1}, {"K", 1},
             {"x", {"3f800000", "40000000"}}, {"g", {"3f800000", "3f800000"}},
             {"keys", {{"width", 2}, {"values", {5, 1, 5, 2}}}}, {"dw", {"40400000"}}, {"db", {"40000000"}}};
  return {{"schema", "ordo.golden-backward/1"}, {"variant", "v"}, {"contract", "bwd.dw.f32.fma-chain/1"},
          {"gpu", "none"}, {"commit", "c"}, {"cases", ojson::array({c})}};
}

std::string backward_error(const std::string& name, const Edit& edit) {
  return edited_file_error(backward_json, read_golden_backward_file, name, edit);
}

TEST(GoldenBackwardParser, TheBaseFileReads) {
  const GoldenBackwardFile f = read_golden_backward_file(write_text("bwd_base.json", backward_json().dump()));
  ASSERT_EQ(f.cases.size(), 1u);
  ASSERT_TRUE(f.cases[0].weight.has_value());
  EXPECT_EQ(f.cases[0].weight->keys->values, (std::vector<std::int64_t>{5, 1, 5, 2}));
  EXPECT_TRUE(validate(*f.cases[0].weight).ok());
}

// One defect each in the valid ordo.golden-backward/1 file, with the located message after the file's path. The test
// names are GoldenBackwardParser/CorpusFileDefect.IsRefusedWithItsLocatedMessage/<name>.
std::vector<Defect> golden_backward_defects() {
  return {
      {"AKeysWidthOf4IsRefused", "bwd_width.json", [](ojson& j) { j["cases"][0]["keys"]["width"] = 4; },
       ": case 0: keys.width: must be an integer in [2, 3], got 4"},
      {"AKeyThatIsNotAnExactIntegerIsRefused", "bwd_key_float.json",
       [](ojson& j) { j["cases"][0]["keys"]["values"][1] = 1.5; },
       ": case 0: keys.values[1]: must be an integer in [-9223372036854775808, 9223372036854775807], got 1.5"},
      {"AKeyAboveInt64IsRefused", "bwd_key_big.json",
       [](ojson& j) { j["cases"][0]["keys"]["values"][0] = std::uint64_t{1} << 63; },
       ": case 0: keys.values[0]: must be an integer in [-9223372036854775808, 9223372036854775807], got "
       "9223372036854775808"},
      {"KeysOfTheWrongCountAreRefused", "bwd_key_count.json",
       [](ojson& j) { j["cases"][0]["keys"]["values"].erase(3); },
       ": case 0: keys.values: must hold 4 values (T*width), found 3"},
      {"AnUnknownKeysFieldIsRefused", "bwd_key_field.json", [](ojson& j) { j["cases"][0]["keys"]["dtype"] = "i64"; },
       ": case 0: keys.dtype: unknown field"},
      {"DuplicateKeysAreRefusedWithTheValidateReason", "bwd_dup_key.json",
       [](ojson& j) { j["cases"][0]["keys"]["values"][3] = 1; },
       ": case 0: the problem is invalid: duplicate_key: rows 0 and 1 share the key (5, 1)"},
      {"APaddingRowWithAGradientIsRefused", "bwd_padding.json",
       [](ojson& j) { j["cases"][0]["keys"]["values"][2] = -1; },
       ": case 0: the problem is invalid: padding_gradient_nonzero: padding row 1 (key (-1, 2)) has gradient "
       "0x3f800000 (1) in column 0"},
      {"NegativeTIsRefused", "bwd_t.json", [](ojson& j) { j["cases"][0]["T"] = -1; },
       ": case 0: T: must be an integer in [0, 2147483648], got -1"},
      {"AnUnknownKindIsRefused", "bwd_kind.json", [](ojson& j) { j["cases"][0]["kind"] = "dz"; },
       ": case 0: kind: must be \"dx\" or \"dw\", got \"dz\""},
      {"ACaseOfTheOtherOperationIsRefused", "bwd_kind_dx.json", [](ojson& j) { j["cases"][0]["kind"] = "dx"; },
       ": case 0: kind: a \"dx\" case in a file whose contract is a dW contract"},
      {"NonBf16OperandsUnderABf16ContractAreRefused", "bwd_bf16.json",
       [](ojson& j) {
         j["contract"] = "bwd.dw.bf16.tc-fdpa-sm90/1";
         j["cases"][0]["x"][1] = "3f800001";
       },
       std::string(": case 0: the problem is invalid: wrong_dtype: X[1] = ") + describe_float(float_of(0x3f800001u)) +
           " is not a bfloat16"},
      {"MOf2To62Plus1InADxCaseIsRefused", "bwd_dx_m.json",
       [](ojson& j) {
         j["contract"] = "bwd.dx.f32.fma-chain/1";
         j["cases"][0] = {{"family", "u"},
                          {"kind", "dx"},
                          {"M", (std::uint64_t{1} << 62) + 1},
                          {"N", 1},
                          {"K", 1},
                          {"g", {"3f800000"}},
                          {"w", {"3f800000"}},
                          {"dx", {"3f800000"}}};
       },
       ": case 0: M: must be an integer in [1, 2147483648], got 4611686018427387905"},
  };
}

// ---- ordo.regression/1 -------------------------------------------------------------------------

ojson regression_json() {
  std::ifstream in(kCorpus / "regressions" / "seed-dw-permutation.json");
  return ojson::parse(in);
}

std::string regression_error(const std::string& name, const Edit& edit) {
  return edited_file_error(regression_json, read_regression_file, name, edit);
}

TEST(RegressionParser, TheRealFileReads) {
  const RegressionFile f = read_regression_file(write_text("reg_base.json", regression_json().dump()));
  EXPECT_EQ(f.cases.size(), 4u);
}

// One defect each in the valid ordo.regression/1 file, with the located message after the file's path. The test
// names are RegressionParser/CorpusFileDefect.IsRefusedWithItsLocatedMessage/<name>.
std::vector<Defect> regression_defects() {
  return {
      {"AWrongSchemaIsRefused", "reg_schema.json", [](ojson& j) { j["schema"] = "ordo.golden/1"; },
       ": schema: must be \"ordo.regression/1\", got \"ordo.golden/1\""},
      {"AMissingSchemaIsRefused", "reg_no_schema.json", [](ojson& j) { j.erase("schema"); },
       ": schema: required field missing"},
      {"TOf2To62Plus1IsRefused", "reg_t.json", [](ojson& j) { j["T"] = (std::uint64_t{1} << 62) + 1; },
       ": T: must be an integer in [1, 2147483648], got 4611686018427387905"},
      {"AShortRowIsRefused", "reg_row.json", [](ojson& j) { j["x"][1].erase(0); },
       ": x[1]: must hold 32 values, found 31"},
      // select_rows indexes X and G with these unchecked: it must never see one outside [0, T).
      {"ARowIndexOutOfRangeIsRefused", "reg_index.json", [](ojson& j) { j["cases"][0]["rows"][1] = 3; },
       ": case 0: rows[1]: must be an integer in [0, 2], got 3"},
      {"ARowSelectedTwiceIsRefused", "reg_twice.json", [](ojson& j) { j["cases"][1]["rows"][2] = 0; },
       ": case 1: rows[2]: row 0 is selected twice"},
      {"AnUnknownContractIsRefused", "reg_contract.json", [](ojson& j) { j["contract"] = "bwd.dw.f99/1"; },
       ": contract: unknown contract \"bwd.dw.f99/1\" (a built-in id is needed)"},
      {"UseKeysWithoutKeysIsRefused", "reg_keys.json", [](ojson& j) { j.erase("keys"); },
       ": case 2: use_keys: is true, but the file has no keys"},
      {"DbWithoutBiasGradientIsRefused", "reg_db.json", [](ojson& j) { j["with_bias_grad"] = false; },
       ": case 0: db: given, but with_bias_grad is false"},
      {"AnUnknownCaseFieldIsRefused", "reg_unknown.json", [](ojson& j) { j["cases"][3]["note"] = "x"; },
       ": case 3: note: unknown field"},
  };
}

std::string golden_file_error(const std::string& name, const Edit& edit) {
  return edited_file_error(golden_json, read_golden_file, name, edit);
}

// Each defect written into the valid file of its format and read by that format's reader (the first of the
// pair: golden_file_error, backward_error or regression_error).
class CorpusFileDefect : public ::testing::TestWithParam<std::tuple<Refusal, Defect>> {};

TEST_P(CorpusFileDefect, IsRefusedWithItsLocatedMessage) {
  const auto& [refusal, d] = GetParam();
  EXPECT_EQ(refusal(d.file, d.edit), temp_path(d.file) + d.message);
}

INSTANTIATE_TEST_SUITE_P(GoldenParser, CorpusFileDefect,
                         ::testing::Combine(::testing::Values(golden_file_error),
                                            ::testing::ValuesIn(golden_defects())),
                         defect_name);
INSTANTIATE_TEST_SUITE_P(GoldenBackwardParser, CorpusFileDefect,
                         ::testing::Combine(::testing::Values(backward_error),
                                            ::testing::ValuesIn(golden_backward_defects())),
                         defect_name);
INSTANTIATE_TEST_SUITE_P(RegressionParser, CorpusFileDefect,
                         ::testing::Combine(::testing::Values(regression_error),
                                            ::testing::ValuesIn(regression_defects())),
                         defect_name);

// ---- ordo.contract/1: what fuzz_contract_file found (fuzz/regressions/fuzz_contract_file/) ---------

std::string contract_error(const std::string& text) {
  try {
    contract_from_text(text, "c.json");
  } catch (const ContractFileError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw an exception that is not a ContractFileError: " << e.what();
    return "";
  }
  ADD_FAILURE() << "accepted";
  return "";
}

TEST(ContractParser, ANumberThatOverflowsADoubleIsAContractFileError) {
  // nlohmann throws out_of_range, not parse_error, for this one; it used to escape the parser.
  EXPECT_EQ(contract_error("{\"schema\": 1e999}"),
            "c.json: not valid JSON: [json.exception.out_of_range.406] number overflow parsing '1e999'");
}

TEST(ContractParser, DeepNestingIsRefusedBeforeAnythingRecursesOnIt) {
  // 20000 levels in a field's value overflowed the stack when the message dumped it.
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  EXPECT_EQ(contract_error("{\"schema\": \"ordo.contract/1\", \"output\": [" + deep + "]}"),
            "c.json: nested deeper than 64 levels: not a contract file");
}

// ---- the real corpus -----------------------------------------------------------------------------

TEST(CorpusFiles, EveryRealGoldenCasePassesTheOraclesChecks) {
  // The problems the reader builds are ones the emulator accepts: shapes, bf16 operands, output dtype.
  std::size_t cases = 0;
  for (const auto& e : std::filesystem::directory_iterator(kCorpus / "golden")) {
    const GoldenFile f = read_golden_file(e.path().string());
    const Contract contract = resolve_contract(f.contract);
    for (std::size_t i = 0; i < f.cases.size(); ++i, ++cases)
      EXPECT_TRUE(check_dot_problem(contract.plan, f.cases[i].problem).ok()) << e.path() << " case " << i;
  }
  for (const auto& e : std::filesystem::directory_iterator(kCorpus / "golden-backward")) {
    const GoldenBackwardFile f = read_golden_backward_file(e.path().string());
    for (const GoldenBackwardCase& c : f.cases) {
      EXPECT_TRUE(c.data ? validate(*c.data).ok() : validate(*c.weight).ok()) << e.path();
      ++cases;
    }
  }
  EXPECT_GE(cases, 300u);
}

TEST(StrictJson, Hex32IsExactlyEightDigits) {
  EXPECT_EQ(parse_hex32("7fC00001"), 0x7fc00001u);
  EXPECT_EQ(parse_hex32("00000000"), 0u);
  EXPECT_EQ(parse_hex32("ffffffff"), 0xffffffffu);
  for (const char* bad : {"", "0", "fffffff", "fffffffff", "0x000000", "-0000000", "+0000000", " 0000000",
                          "0000000 ", "0000000g", "0000\n000"})
    EXPECT_FALSE(parse_hex32(bad).has_value()) << '"' << bad << '"';
  // Eight characters, the fifth a NUL ("0000\0000" was six, and the view read past its end).
  EXPECT_FALSE(parse_hex32(std::string_view("0000\0"
                                            "000",
                                            8))
                   .has_value());
}

}  // namespace
}  // namespace ordo::properties
