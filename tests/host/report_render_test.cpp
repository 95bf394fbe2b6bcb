// ordo report: the strict reader (round trip, one error per kind of bad field, naming file and field), the
// Markdown (verdict first), the self-contained HTML (no URL, no script, traceable numbers, every figure),
// the SVG charts, and the `ordo report` command's exit codes (0, 2, 4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <sstream>
#include <string>

#include "command_run.h"
#include "error_message.h"
#include "reports/report.h"
#include "reports/report_reader.h"
#include "reports/svg_charts.h"
#include "test_support.h"

namespace ordo::reports {
namespace {

using nlohmann::json;

// Each of `parts` is in `text` (a failure names the part that is not).
void expect_all_in(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) EXPECT_NE(text.find(part), std::string::npos) << part;
}

// None of `parts` is in `text`.
void expect_none_in(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts) EXPECT_EQ(text.find(part), std::string::npos) << part;
}

// Every field set, with one failing bound row, one passing self-test, one row not run, a bench, a timeline.
Report rich_report() {
  Report r;
  r.tool.git_commit = "0123456789abcdef0123456789abcdef01234567";  // not this build's: the reader must keep it
  r.tool.git_dirty = true;
  r.command = "ordo verify --level 1 --seed 7";
  r.seed = 7;
  r.level = 1;
  r.started_at = "2026-12-01T08:00:00Z";
  r.seconds = 12.5;
  r.environment.host = "vm";
  r.environment.cpu = "Test CPU";
  r.environment.cpu_threads = 16;
  r.environment.gpu = GpuInfo{"NVIDIA H200", 90, "13.0", "13.0", 132};

  ResultRow bound;
  bound.run.name = "forward.emulator_within_error_bound";
  bound.run.description = "within the bound";
  bound.run.backend = "emulator";
  bound.run.kernel = "host.emulator:fwd.f32.fma-chain/1";
  bound.run.contract = "fwd.f32.fma-chain/1";
  bound.run.kind = PropertyKind::bound;
  bound.run.requested = bound.run.cases = 500;
  bound.run.failed = 1;
  bound.run.elements = 120359;
  bound.run.max_error_over_bound = 1.25;
  bound.run.max_error_over_bound_by_family = {{"ties", 0.6875}, {"uniform", 1.25}};
  bound.run.max_relative_error = std::nan("");  // written as null, read back as NaN
  bound.run.max_normwise_relative_error = 1e-7;
  bound.run.families = {{"ties", 250}, {"uniform", 250}};
  bound.run.shape_classes = {{"M=1", 40}, {"edge 16+-1", 77}};
  bound.run.seconds = 1.5;
  bound.run.failures.push_back({"ordo verify --property forward.emulator_within_error_bound --seed 9 --case 3",
                                "y[0] outside its bound", "M=3 N=2 K=9", "M=1 N=1 K=2", 12});

  ResultRow mutant;
  mutant.run.name = "selftest.mutant_caught";
  mutant.run.backend = "cuda";
  mutant.run.kernel = "mutant.fwd.f32.k-reversed";
  mutant.run.contract = "fwd.f32.fma-chain/1";
  mutant.run.expect_failure = true;
  mutant.run.requested = 100;
  mutant.run.cases = 2;
  mutant.run.failed = 1;
  mutant.run.families = {{"order_2^-24", 2}};
  mutant.run.failures.push_back(
      {"ordo verify --property selftest.mutant_caught --seed 7 --case 1", "differs", "o", "", 0});

  ResultRow skipped;
  skipped.run.name = "forward.kernel_equals_emulator";
  skipped.run.backend = "cuda";
  skipped.run.kernel = "sm80.fwd.bf16.mma-sync.32x32x16";
  skipped.run.contract = "fwd.bf16.tc-fdpa-sm80/1";
  skipped.run.kind = PropertyKind::invariance;
  skipped.run.requested = skipped.run.skipped = 1000;
  skipped.run.skip_reason = "not run: this GPU is sm_90";

  r.results = {bound, mutant, skipped};
  r.bench = json::array({{{"kernel", "sm90.fwd.bf16.wgmma.128x256x64"},
                          {"M", 4096},
                          {"N", 5376},
                          {"K", 4096},
                          {"ms", 1.2},
                          {"cublas_ms", 1.0},
                          {"ratio", 1.2},
                          {"tflops", 150.0}}});
  r.timeline = {{0, 0, 0}, {10, 1000, 0}, {20, 2500, 1}};
  return r;
}

