// The ordo.corpus/1 format (protocol/corpus_entry.h): every bit survives a write and a read, large
// tensors go to .npy files whose digests are checked, and each kind of corrupt entry is refused with its
// location (a changed value is a replay mismatch naming the case and the element; a truncated file, a
// wrong digest, a missing .npy, an unknown field, a bad schema are read errors). Failure entries from
// campaigns: named by digest, written once, safe from several threads, replayed as failures.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "properties/backward_case.h"
#include "properties/corpus_failures.h"
#include "protocol/corpus_entry.h"
#include "properties/corpus_replay.h"
#include "protocol/sha256.h"
#include "protocol/strict_json.h"
#include "protocol/npy.h"
#include "subjects/backward_subject.h"
#include "corpus_error.h"
#include "test_support.h"

namespace ordo::properties {
namespace {
using protocol::CorpusEntry;
using protocol::CorpusError;
using protocol::CorpusReadOptions;
using protocol::EntryKind;
using protocol::Sha256;
using protocol::expected_sha256;
using protocol::parse_hex32;
using protocol::read_corpus_entry;
using protocol::read_corpus_file;
using protocol::sha256_hex;
using protocol::values_sha256;
using protocol::write_corpus_entry;


namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// An empty folder of this run's own (two runs at once never share it).
fs::path fresh_dir(const std::string& name) { return ordo::testing::unique_temp_dir("corpus-entry-" + name); }

ojson load(const fs::path& p) {
  std::ifstream in(p);
  return ojson::parse(in);
}

void save(const fs::path& p, const ojson& j) { std::ofstream(p) << j.dump(1) << "\n"; }

ForwardCase forward_case(std::int64_t M, std::int64_t N, std::int64_t K, bool bf16 = false) {
  ForwardCase c;
  c.M = M;
  c.N = N;
  c.K = K;
  c.has_bias = true;
  c.seed = 0x5eed0000u + static_cast<std::uint64_t>(M * 1000 + N * 10 + K);
  c.bf16_operands = bf16;
  c.bf16_output = bf16;
  return c;
}

// A golden entry of one forward case whose expected Y is the emulator's own output.
CorpusEntry forward_entry(const ForwardCase& fc, const Contract& contract = contract_fwd_f32_fma_chain()) {
  CorpusEntry e;
  e.kind = EntryKind::golden;
  e.why = "test";
  e.contract = contract;
  e.subject = "test.subject";
  const ForwardProblem p = fc.materialize();
  e.cases.push_back({"uniform", p, {}, {}, oracle::emulate_dot(contract.plan, p), {}, ""});
  return e;
}

// The message read_corpus_entry refuses `path` with (a failure if it accepts it or throws another type).
std::string read_error(const std::string& path) {
  return ordo::testing::corpus_error_of([](const std::string& p) { return read_corpus_entry(p); }, path);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits_of(a[i]) != bits_of(b[i])) return false;
  return true;
}

std::string flip_low_bit(const std::string& hex) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", *parse_hex32(hex) ^ 1u);
  return buf;
}

std::size_t json_files_in(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".json" ? 1 : 0;
  return n;
}

