// The file protocol end to end on the host: `ordo cases` folders, outputs written by stand-in kernels
// (the emulator of a contract, and kernels that break it in one way each), judged by check_folder and
// identify; and every kind of bad input refused with a message naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/contract.h"
#include "core/contract_file.h"
#include "core/float_bits.h"
#include "oracle/plan_emulator.h"
#include "protocol/case_folder.h"
#include "properties/case_generation.h"
#include "properties/folder_check.h"
#include "properties/identify.h"
#include "protocol/npy.h"
#include "subjects/files_subject.h"
#include "error_message.h"
#include "test_support.h"

namespace ordo::properties {
namespace {
using protocol::CaseFolder;
using protocol::InputError;

std::string fresh_folder(const std::string& name) {
  return ordo::testing::unique_temp_path("files-" + name);
}

CasesOptions small_options(const Contract& c) {
  CasesOptions o;
  o.contract = c;
  o.seed = 7;
  o.shapes = {{130, 9, 70}, {70, 20, 300}};
  o.max_batch = 130;
  return o;
}

// Writes every case's y.npy with `kernel(problem)`.
template <class Kernel>
void run_kernel(CaseFolder& folder, Kernel kernel, bool bf16_y = false) {
  for (const protocol::CaseEntry& c : folder.manifest().cases) {
    ForwardProblem p = folder.inputs(c);
    p.bf16_output = bf16_y;
    const std::vector<float> y = kernel(p);
    const std::string path = folder.folder() + "/" + c.y;
    if (bf16_y) {
      std::vector<std::uint16_t> bits(y.size());
      for (std::size_t i = 0; i < y.size(); ++i) bits[i] = static_cast<std::uint16_t>(bits_of(y[i]) >> 16);
      protocol::write_npy(path, protocol::NpyDtype::u2, {c.M, c.N}, bits.data(), bits.size() * 2);
    } else {
      protocol::write_npy(path, protocol::NpyDtype::f4, {c.M, c.N}, y.data(), y.size() * 4);
    }
  }
}

// Cases of the given shapes and no named contract (what `ordo identify` is handed).
CasesOptions unnamed_contract_cases(std::uint64_t seed, std::vector<ShapeRequest> shapes, std::int64_t max_batch) {
  CasesOptions o;
  o.seed = seed;
  o.shapes = std::move(shapes);
  o.max_batch = max_batch;
  return o;
}

// One case of 8 x 4 x 6 for fwd.f32.fma-chain/1.
CasesOptions one_small_case() {
  CasesOptions o = small_options(contract_fwd_f32_fma_chain());
  o.shapes = {{8, 4, 6}};
  return o;
}

// Every case's y.npy as fwd.f32.fma-chain/1's emulator computes it: the outputs of a correct kernel.
void write_contract_outputs(CaseFolder& folder) {
  run_kernel(folder, [](const ForwardProblem& p) { return oracle::emulate_dot(contract_fwd_f32_fma_chain().plan, p); });
}

const PropertyRun* row(const std::vector<PropertyRun>& rows, const std::string& name) {
  for (const PropertyRun& r : rows)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(FileProtocol, GenerationIsDeterministic) {
  const std::string a = fresh_folder("det-a"), b = fresh_folder("det-b");
  generate_cases(small_options(contract_fwd_f32_fma_chain()), a);
  generate_cases(small_options(contract_fwd_f32_fma_chain()), b);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(a)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = std::filesystem::relative(entry.path(), a).string();
    std::ifstream fa(entry.path(), std::ios::binary), fb(std::filesystem::path(b) / rel, std::ios::binary);
    const std::string ca((std::istreambuf_iterator<char>(fa)), {}), cb((std::istreambuf_iterator<char>(fb)), {});
    EXPECT_EQ(ca, cb) << rel;
  }
}

TEST(FileProtocol, TheContractsOwnEmulatorPassesEveryCheck) {
  const std::string dir = fresh_folder("pass");
  const Contract& contract = contract_fwd_f32_fma_chain();
  CaseFolder folder(dir, generate_cases(small_options(contract), dir));
  run_kernel(folder, [&](const ForwardProblem& p) { return oracle::emulate_dot(contract.plan, p); });
  FolderCheckOptions o;
  o.contract = contract;
  const std::vector<PropertyRun> rows = check_folder(folder, o);
  ASSERT_EQ(rows.size(), 5u);
  for (const PropertyRun& r : rows) {
    EXPECT_TRUE(r.passed()) << r.name << ": " << (r.failures.empty() ? "" : r.failures[0].detail);
    EXPECT_GT(r.cases, 0) << r.name;
  }
}

// A kernel whose order depends on the batch: k reversed when M >= 64 (like a tier switch).
std::vector<float> batch_switching(const ForwardProblem& p) {
  ForwardProblem q = p;
  if (p.M >= 64)
    for (std::int64_t r = 0; r < p.M; ++r) std::reverse(q.x.begin() + r * p.K, q.x.begin() + (r + 1) * p.K);
  if (p.M >= 64)
    for (std::int64_t r = 0; r < p.N; ++r) std::reverse(q.w.begin() + r * p.K, q.w.begin() + (r + 1) * p.K);
  return oracle::emulate_dot(contract_fwd_f32_fma_chain().plan, q);
}

TEST(FileProtocol, AnOrderThatSwitchesAboveABatchSizeIsCaughtWithoutAContract) {
  const std::string dir = fresh_folder("switch");
  CasesOptions opts = small_options(contract_fwd_f32_fma_chain());
  opts.contract.reset();  // --contract none
  CaseFolder folder(dir, generate_cases(opts, dir));
  run_kernel(folder, batch_switching);
  const std::vector<PropertyRun> rows = check_folder(folder, FolderCheckOptions{});
  const PropertyRun* batch = row(rows, "check.batch_size_invariance");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->verdict(), Verdict::mismatch);
  ASSERT_FALSE(batch->failures.empty());
  // The failure names the two rows that differ: the row alone and the row in a batch of >= 64.
  EXPECT_NE(batch->failures[0].detail.find("(M=1) and row"), std::string::npos) << batch->failures[0].detail;
  EXPECT_NE(batch->failures[0].detail.find("differ in"), std::string::npos);
  // Batches below the switch still hold.
  EXPECT_LT(batch->failed, batch->cases);
  // Permutation and shard relations compare batches of the same size with each other: they hold.
  EXPECT_TRUE(row(rows, "check.permutation_invariance")->passed());
  EXPECT_EQ(row(rows, "check.equals_contract"), nullptr);
}

TEST(FileProtocol, WithAContractAMismatchShowsTheElementsAndTheirInputs) {
  const std::string dir = fresh_folder("mismatch");
  CaseFolder folder(dir, generate_cases(small_options(contract_fwd_f32_fma_chain()), dir));
  run_kernel(folder, batch_switching);
  FolderCheckOptions o;
  o.contract = contract_fwd_f32_fma_chain();
  const std::vector<PropertyRun> rows = check_folder(folder, o);
  const PropertyRun* eq = row(rows, "check.equals_contract");
  ASSERT_NE(eq, nullptr);
  EXPECT_EQ(eq->verdict(), Verdict::mismatch);
  ASSERT_FALSE(eq->failures.empty());
  const std::string& d = eq->failures[0].detail;
  EXPECT_NE(d.find("elements differ"), std::string::npos) << d;
  EXPECT_NE(d.find(", contract 0x"), std::string::npos) << d;
  EXPECT_NE(d.find("x["), std::string::npos) << d;
  // A reversed FMA chain is still within the chain's bound: the bound row passes.
  EXPECT_TRUE(row(rows, "check.within_error_bound")->passed());
}

TEST(FileProtocol, Bf16OutputsAreJudgedByTheirFilesDtype) {
  const std::string dir = fresh_folder("bf16");
  const Contract& contract = contract_fwd_bf16_tc_fdpa_sm90();
  CasesOptions opts = small_options(contract);
  opts.shapes = {{20, 5, 40}};
  CaseFolder folder(dir, generate_cases(opts, dir));
  EXPECT_EQ(folder.manifest().operands, "bf16");
  run_kernel(folder, [&](const ForwardProblem& p) { return oracle::emulate_dot(contract.plan, p); }, true);
  FolderCheckOptions o;
  o.contract = contract;
  for (const PropertyRun& r : check_folder(folder, o))
    EXPECT_TRUE(r.passed()) << r.name << ": " << (r.failures.empty() ? "" : r.failures[0].detail);
  // The FP32 contract allows no BF16 Y: bad input.
  o.contract = contract_fwd_f32_fma_chain();
  EXPECT_THROW(check_folder(folder, o), InputError);
}

// The ManifestError that manifest_from_json refuses j with; "" and a failure saying `accepted` if it reads.
std::string manifest_error(const nlohmann::json& j, const std::string& accepted) {
  return ordo::testing::error_message<protocol::ManifestError>([&] { protocol::manifest_from_json(j, "m.json"); },
                                                                accepted);
}

std::string input_error(CaseFolder& folder) {
  try {
    FolderCheckOptions o;
    o.contract = contract_fwd_f32_fma_chain();
    check_folder(folder, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The first failure of `check.equals_contract` of a folder whose first case's y.npy is bad: a missing or
// malformed output is the program's failure on that case (a subject fault), judged among the others.
std::string output_fault(CaseFolder& folder) {
  FolderCheckOptions o;
  o.contract = contract_fwd_f32_fma_chain();
  const std::vector<PropertyRun> rows = check_folder(folder, o);
  const PropertyRun* eq = row(rows, "check.equals_contract");
  if (eq == nullptr || eq->failures.empty()) return "";
  EXPECT_EQ(eq->verdict(), Verdict::subject_fault);
  EXPECT_EQ(eq->failed, 1) << "one bad output is one failed case";
  EXPECT_EQ(eq->cases, static_cast<std::int64_t>(folder.manifest().cases.size())) << "the other cases are judged";
  return eq->failures[0].detail;
}

TEST(FileProtocol, EachBadOutputIsOneFailedCaseNamingItsFile) {
  const std::string dir = fresh_folder("bad-y");
  CaseFolder folder(dir, generate_cases(one_small_case(), dir));
  write_contract_outputs(folder);
  const protocol::CaseEntry& c = folder.manifest().cases[0];
  const std::string y = dir + "/" + c.y;
  std::filesystem::remove(y);
  EXPECT_NE(output_fault(folder).find(y + ": missing"), std::string::npos) << output_fault(folder);
  std::vector<float> v(static_cast<std::size_t>(c.M * c.N), 1.0f);
  protocol::write_npy(y, protocol::NpyDtype::f4, {c.N, c.M}, v.data(), v.size() * 4);  // transposed shape
  EXPECT_NE(output_fault(folder).find(y + ": shape must be (" + std::to_string(c.M) + ", " + std::to_string(c.N) + ")"),
            std::string::npos)
      << output_fault(folder);
  std::vector<std::int64_t> as_int(v.size(), 1);
  protocol::write_npy(y, protocol::NpyDtype::i8, {c.M, c.N}, as_int.data(), as_int.size() * 8);
  EXPECT_NE(output_fault(folder).find(y + ": dtype <i8"), std::string::npos) << output_fault(folder);
  {
    // Fortran order: a header numpy writes for np.asfortranarray.
    std::string text = protocol::encode_npy_header(protocol::NpyDtype::f4, {c.M, c.N}, protocol::NpyBf16Descr::u2, y);
    const auto pos = text.find("'fortran_order': False");
    text.replace(pos, 22, "'fortran_order': True ");
    std::ofstream f(y, std::ios::binary);
    f << text;
    f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  }
  EXPECT_NE(output_fault(folder).find("fortran_order"), std::string::npos) << output_fault(folder);
  {
    std::ofstream f(y, std::ios::binary | std::ios::trunc);
    f << protocol::encode_npy_header(protocol::NpyDtype::f4, {c.M, c.N}, protocol::NpyBf16Descr::u2, y) << "abc";
  }
  EXPECT_NE(output_fault(folder).find("truncated"), std::string::npos) << output_fault(folder);
}

TEST(FileProtocol, EachBadInputIsRefusedNamingItAndNothingIsJudged) {
  const std::string dir = fresh_folder("bad");
  CaseFolder folder(dir, generate_cases(one_small_case(), dir));
  write_contract_outputs(folder);
  const protocol::CaseEntry& c = folder.manifest().cases[0];
  // A BF16 operand file in an f32 folder.
  std::vector<std::uint16_t> bits(static_cast<std::size_t>(c.M * c.K), 0x3f80);
  protocol::write_npy(dir + "/" + c.x, protocol::NpyDtype::u2, {c.M, c.K}, bits.data(), bits.size() * 2);
  EXPECT_NE(input_error(folder).find(c.x + ": dtype <u2, expected <f4"), std::string::npos) << input_error(folder);
}

// An input replaced after generation, with its y recomputed from the new input, would pass every check:
// the manifest's digests find it first, as bad input, naming the file.
TEST(FileProtocol, AnInputReplacedAfterGenerationIsRefusedByItsDigest) {
  const std::string dir = fresh_folder("digest");
  CasesOptions opts = one_small_case();
  CaseFolder written(dir, generate_cases(opts, dir));
  const protocol::CaseEntry c = written.manifest().cases[1];
  ASSERT_EQ(c.x_sha256.size(), 64u);
  ASSERT_EQ(c.w_sha256.size(), 64u);
  std::vector<float> x(static_cast<std::size_t>(c.M * c.K), 0.5f);
  protocol::write_npy(dir + "/" + c.x, protocol::NpyDtype::f4, {c.M, c.K}, x.data(), x.size() * 4);
  // The program under test computes y from the input it finds (a reader that ignores the digests).
  protocol::CasesManifest blind = protocol::read_manifest(dir);
  for (protocol::CaseEntry& e : blind.cases) e.x_sha256.clear();
  CaseFolder unchecked(dir, blind);
  write_contract_outputs(unchecked);
  CaseFolder folder(dir, protocol::read_manifest(dir));
  const std::string e = input_error(folder);
  EXPECT_NE(e.find(c.x + ": its data has SHA-256"), std::string::npos) << e;
  EXPECT_NE(e.find("the input changed after `ordo cases` wrote it"), std::string::npos) << e;
}

// A folder written for a contract from a file carries its definition; `ordo check` judges by it. The
// definition must carry the manifest's id, and a built-in id only with the built-in plan.
TEST(FileProtocol, TheManifestsContractDefinitionIsUsedAndCheckedAgainstItsId) {
  const std::string dir = fresh_folder("definition");
  const Contract seg = load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json");
  CasesOptions opts = small_options(seg);
  generate_cases(opts, dir);
  const protocol::CasesManifest m = protocol::read_manifest(dir);
  ASSERT_TRUE(m.defined_contract.has_value());
  EXPECT_EQ(m.defined_contract->id, seg.id);
  EXPECT_EQ(m.defined_contract->plan.segment_length, seg.plan.segment_length);
  nlohmann::json j = protocol::manifest_to_json(m);
  j["contract_definition"]["id"] = "fwd.f32.other/1";
  const std::string other_id = manifest_error(j, "a definition of another id was accepted");
  EXPECT_NE(other_id.find("contract_definition.id"), std::string::npos) << other_id;
  // A built-in id with another plan: the id claims an arithmetic the definition does not state.
  j = protocol::manifest_to_json(m);
  j["contract"] = "fwd.f32.fma-chain/1";
  j["contract_definition"]["id"] = "fwd.f32.fma-chain/1";
  const std::string other_plan = manifest_error(j, "a built-in id with another plan was accepted");
  EXPECT_NE(other_plan.find("is a built-in contract with another plan"), std::string::npos) << other_plan;
}

// Relations compare two outputs; the judge once kept a reference to the first while loading the second
// into a cache that it cleared past 64 outputs, and so compared freed memory. Level-1 folders hold more
// than 64 outputs; with a cache of one byte every load evicts everything before it.
TEST(FileProtocol, TheFolderIsASubjectThatAnswersExactlyTheProblemsItRecorded) {
  const std::string dir = fresh_folder("subject");
  CasesOptions opts = one_small_case();
  protocol::CasesManifest manifest = generate_cases(opts, dir);
  // A second case with the inputs of the first and an output of its own.
  protocol::CaseEntry twin = manifest.cases[0];
  twin.id = "twin";
  twin.y = "twin_y.npy";
  manifest.cases.push_back(twin);
  CaseFolder folder(dir, manifest);
  write_contract_outputs(folder);
  FilesSubject files(folder, contract_fwd_f32_fma_chain(), std::size_t{1} << 20);
  EXPECT_EQ(files.traits().kind, "files");
  for (const protocol::CaseEntry& c : folder.manifest().cases) (void)files.problem(c);
  const protocol::CaseEntry& c1 = folder.manifest().cases[1];
  const ForwardProblem p1 = files.problem(c1);
  bool bf16 = false;
  const BackendResult r = files.forward(p1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.y, folder.output(c1, &bf16));
  // A problem no case has: refused, never answered with another case's output.
  ForwardProblem other = p1;
  other.x[0] = std::nextafter(other.x[0], 1e30f);
  EXPECT_EQ(files.forward(other).status.code, StatusCode::unsupported_shape);
  // The same inputs twice are one problem: equal outputs answer it; different ones are the subject's fault.
  const ForwardProblem p0 = files.problem(folder.manifest().cases[0]);
  EXPECT_TRUE(files.forward(p0).status.ok());
  std::vector<float> y = folder.output(twin, &bf16);
  y[0] = std::nextafter(y[0], 1e30f);
  protocol::write_npy(dir + "/twin_y.npy", protocol::NpyDtype::f4, {twin.M, twin.N}, y.data(), y.size() * 4);
  FilesSubject again(folder, contract_fwd_f32_fma_chain(), std::size_t{1} << 20);
  for (const protocol::CaseEntry& c : folder.manifest().cases) (void)again.problem(c);
  const BackendResult twice = again.forward(p0);
  EXPECT_EQ(twice.status.code, StatusCode::subject_fault);
  EXPECT_NE(twice.status.message.find("the same inputs and different outputs"), std::string::npos) << twice.status.message;
}

TEST(FileProtocol, RelationsAreJudgedOnOutputsTheCacheNoLongerHolds) {
  const std::string dir = fresh_folder("cache");
  CasesOptions opts;
  opts.contract = contract_fwd_f32_fma_chain();
  opts.seed = 3;
  opts.level = 1;
  CaseFolder folder(dir, generate_cases(opts, dir));
  ASSERT_GT(folder.manifest().cases.size(), 64u);
  ASSERT_GT(folder.manifest().relations.size(), 10u);
  write_contract_outputs(folder);
  for (const std::size_t cache : {std::size_t{1}, std::size_t{1} << 30}) {
    FolderCheckOptions o;
    o.output_cache_bytes = cache;
    for (const PropertyRun& r : check_folder(folder, o)) {
      EXPECT_TRUE(r.passed()) << r.name << " (cache " << cache << " bytes): " << (r.failures.empty() ? "" : r.failures[0].detail);
      EXPECT_EQ(r.unit, "relations");
    }
  }
  // One row changed in the last batch relation's batch: exactly that relation fails, naming the row.
  const protocol::Relation* last = nullptr;
  for (const protocol::Relation& r : folder.manifest().relations)
    if (r.kind == "batch_size") last = &r;
  ASSERT_NE(last, nullptr);
  const protocol::CaseEntry& batch = *folder.manifest().find(last->subject.case_id);
  bool bf16 = false;
  std::vector<float> y = folder.output(batch, &bf16);
  const std::int64_t row_index = last->subject.rows[0];
  y[static_cast<std::size_t>(row_index * batch.N + batch.N / 2)] = std::nextafter(y[static_cast<std::size_t>(row_index * batch.N + batch.N / 2)], 1e30f);
  protocol::write_npy(folder.folder() + "/" + batch.y, protocol::NpyDtype::f4, {batch.M, batch.N}, y.data(), y.size() * 4);
  FolderCheckOptions o;
  o.output_cache_bytes = 1;
  const std::vector<PropertyRun> rows = check_folder(folder, o);
  const PropertyRun* sizes = row(rows, "check.batch_size_invariance");
  ASSERT_NE(sizes, nullptr);
  EXPECT_EQ(sizes->failed, 1);
  ASSERT_EQ(sizes->failures.size(), 1u);
  EXPECT_NE(sizes->failures[0].detail.find("row " + std::to_string(row_index) + " of " + batch.id), std::string::npos)
      << sizes->failures[0].detail;
  EXPECT_NE(sizes->failures[0].detail.find("differ in 1 of"), std::string::npos) << sizes->failures[0].detail;
}

TEST(FileProtocol, AManifestWithAnUnknownFieldOrARowOutsideItsCaseIsRefused) {
  const std::string dir = fresh_folder("manifest");
  CasesOptions opts = one_small_case();
  protocol::CasesManifest m = generate_cases(opts, dir);
  nlohmann::json j = protocol::manifest_to_json(m);
  j["cases"][0]["colour"] = "red";
  EXPECT_THROW(protocol::manifest_from_json(j, "m.json"), protocol::ManifestError);
  j = protocol::manifest_to_json(m);
  j["relations"][0]["subject"]["rows"][0] = 10000;
  const std::string outside = manifest_error(j, "accepted a row outside its case");
  ASSERT_FALSE(outside.empty());
  EXPECT_NE(outside.find("m.json: relations[0].subject.rows[0]: 10000 is outside M ="), std::string::npos) << outside;
  j = protocol::manifest_to_json(m);
  j["cases"][0]["x"] = "../../etc/passwd";
  EXPECT_THROW(protocol::manifest_from_json(j, "m.json"), protocol::ManifestError);
}

// The manifest's text: nesting beyond kMaxManifestDepth (20,000 levels overflowed the stack before,
// fuzz/regressions/fuzz_cases_manifest/), a key given twice, invalid JSON: errors that name the file.
TEST(FileProtocol, AManifestNestedTooDeeplyOrWithARepeatedKeyIsRefused) {
  const std::string dir = fresh_folder("manifest-text");
  CasesOptions opts = one_small_case();
  const std::string good = protocol::manifest_to_json(generate_cases(opts, dir)).dump();
  EXPECT_NO_THROW(protocol::parse_manifest(good, "m.json"));
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  using ordo::testing::with_member;
  ordo::testing::expect_each_refused<protocol::ManifestError>(
      [](const std::string& text) { return protocol::parse_manifest(text, "m.json"); },
      {{with_member(good, "\"notes\":" + deep), "m.json: nested deeper than 16 levels"},
       {with_member(good, "\"cases\":[]"), "m.json: \"cases\" is given twice in one object"},
       {good.substr(0, 10), "m.json: not valid JSON: "}});
}

TEST(FileProtocol, IdentifyNamesTheContractThatProducedTheOutputs) {
  const std::string dir = fresh_folder("identify");
  CasesOptions opts = unnamed_contract_cases(3, {{40, 24, 600}, {20, 16, 1100}}, 40);
  opts.operands = DType::f32;
  CaseFolder folder(dir, generate_cases(opts, dir));
  const Contract seg = load_contract_file(std::string(ORDO_SOURCE_DIR) + "/contracts/fwd.f32.seg256-ascending.json");
  run_kernel(folder, [&](const ForwardProblem& p) { return oracle::emulate_dot(seg.plan, p); });
  const IdentifyResult r = identify(folder, IdentifyOptions{});
  ASSERT_EQ(r.matches.size(), 1u) << (r.matches.empty() ? "no match" : r.matches[1].contract.id);
  EXPECT_EQ(r.matches[0].contract.id, "candidate.fwd.f32.fma.seg256-asc/1");
  EXPECT_EQ(r.matches[0].contract.plan.segment_length, 256);
  ASSERT_FALSE(r.closest.empty());
  EXPECT_GT(r.closest[0].mismatches, 0);
  EXPECT_FALSE(r.closest[0].first_difference.empty());
  // The built-in chain was a candidate, and it does not match.
  EXPECT_GT(r.candidates, 20);
  for (const auto& m : r.matches) EXPECT_NE(m.contract.id, "fwd.f32.fma-chain/1");
}

// Split-K into three equal parts, the partials added in ascending order: K / 3 is no power of two, so only
// the divisor candidates can name it.
TEST(FileProtocol, IdentifyNamesASplitKIntoEqualParts) {
  const std::string dir = fresh_folder("identify-split");
  CaseFolder folder(dir, generate_cases(unnamed_contract_cases(5, {{24, 16, 600}}, 24), dir));
  ReductionPlan split = contract_fwd_f32_fma_chain().plan;
  split.structure = KStructure::segments;
  split.segment_length = 200;
  split.combine = SegmentCombine::ascending_add_rn;
  run_kernel(folder, [&](const ForwardProblem& p) { return oracle::emulate_dot(split, p); });
  const IdentifyResult r = identify(folder, IdentifyOptions{});
  ASSERT_FALSE(r.matches.empty());
  EXPECT_EQ(r.matches[0].contract.id, "candidate.fwd.f32.fma.seg200-asc/1");
}

// A sample ranks candidates; it is never the verdict. Outputs equal to the FMA chain except 7 elements in
// a row that the ranking sample skips (row 100 of each 200-row case; the sample takes 64 spread rows):
// the chain must not be called a match, and the whole comparison must count exactly those.
TEST(FileProtocol, IdentifyConfirmsAMatchOnEveryElementNotOnTheSample) {
  const std::string dir = fresh_folder("identify-sample");
  CaseFolder folder(dir, generate_cases(unnamed_contract_cases(6, {{200, 40, 37}}, 200), dir));
  const ReductionPlan chain = contract_fwd_f32_fma_chain().plan;
  run_kernel(folder, [&](const ForwardProblem& p) {
    std::vector<float> y = oracle::emulate_dot(chain, p);
    if (p.M == 200)
      for (std::int64_t n = 0; n < 7; ++n) {
        float& v = y[static_cast<std::size_t>(100 * p.N + n)];
        v = float_of(bits_of(v) ^ 1u);  // one ulp off
      }
    return y;
  });
  const IdentifyResult r = identify(folder, IdentifyOptions{});
  for (const auto& m : r.matches) EXPECT_NE(m.contract.id, "fwd.f32.fma-chain/1") << "a match from the sample alone";
  const CandidateScore* chain_score = nullptr;
  for (const auto& c : r.closest)
    if (c.contract.id == "fwd.f32.fma-chain/1") chain_score = &c;
  ASSERT_NE(chain_score, nullptr);
  EXPECT_TRUE(chain_score->confirmed);
  std::int64_t perturbed_cases = 0;  // the batch of 200, its permutation and its shard
  for (const protocol::CaseEntry& c : folder.manifest().cases) perturbed_cases += c.M == 200;
  EXPECT_EQ(chain_score->mismatches, 7 * perturbed_cases);
  EXPECT_EQ(chain_score->elements, r.elements);
  EXPECT_NE(chain_score->first_difference.find("[100,0]"), std::string::npos) << chain_score->first_difference;
  // With the outputs intact the chain is a match, compared on every element.
  run_kernel(folder, [&](const ForwardProblem& p) { return oracle::emulate_dot(chain, p); });
  const IdentifyResult ok = identify(folder, IdentifyOptions{});
  ASSERT_FALSE(ok.matches.empty());
  bool chain_matches = false;
  for (const auto& m : ok.matches) {
    EXPECT_TRUE(m.confirmed);
    EXPECT_EQ(m.elements, ok.elements);
    chain_matches = chain_matches || m.contract.id == "fwd.f32.fma-chain/1";
  }
  EXPECT_TRUE(chain_matches);
}

TEST(FileProtocol, IdentifySaysWhenNothingMatches) {
  const std::string dir = fresh_folder("identify-none");
  CaseFolder folder(dir, generate_cases(unnamed_contract_cases(4, {{70, 12, 500}}, 70), dir));
  run_kernel(folder, batch_switching);
  const IdentifyResult r = identify(folder, IdentifyOptions{});
  EXPECT_TRUE(r.matches.empty());
  ASSERT_FALSE(r.closest.empty());
}

}  // namespace
}  // namespace ordo::properties