Report passing_report() {
  Report r = rich_report();
  r.results.erase(r.results.begin());  // without the failing bound row
  return r;
}

TEST(ReportReader, RoundTripGivesTheSameJson) {
  const Report r = rich_report();
  // Compared as text: a NaN field is NaN in the json value (never equal to itself) and null in the file.
  const std::string first = to_json(r).dump(2);
  const Report back = parse_report(first, "t.json");
  EXPECT_EQ(to_json(back).dump(2), first);
  EXPECT_EQ(to_json(report_from_json(json::parse(first), "t.json")).dump(2), first);
  EXPECT_EQ(back.tool.git_commit, r.tool.git_commit);
  EXPECT_TRUE(std::isnan(back.results[0].run.max_relative_error));
  ASSERT_EQ(back.timeline.size(), 3u);
  EXPECT_EQ(back.timeline[2].cases, 2500);
  EXPECT_EQ(back.results[2].run.kind, PropertyKind::invariance);
}

TEST(ReportReader, ToolRecordsTheBuild) {
  const json tool = to_json(Report{})["tool"];
  for (const char* key :
       {"version", "git_commit", "git_dirty", "build_type", "compiler", "cuda", "flags", "cuda_flags"})
    EXPECT_TRUE(tool.contains(key)) << key;
  EXPECT_NE(tool.value("flags", "").find("-ffp-contract=off"), std::string::npos) << tool.dump();
  EXPECT_NE(tool.value("cuda_flags", "").find("--fmad=false"), std::string::npos) << tool.dump();
  EXPECT_NE(tool.value("cuda", "").find("NVIDIA"), std::string::npos) << tool.dump();
  EXPECT_FALSE(tool.value("build_type", "").empty()) << tool.dump();
}

// Real reports of every command and of every age (tests/data/reports: copies of GPU runs' reports, from the
// oldest format on) read back, and every field each holds comes back with its value. The evidence folder
// itself is data for people: no test reads it.
TEST(ReportReader, ReadsRealReportsOfEveryCommandAndAge) {
  int reports = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(std::string(ORDO_SOURCE_DIR) + "/tests/data/reports")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const json original = json::parse(in);
    if (original.value("schema", "") != "ordo.report/1") continue;
    ++reports;
    const json again = to_json(read_report_file(e.path().string()));
    for (const char* key : {"command", "seed", "level", "started_at", "seconds", "verdict", "environment", "bench"})
      EXPECT_EQ(again[key], original[key]) << e.path() << " " << key;
    for (const auto& [key, value] : original["tool"].items())
      EXPECT_EQ(again["tool"][key], value) << e.path() << " " << key;
    ASSERT_EQ(again["results"].size(), original["results"].size()) << e.path();
    for (std::size_t i = 0; i < original["results"].size(); ++i)
      for (const auto& [key, value] : original["results"][i].items())
        EXPECT_EQ(again["results"][i][key], value) << e.path() << " results[" << i << "]." << key;
  }
  EXPECT_GE(reports, 9);
}

struct BadField {
  std::function<void(json&)> edit;
  std::string message;  // what the error must say, after "t.json: "
};