TEST(Sha256, FipsTestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 million;
  const std::string chunk(1000, 'a');  // fed in pieces: the buffering across updates is exercised
  for (int i = 0; i < 1000; ++i) million.update(chunk);
  EXPECT_EQ(million.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CorpusEntry, EveryBitSurvivesForwardDxAndDwWithKeysAndPadding) {
  const fs::path dir = fresh_dir("roundtrip");
  // Forward, BF16 operands and a BF16 Y; special values in X (NaN payload, -0, a subnormal).
  ForwardCase fc = forward_case(3, 5, 17, true);
  ForwardProblem p = fc.materialize();
  p.x[0] = float_of(0xFFC10000u);
  p.x[1] = -0.0f;
  p.x[2] = float_of(0x00010000u);
  fc.explicit_values = p;
  CorpusEntry fwd = forward_entry(fc, contract_fwd_bf16_tc_fdpa_sm90());
  fwd.cases[0].forward = p;
  fwd.cases[0].expected = oracle::emulate_dot(contract_fwd_bf16_tc_fdpa_sm90().plan, p);
  write_corpus_entry((dir / "fwd.json").string(), fwd);
  const CorpusEntry f = read_corpus_entry((dir / "fwd.json").string());
  ASSERT_EQ(f.cases.size(), 1u);
  EXPECT_TRUE(same_bits(f.cases[0].forward->x, p.x));
  EXPECT_TRUE(same_bits(f.cases[0].forward->w, p.w));
  EXPECT_TRUE(same_bits(*f.cases[0].forward->bias, *p.bias));
  EXPECT_TRUE(f.cases[0].forward->bf16_output);
  EXPECT_TRUE(same_bits(f.cases[0].expected, fwd.cases[0].expected));
  EXPECT_EQ(f.cases[0].expected_sha256, expected_sha256(fwd.cases[0].expected, std::nullopt));
  EXPECT_EQ(replay_entry(f, "fwd.json").outcome, ReplayOutcome::pass);

  // dX and dW/db with keys of width 3 and padding rows, through the backward emulators.
  const Contract& dx_contract = contract_bwd_dx_f32_fma_chain();
  const Contract& dw_contract = contract_bwd_dw_f32_fma_chain();
  CorpusEntry dx{EntryKind::regression, "dx", dx_contract, "", "", "", "", {}, std::nullopt};
  const BackwardDataProblem dp = data_problem(forward_case(4, 6, 9));
  dx.cases.push_back({"dx", {}, dp, {}, make_backward_emulator_subject(dx_contract)->data(dp).y, {}, ""});
  CorpusEntry dw{EntryKind::regression, "dw", dw_contract, "", "", "", "", {}, std::nullopt};
  const BackwardWeightProblem wp = with_padding(weight_problem(forward_case(5, 4, 11), 3), 3, 7);
  const BackwardWeightRun wr = make_backward_emulator_subject(dw_contract)->weight({wp});
  dw.cases.push_back({"dw", {}, {}, wp, wr.result.dw, wr.result.db, ""});
  write_corpus_entry((dir / "dx.json").string(), dx);
  write_corpus_entry((dir / "dw.json").string(), dw);
  const CorpusEntry x = read_corpus_entry((dir / "dx.json").string());
  EXPECT_TRUE(same_bits(x.cases[0].data->g, dp.g) && same_bits(x.cases[0].data->w, dp.w));
  const CorpusEntry w = read_corpus_entry((dir / "dw.json").string());
  const BackwardWeightProblem& q = *w.cases[0].weight;
  EXPECT_TRUE(same_bits(q.x, wp.x) && same_bits(q.g, wp.g));
  ASSERT_TRUE(q.keys.has_value());
  EXPECT_EQ(q.keys->width, 3);
  EXPECT_EQ(q.keys->values, wp.keys->values);
  EXPECT_TRUE(same_bits(*w.cases[0].expected_db, *wr.result.db));
  EXPECT_EQ(load(dir / "dw.json")["cases"][0]["row_order"], "keys");
  EXPECT_EQ(replay_entry(x, "dx.json").outcome, ReplayOutcome::pass);
  EXPECT_EQ(replay_entry(w, "dw.json").outcome, ReplayOutcome::pass);
}

TEST(CorpusEntry, AContractFileIsEmbeddedAndAnIdIsFoundInTheContractFolder) {
  const fs::path dir = fresh_dir("contract");
  const Contract seg = load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json");
  const std::string path = (dir / "e.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 3, 600), seg));
  ojson j = load(path);
  ASSERT_TRUE(j["contract"].is_object());  // replays without the file it came from
  const CorpusEntry e = read_corpus_entry(path);
  EXPECT_EQ(contract_to_json(e.contract), contract_to_json(seg));
  EXPECT_EQ(replay_entry(e, path).outcome, ReplayOutcome::pass);
  // By id: refused unless the contract folder states it.
  j["contract"] = seg.id;
  save(path, j);
  EXPECT_NE(read_error(path).find(path + ": contract: unknown contract \"user.fwd.f32.seg256-ascending/1\": not a built-in id"),
            std::string::npos);
  CorpusReadOptions options;
  options.contracts = load_contract_dir(std::string(ORDO_SOURCE_DIR) + "/contracts");
  EXPECT_EQ(replay_corpus_file(path, options).outcome, ReplayOutcome::pass);
}

// An entry with X and W in .npy files: K = 5000 puts them over the 4096-value limit; BF16 operands.
std::string npy_entry(const fs::path& dir) {
  std::string path = (dir / "big.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 3, 5000, true), contract_fwd_bf16_tc_fdpa_sm90()));
  return path;
}

TEST(CorpusEntry, LargeTensorsGoToNpyFilesBesideTheEntry) {
  const fs::path dir = fresh_dir("npy");
  const std::string path = npy_entry(dir);
  const ojson j = load(path);
  EXPECT_EQ(j["cases"][0]["x"]["npy"], "big.case0.x.npy");
  EXPECT_TRUE(j["cases"][0]["expected"]["y"].is_array());  // 6 values stay text
  EXPECT_EQ(protocol::read_npy((dir / "big.case0.x.npy").string()).dtype, protocol::NpyDtype::u2);  // bf16 as '<u2'
  const CorpusEntry e = read_corpus_entry(path);
  const ForwardProblem want = forward_case(2, 3, 5000, true).materialize();
  EXPECT_TRUE(same_bits(e.cases[0].forward->x, want.x));
  EXPECT_TRUE(same_bits(e.cases[0].forward->w, want.w));
  EXPECT_EQ(j["cases"][0]["x"]["sha256"], values_sha256(want.x));
  EXPECT_EQ(replay_entry(e, path).outcome, ReplayOutcome::pass);

  // Keys of 3000 tokens, width 2: 6000 int64 values in an '<i8' file; X and G (3000 values) stay text.
  const Contract& dw_contract = contract_bwd_dw_f32_fma_chain();
  const BackwardWeightProblem wp = weight_problem(forward_case(1, 1, 3000), 2);
  CorpusEntry dw{EntryKind::regression, "keys", dw_contract, "", "", "", "", {}, std::nullopt};
  const BackwardWeightRun wr = make_backward_emulator_subject(dw_contract)->weight({wp});
  dw.cases.push_back({"keys", {}, {}, wp, wr.result.dw, wr.result.db, ""});
  const std::string keys_path = (dir / "keys.json").string();
  write_corpus_entry(keys_path, dw);
  EXPECT_EQ(load(keys_path)["cases"][0]["keys"]["values"]["npy"], "keys.case0.keys.npy");
  EXPECT_EQ(protocol::read_npy((dir / "keys.case0.keys.npy").string()).dtype, protocol::NpyDtype::i8);
  const CorpusEntry k = read_corpus_entry(keys_path);
  EXPECT_EQ(k.cases[0].weight->keys->values, wp.keys->values);
  EXPECT_EQ(replay_entry(k, keys_path).outcome, ReplayOutcome::pass);
}

TEST(CorpusEntryErrors, ATruncatedFileIsRefused) {
  const fs::path dir = fresh_dir("truncated");
  const std::string path = (dir / "t.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 2, 3)));
  std::string text = read_corpus_file(path);
  std::ofstream(path, std::ios::trunc) << text.substr(0, text.size() / 2);
  EXPECT_EQ(read_error(path).rfind(path + ": not valid JSON: ", 0), 0u) << read_error(path);
  EXPECT_EQ(replay_corpus_file(path).outcome, ReplayOutcome::malformed);
}

TEST(CorpusEntryErrors, AnNpyWithTheWrongDigestOrSwappedIsRefused) {
  const fs::path dir = fresh_dir("digest");
  const std::string path = npy_entry(dir);
  ojson j = load(path);
  const std::string recorded = j["cases"][0]["x"]["sha256"];
  j["cases"][0]["x"]["sha256"] = std::string(64, '0');
  save(path, j);
  EXPECT_EQ(read_error(path), path + ": case 0: x.sha256: the values of the .npy have SHA-256 " + recorded +
                                  ", the entry records " + std::string(64, '0') + ": not the file this entry was written with");
  // The digest put back, and a file of the same shape and dtype with one value changed put in its place.
  j["cases"][0]["x"]["sha256"] = recorded;
  save(path, j);
  protocol::NpyArray a = protocol::read_npy((dir / "big.case0.x.npy").string());
  a.data[0] ^= 1;
  protocol::write_npy((dir / "big.case0.x.npy").string(), a.dtype, a.shape, a.data.data(), a.data.size());
  EXPECT_NE(read_error(path).find(path + ": case 0: x.sha256: the values of the .npy have SHA-256 "), std::string::npos);
  EXPECT_EQ(replay_corpus_file(path).outcome, ReplayOutcome::malformed);
}

TEST(CorpusEntryErrors, AMissingNpyOrOneOutsideTheFolderIsRefused) {
  const fs::path dir = fresh_dir("missing");
  const std::string path = npy_entry(dir);
  fs::remove(dir / "big.case0.w.npy");
  EXPECT_EQ(read_error(path), path + ": case 0: w.npy: names big.case0.w.npy, which is missing beside the entry");
  ojson j = load(path);
  j["cases"][0]["w"]["npy"] = "../big.case0.x.npy";
  save(path, j);
  EXPECT_EQ(read_error(path), path +
                                  ": case 0: w.npy: must be the plain name of an .npy file beside the entry (no folder, not "
                                  "hidden), got \"../big.case0.x.npy\"");
}

// An id is a claim about the arithmetic: an entry embedding a contract under a built-in id with another
// plan (segments of 4, and that plan's bits as the expected output) would replay "ok" under the built-in
// id. It is refused wherever a contract is read; so is a contract folder reusing a built-in id.
TEST(CorpusEntryErrors, AnEmbeddedContractUnderABuiltInIdWithAnotherPlanIsRefused) {
  const fs::path dir = fresh_dir("mislabelled");
  Contract seg4 = contract_fwd_f32_fma_chain();
  seg4.id = "user.fwd.f32.seg4/1";
  seg4.plan.structure = KStructure::segments;
  seg4.plan.segment_length = 4;
  seg4.plan.combine = SegmentCombine::ascending_add_rn;
  const std::string path = (dir / "e.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 3, 37), seg4));
  EXPECT_EQ(replay_corpus_file(path).outcome, ReplayOutcome::pass);  // honest under its own id
  ojson j = load(path);
  j["contract"]["id"] = "fwd.f32.fma-chain/1";
  save(path, j);
  EXPECT_NE(read_error(path).find("\"fwd.f32.fma-chain/1\" is a built-in contract with another plan"), std::string::npos)
      << read_error(path);
  EXPECT_EQ(replay_corpus_file(path).outcome, ReplayOutcome::malformed);
  // A contract folder may not restate a built-in id either.
  const fs::path contracts = dir / "contracts";
  fs::create_directories(contracts);
  std::ofstream(contracts / "c.json") << contract_to_json(contract_fwd_f32_fma_chain()).dump();
  EXPECT_THROW(load_contract_dir(contracts.string()), ContractFileError);
}

// An .npy beside the entry that is a symbolic link out of the entry's folder is not followed.
TEST(CorpusEntryErrors, AnNpyLinkOutOfTheFolderIsRefused) {
  const fs::path dir = fresh_dir("npy-link");
  const std::string path = npy_entry(dir);
  const fs::path outside = fs::path(ordo::testing::unique_temp_dir("corpus-entry-outside")) / "ordo-outside-x.npy";
  fs::rename(dir / "big.case0.x.npy", outside);
  fs::create_symlink(outside, dir / "big.case0.x.npy");
  EXPECT_NE(read_error(path).find("leads outside"), std::string::npos) << read_error(path);
}

TEST(CorpusEntryErrors, AnUnknownFieldOrABadSchemaIsRefused) {
  const fs::path dir = fresh_dir("fields");
  const std::string path = (dir / "u.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 2, 3)));
  const ojson good = load(path);
  // The message the good entry is refused with after `edit`.
  const auto error_after = [&](const std::function<void(ojson&)>& edit) {
    ojson j = good;
    edit(j);
    save(path, j);
    return read_error(path);
  };
  EXPECT_EQ(error_after([](ojson& j) { j["cases"][0]["colour"] = "red"; }), path + ": case 0: colour: unknown field");
  EXPECT_EQ(error_after([](ojson& j) { j["cases"][0]["expected"]["y_bits"] = 1; }),
            path + ": case 0: expected.y_bits: unknown field");
  EXPECT_EQ(error_after([](ojson& j) { j["note"] = "x"; }), path + ": note: unknown field");
  EXPECT_EQ(error_after([](ojson& j) { j["schema"] = "ordo.golden/1"; }),
            path + ": schema: must be \"ordo.corpus/1\", got \"ordo.golden/1\"");
  EXPECT_EQ(error_after([](ojson& j) { j["expected_verdict"] = "fail"; }),
            path + ": expected_verdict: must be \"pass\" for a golden entry (the emulator reproduces its bits)");
}

TEST(CorpusEntryErrors, AChangedHexDigitIsAMismatchNamingTheCaseAndTheElement) {
  const fs::path dir = fresh_dir("hex");
  const std::string path = (dir / "h.json").string();
  write_corpus_entry(path, forward_entry(forward_case(2, 3, 4)));
  ojson j = load(path);
  auto& y = j["cases"][0]["expected"]["y"][4];
  const std::string was = y.get<std::string>();
  y = flip_low_bit(was);
  save(path, j);
  const EntryReplay r = replay_corpus_file(path);
  EXPECT_EQ(r.outcome, ReplayOutcome::mismatch);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0], path + ": case 0 (uniform): y[4] (row 1, column 1): the emulator gives " +
                               describe_float(float_of(*parse_hex32(was))) + ", the entry records " +
                               describe_float(float_of(*parse_hex32(flip_low_bit(was)))) +
                               " (1 of 6 elements differ) [the emulator's output has the recorded expected.sha256: the "
                               "recorded values were edited after recording]");
  // The digest alone edited, the values intact: the digest is what is wrong, a malformed entry.
  y = was;
  j["cases"][0]["expected"]["sha256"] = sha256_hex("not these values");
  save(path, j);
  const EntryReplay d = replay_corpus_file(path);
  EXPECT_EQ(d.outcome, ReplayOutcome::malformed);
  EXPECT_NE(d.problems.at(0).find(": case 0 (uniform): expected.sha256: is not the digest of the expected values"),
            std::string::npos);
}

// A failure of `property` on `subject` under `contract`, as a campaign reports it, minimised to `minimised`.
FailureRecordInput failure_of(const Contract& contract, std::string subject, std::string property, std::string detail,
                              std::string reproduce, const ForwardCase& minimised) {
  FailureRecordInput in;
  in.contract = contract;
  in.subject = std::move(subject);
  in.property = std::move(property);
  in.detail = std::move(detail);
  in.reproduce = std::move(reproduce);
  in.minimised_case = minimised;
  return in;
}

FailureRecordInput forward_failure() {
  FailureRecordInput in = failure_of(
      contract_fwd_f32_fma_chain(), "mutant.fwd.f32.k-reversed", "forward.kernel_equals_emulator",
      "1 of 6 elements differ",
      "ordo verify --property forward.kernel_equals_emulator --kernel mutant.fwd.f32.k-reversed --seed 1 --case 4",
      forward_case(2, 3, 4));
  in.seed = 1;
  in.case_index = 4;
  in.expected = oracle::emulate_dot(in.contract.plan, in.minimised_case.materialize());
  in.observed = in.expected;
  in.observed[2] = float_of(bits_of(in.observed[2]) ^ 1u);
  return in;
}

TEST(FailureEntries, AFailureWrittenTwiceIsAlreadyPresentAndWrittenOnce) {
  const fs::path dir = fresh_dir("twice");
  const FailureRecordInput in = forward_failure();
  ASSERT_EQ(add_failure_entry(dir.string(), in), AddOutcome::written);
  const std::string path = failure_entry_path(dir.string(), in);
  EXPECT_EQ(fs::path(path).parent_path(), dir / "failures");
  EXPECT_EQ(fs::path(path).filename().string().rfind("forward.kernel_equals_emulator-", 0), 0u) << path;
  const std::string text = read_corpus_file(path);
  FailureRecordInput again = in;
  again.seed = 99;  // found again by another campaign: the same failure, the same file
  again.case_index = 12;
  EXPECT_EQ(add_failure_entry(dir.string(), again), AddOutcome::already_present);
  EXPECT_EQ(json_files_in(dir / "failures"), 1u);
  EXPECT_EQ(read_corpus_file(path), text);
  // Another subject is another failure.
  again.subject = "mutant.fwd.f32.bias-first";
  EXPECT_EQ(add_failure_entry(dir.string(), again), AddOutcome::written);
  EXPECT_EQ(json_files_in(dir / "failures"), 2u);
}

TEST(FailureEntries, ThreadsAddingOneFailureWriteOneFile) {
  const fs::path dir = fresh_dir("threads");
  const FailureRecordInput in = forward_failure();
  std::atomic<int> written{0}, present{0};
  std::vector<std::thread> threads;
  threads.reserve(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] { (add_failure_entry(dir.string(), in) == AddOutcome::written ? written : present) += 1; });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(written.load(), 1);
  EXPECT_EQ(present.load(), 7);
  EXPECT_EQ(json_files_in(dir / "failures"), 1u);
}

TEST(FailureEntries, AForwardFailureReplaysWhileItStillDocumentsAFailure) {
  const fs::path dir = fresh_dir("forward_failure");
  const FailureRecordInput in = forward_failure();
  add_failure_entry(dir.string(), in);
  const std::string path = failure_entry_path(dir.string(), in);
  const CorpusEntry e = read_corpus_entry(path);
  EXPECT_EQ(e.kind, EntryKind::failure);
  EXPECT_EQ(e.property, in.property);
  EXPECT_EQ(e.failure->reproduce, in.reproduce);
  EXPECT_EQ(e.failure->minimised_case.seed, in.minimised_case.seed);
  const EntryReplay r = replay_entry(e, path);
  EXPECT_EQ(r.outcome, ReplayOutcome::pass) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_EQ(r.note, "observed output differs from the expected in 1 of 6 elements");
  // The observed output made equal to the expected: the entry documents no failure any more.
  const ojson original = load(path);
  ojson j = original;
  j["failure"]["observed"]["y"] = j["cases"][0]["expected"]["y"];
  j["failure"]["observed"]["sha256"] = j["cases"][0]["expected"]["sha256"];
  save(path, j);
  const EntryReplay fixed = replay_corpus_file(path);
  EXPECT_EQ(fixed.outcome, ReplayOutcome::mismatch);
  EXPECT_EQ(fixed.problems.at(0), path + ": failure.observed: equals the expected output: the entry no longer documents a failure");
  // An input changed: the seed no longer materialises it (and the emulator's output moves with it).
  j = original;
  j["cases"][0]["x"][0] = flip_low_bit(j["cases"][0]["x"][0].get<std::string>());
  save(path, j);
  const EntryReplay drift = replay_corpus_file(path);
  EXPECT_EQ(drift.outcome, ReplayOutcome::mismatch);
  ASSERT_FALSE(drift.problems.empty());
  EXPECT_NE(drift.problems.back().find("failure.case: its seed no longer materialises the inputs of case 0"), std::string::npos)
      << drift.problems.back();
}

TEST(FailureEntries, ABackwardFailureKeepsItsMinimisedCaseAndExplicitValues) {
  const fs::path dir = fresh_dir("backward_failure");
  FailureRecordInput in = failure_of(
      contract_bwd_dw_f32_fma_chain(), "mutant.bwd.dw.f32.call-order", "backward.dw_kernel_permutation_invariance",
      "dW[0]: 0x00000000 against 0x33800000",
      "ordo verify --property backward.dw_kernel_permutation_invariance --seed 3 --case 0", forward_case(1, 2, 3));
  ForwardProblem values = in.minimised_case.materialize();
  values.x = {1.0f, float_of(0x33800000u), -1.0f};
  in.minimised_case.explicit_values = values;
  ASSERT_EQ(add_failure_entry(dir.string(), in), AddOutcome::written);
  const std::string path = failure_entry_path(dir.string(), in);
  const CorpusEntry e = read_corpus_entry(path);
  EXPECT_TRUE(e.cases.empty());
  ASSERT_TRUE(e.failure->minimised_case.explicit_values.has_value());
  EXPECT_TRUE(same_bits(e.failure->minimised_case.explicit_values->x, values.x));
  EXPECT_TRUE(same_bits(*e.failure->minimised_case.explicit_values->bias, *values.bias));
  // The backward problem derives from it exactly as it did in the campaign.
  const BackwardWeightProblem a = weight_problem(in.minimised_case, 2), b = weight_problem(forward_case_of(e.failure->minimised_case), 2);
  EXPECT_TRUE(same_bits(a.x, b.x) && same_bits(a.g, b.g) && a.keys->values == b.keys->values);
  EXPECT_EQ(replay_corpus_file(path).outcome, ReplayOutcome::pass);
  in.observed = {1.0f};
  EXPECT_THROW(add_failure_entry(dir.string(), in), std::invalid_argument);
}

}  // namespace
}  // namespace ordo::properties