TEST(ReportReader, EachBadFieldGetsItsError) {
  const json good = to_json(rich_report());
  const BadField cases[] = {
      {[](json& j) { j["results"][1]["cases"] = "2"; }, "results[1].cases: must be an integer"},
      {[](json& j) { j["results"][1]["cases"] = 2.5; }, "results[1].cases: must be an integer"},
      {[](json& j) { j["results"][0]["failed"] = -1; }, "results[0].failed: must not be negative"},
      {[](json& j) { j["results"][0]["property"] = 3; }, "results[0].property: must be a string"},
      {[](json& j) { j["results"][0]["expect_failure"] = "no"; }, "results[0].expect_failure: must be true or false"},
      {[](json& j) { j["results"][0].erase("kernel"); }, "results[0].kernel: missing"},
      {[](json& j) { j["results"][0]["families"]["ties"] = "x"; }, "results[0].families.ties: must be an integer"},
      {[](json& j) { j["results"][0]["families"] = json::array(); }, "results[0].families: must be an object"},
      {[](json& j) { j["results"][0]["max_error_over_bound"] = "big"; },
       "results[0].max_error_over_bound: must be a number"},
      {[](json& j) { j["results"][0]["max_error_over_bound_by_family"]["ties"] = true; },
       "results[0].max_error_over_bound_by_family.ties: must be a number"},
      {[](json& j) { j["results"][0]["failures"][0]["reproduce"] = 1; },
       "results[0].failures[0].reproduce: must be a string"},
      {[](json& j) { j["results"][0]["failures"][0].erase("shrink_steps"); },
       "results[0].failures[0].shrink_steps: missing"},
      {[](json& j) { j["results"][0]["kind"] = "fuzzy"; }, "results[0].kind: unknown property kind \"fuzzy\""},
      {[](json& j) { j["results"][0]["verdict"] = "maybe"; }, "results[0].verdict: unknown verdict \"maybe\""},
      {[](json& j) { j["results"][0]["verdict"] = "pass"; },
       "results[0].verdict: \"pass\" does not follow from the row's counts, which give \"bound_violation\""},
      {[](json& j) { j["verdict"] = "pass"; }, "verdict: \"pass\" does not follow from the rows, which give \"fail\""},
      {[](json& j) { j["results"] = json::object(); }, "results: must be an array"},
      {[](json& j) { j["results"][2] = 5; }, "results[2]: must be an object"},
      {[](json& j) { j["environment"]["gpu"]["sm"] = "90"; }, "environment.gpu.sm: must be an integer"},
      {[](json& j) { j["environment"].erase("gpu"); }, "environment.gpu: missing"},
      {[](json& j) { j["tool"]["git_dirty"] = "no"; }, "tool.git_dirty: must be true or false"},
      {[](json& j) { j["tool"]["compiler"] = 12; }, "tool.compiler: must be a string"},
      {[](json& j) { j["seed"] = -1; }, "seed: must not be negative"},
      {[](json& j) { j["level"] = 1e12; }, "level: must be an integer"},
      {[](json& j) { j.erase("command"); }, "command: missing"},
      {[](json& j) { j["schema"] = "ordo.identify/1"; }, "schema: \"ordo.identify/1\" is not \"ordo.report/1\""},
      {[](json& j) { j["bench"][0]["M"] = "big"; }, "bench[0].M: must be an integer"},
      {[](json& j) { j["bench"][0].erase("ratio"); }, "bench[0].ratio: missing"},
      {[](json& j) { j["bench"] = json::object(); }, "bench: must be an array"},
      {[](json& j) { j["timeline"][1]["cases"] = 1.5; }, "timeline[1].cases: must be an integer"},
      {[](json& j) { j["timeline"] = json::object(); }, "timeline: must be an array"},
      {[](json& j) { j["interrupted"] = 0; }, "interrupted: must be true or false"},
  };
  for (const BadField& c : cases) {
    json bad = good;
    c.edit(bad);
    try {
      (void)report_from_json(bad, "t.json");
      ADD_FAILURE() << "accepted; expected: " << c.message;
    } catch (const ReportReadError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("t.json: " + c.message, 0), 0u) << e.what() << "\nexpected: " << c.message;
    }
  }
}

// Text the JSON library alone would accept or crash on: each is a ReportReadError naming the file.
// Before core/bounded_json.h, 20,000 nested arrays in an unknown field overflowed the stack when the
// report was copied (fuzz/regressions/fuzz_report/), and 1e999 escaped as json::out_of_range.
TEST(ReportReader, DeepNestingHugeNumbersAndRepeatedKeysAreRefused) {
  const std::string good = to_json(rich_report()).dump();
  const std::string deep = std::string(20000, '[') + std::string(20000, ']');
  using ordo::testing::with_member;
  ordo::testing::expect_each_refused<ReportReadError>(
      [](const std::string& text) { return parse_report(text, "t.json"); },
      {{with_member(good, "\"extra\":" + deep), "t.json: nested deeper than 32 levels"},
       {with_member(good, "\"extra\":1e999"), "t.json: not valid JSON: "},
       {with_member(good, "\"seed\":2"), "t.json: \"seed\" is given twice in one object"},
       {good.substr(0, good.size() / 2), "t.json: not valid JSON: "}});
  EXPECT_NO_THROW((void)parse_report(good, "t.json"));
}

TEST(ReportReader, UnknownFieldsAreAllowedAndOlderReportsRead) {
  json j = to_json(rich_report());
  j["campaign"] = {{"budget_s", 600}};
  j["results"][0]["future_field"] = json::array({1, 2});
  j["bench"][0]["l2_resident"] = true;
  // Fields added after the first reports are optional.
  j.erase("interrupted");
  j.erase("timeline");
  for (const char* key : {"build_type", "compiler", "cuda", "flags", "cuda_flags"}) j["tool"].erase(key);
  for (const char* key : {"requested", "kind", "max_error_over_bound_by_family", "max_relative_error", "skip_reason"})
    j["results"][1].erase(key);
  const Report r = report_from_json(j, "t.json");
  EXPECT_TRUE(r.tool.build_type.empty());
  EXPECT_TRUE(r.timeline.empty());
  EXPECT_EQ(r.results[1].run.requested, 0);
}

TEST(ReportReader, WholeFileErrorsNameTheFile) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const ReportReadError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] {
              (void)parse_report("{\"schema\": ", "t.json");
            }).rfind("t.json: not valid JSON: parse error at line 1", 0),
            0u);
  EXPECT_EQ(message([] { (void)parse_report("[1]", "t.json"); }),
            "t.json: not an ordo report: the top level must be a JSON object");
  EXPECT_EQ(message([] { (void)read_report_file("/"); }),
            "/: a directory, not a regular file (ordo reads reports only from regular files)");
  EXPECT_EQ(message([] { (void)read_report_file("/nonexistent/r.json"); }),
            "/nonexistent/r.json: cannot open: No such file or directory");
  EXPECT_EQ(message([] { (void)read_report_file("/dev/zero"); }),
            "/dev/zero: a character device, not a regular file (ordo reads reports only from regular files)");
}

TEST(ReportMarkdown, StartsWithTheVerdictInOneBoldLine) {
  const std::string fail = to_markdown(rich_report());
  EXPECT_EQ(fail.rfind("**FAIL: 1 of 3 checks failed (bound_violation 1); 1 passed, 1 did not run; 502 cases**\n", 0),
            0u)
      << fail;
  const std::string pass = to_markdown(passing_report());
  EXPECT_EQ(
      pass.rfind("**PASS: 1 of 2 checks passed, 1 did not run (each with its reason), none failed; 2 cases**\n", 0), 0u)
      << pass;
  Report stopped = passing_report();
  stopped.interrupted = true;
  EXPECT_EQ(to_markdown(stopped).rfind("**INTERRUPTED", 0), 0u);
}

TEST(ReportMarkdown, SectionsInOrderWithCountsFailuresAndProvenance) {
  const std::string md = to_markdown(rich_report());
  std::size_t at = 0;
  for (const char* heading : {"### What was checked", "### Results", "### Tightness", "### Bench",
                              "### Campaign timeline", "### Failures", "### Provenance"}) {
    const std::size_t p = md.find(heading);
    ASSERT_NE(p, std::string::npos) << heading;
    EXPECT_GT(p, at) << heading << " out of order";
    at = p;
  }
  expect_all_in(md, {"| ties | 250 |", "| edge 16+-1 | 77 |"});
  EXPECT_NE(md.find("| forward.emulator_within_error_bound | `host.emulator:fwd.f32.fma-chain/1` | fwd.f32.fma-chain/1 "
                    "| emulator | "
                    "bound_violation | 500 cases | 1 | 0 | 120359 | 1.25 |"),
            std::string::npos)
      << md;
  expect_all_in(md, {"| `sm90.fwd.bf16.wgmma.128x256x64` | 4096 | 5376 | 4096 | 1.2 | 1 | 1.2 |",
                     "FAILED (bound_violation)", "expected (a self-test"});
  // Provenance: the report's build (not this one), the GPU, every seed, and every command that reproduces.
  expect_all_in(md, {"- git commit: 0123456789abcdef0123456789abcdef01234567 (dirty tree",
                     "- GPU: NVIDIA H200, sm_90, 132 SMs", "- driver / CUDA runtime: 13.0 / 13.0", "- seeds: 7, 9"});
  EXPECT_NE(
      md.find(
          "```\nordo verify --level 1 --seed 7\nordo verify --property forward.emulator_within_error_bound --seed 9 "
          "--case 3\nordo verify --property selftest.mutant_caught --seed 7 --case 1\n```"),
      std::string::npos)
      << md;
}

TEST(ReportHtml, SelfContainedWithoutUrlOrScript) {
  const std::string html = to_html(rich_report());
  expect_none_in(html, {"http", "<script", "<link", "<img", "url(", "@import"});
  // Text from a report is escaped: it cannot add a script or a resource to the page.
  Report r = rich_report();
  r.results[0].run.kernel = "<script src=\"evil.js\"></script>";
  r.results[0].run.failures[0].detail = "<img src=x>";
  const std::string injected = to_html(r);
  expect_none_in(injected, {"<script", "<img"});
  EXPECT_NE(injected.find("&lt;script src=&quot;evil.js&quot;&gt;"), std::string::npos);
}

TEST(ReportHtml, VerdictRowsAndFiguresAreTraceable) {
  const std::string html = to_html(rich_report());
  EXPECT_NE(
      html.find("<p id=\"verdict\" class=\"verdict fail\" data-verdict=\"fail\"><strong>FAIL: 1 of 3 checks failed"),
      std::string::npos);
  EXPECT_NE(html.find("data-row=\"0\" data-property=\"forward.emulator_within_error_bound\" "
                      "data-kernel=\"host.emulator:fwd.f32.fma-chain/1\""),
            std::string::npos);
  const std::size_t row = html.find("<tr id=\"result-1\"");
  ASSERT_NE(row, std::string::npos);
  const std::string row_html = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(row_html.find("data-field=\"cases\" data-unit=\"cases\">2 cases</td>"), std::string::npos) << row_html;
  EXPECT_NE(row_html.find("data-field=\"failed\">1</td>"), std::string::npos) << row_html;
  EXPECT_NE(row_html.find("data-field=\"skipped\">0</td>"), std::string::npos) << row_html;
  for (const char* id : {"fig-error-bound", "fig-bench-ratio", "fig-cases", "fig-timeline"}) {
    const std::size_t p = html.find(std::string("<svg id=\"") + id + "\"");
    ASSERT_NE(p, std::string::npos) << id;
    EXPECT_EQ(html.find("<title>", p), html.find('\n', p) + 1) << id << ": the <title> comes first";
  }
  // Bars carry the numbers they draw.
  EXPECT_NE(html.find("data-group=\"fwd.f32.fma-chain/1\" data-label=\"uniform\" data-value=\"1.25\""),
            std::string::npos);
  EXPECT_NE(
      html.find(
          "data-group=\"sm90.fwd.bf16.wgmma.128x256x64\" data-label=\"M x N x K = 4096x5376x4096\" data-value=\"1.2\""),
      std::string::npos);
  EXPECT_NE(html.find("data-group=\"value family\" data-label=\"ties\" data-value=\"250\""), std::string::npos);
  EXPECT_NE(html.find("data-x=\"20\" data-value=\"2500\""), std::string::npos);
  EXPECT_NE(html.find("<tr data-field=\"tool.git_commit\"><th>git commit</th><td>0123456789abcdef"), std::string::npos);
}

// A section with nothing to show is left out, its figure with it (report_review_test.cpp checks the rest).
TEST(ReportHtml, AFigureWithoutDataIsLeftOut) {
  Report r = passing_report();
  r.bench = json::array();
  r.timeline.clear();
  for (ResultRow& row : r.results) row.run.max_error_over_bound_by_family.clear();
  const std::string html = to_html(r);
  for (const char* id : {"fig-error-bound", "fig-bench-ratio", "fig-timeline"})
    EXPECT_EQ(html.find(std::string("<svg id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(html.find("No data: "), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"fig-cases\""), std::string::npos);
}

TEST(SvgCharts, EscapeBarsAndLines) {
  EXPECT_EQ(svg::escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  svg::BarChart c;
  c.id = "x";
  c.title = "T <1>";
  c.bars = {{"g", "a&b", 2}, {"g", "nan", std::nan("")}};
  const std::string s = svg::bar_chart(c);
  EXPECT_EQ(s.rfind("<svg id=\"x\"", 0), 0u);
  EXPECT_NE(s.find("<title>T &lt;1&gt;</title>"), std::string::npos);
  EXPECT_NE(s.find("data-label=\"a&amp;b\" data-value=\"2\""), std::string::npos);
  EXPECT_NE(s.find("data-label=\"nan\" data-value=\"n/a\""), std::string::npos);
  EXPECT_EQ(s.find("<rect x=", s.find("data-label=\"nan\"")), std::string::npos) << "no bar for NaN";
  svg::LineChart l;
  l.id = "l";
  l.panels = {{"cases", {{0, 1}, {5, 3}, {9, 2}}}};
  const std::string ls = svg::line_chart(l);
  std::size_t circles = 0;
  for (std::size_t p = ls.find("<circle"); p != std::string::npos; p = ls.find("<circle", p + 1)) ++circles;
  EXPECT_EQ(circles, 3u);
  EXPECT_EQ(svg::format_value(2426), "2426");
  EXPECT_EQ(svg::format_value(0.99999934, 6), "0.999999");
}

// The command as a user runs it.
using ordo::testing::CommandRun;

CommandRun ordo_report(const std::string& args) { return ordo::testing::run_ordo("report " + args); }

// Writes `text` as ordo-report-NAME in `dir` (the name the command's messages must quote); returns its path.
std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/ordo-report-" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(ReportCommand, ExitCodes) {
  const std::string dir = ordo::testing::unique_temp_dir("report");
  const std::string good = write_temp(dir, "good.json", to_json(rich_report()).dump(2));
  CommandRun r = ordo_report(good);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("**FAIL: 1 of 3", 0), 0u) << r.output;

  const std::string md = dir + "/ordo-report-out.md", html = dir + "/ordo-report-out.html";
  r = ordo_report(good + " --md " + md + " --html " + html);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  EXPECT_EQ(page.str(), to_html(read_report_file(good)));

  json bad = to_json(rich_report());
  bad["results"][1]["cases"] = "2";
  r = ordo_report(write_temp(dir, "bad.json", bad.dump()));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ordo-report-bad.json: results[1].cases: must be an integer"), std::string::npos) << r.output;

  r = ordo_report(dir + "/ordo-report-missing.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ordo-report-missing.json: cannot open"), std::string::npos) << r.output;

  r = ordo_report(good + " --html /nonexistent-folder/page.html");
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_NE(r.output.find("/nonexistent-folder/page.html"), std::string::npos) << r.output;

  r = ordo_report(good + " --md " + good);
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

}  // namespace
}  // namespace ordo::reports
