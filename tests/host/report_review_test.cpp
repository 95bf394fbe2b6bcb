// Reports where reviewers read them: the Markdown of a check with thousands of failing cases fits a
// pull-request comment and points to the rest; failure details are laid out one element per line (and
// escaped); relation rows count relations, not cases; sections without data are left out; failing rows get
// a diagnosis and their failing case ids; the summary JSON (ordo.summary/1) says all of it as fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "reports/diagnosis.h"
#include "reports/markdown_text.h"
#include "reports/report.h"
#include "reports/report_reader.h"
#include "reports/row_text.h"
#include "reports/summary_json.h"

namespace ordo::reports {
namespace {


std::string case_id(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "c%04d", i);
  return buf;
}

// A failure of `ordo check` as folder_check.cpp writes it: a summary line, then one line per differing
// element, indented by four spaces.
FailureRecord check_failure(const std::string& id, int elements) {
  std::string detail = id + " (M=65 N=255 K=1, gendot, random, y f32): 2876 of 16575 elements differ";
  for (int e = 0; e < elements; ++e)
    detail += "\n    [0," + std::to_string(e) +
              "]: got 0x47090f26 (35087.1484), contract 0x47090f27 (35087.1523); exact 35087.1, error 0.00132296 "
              "(bound 0.00418271); x[0,0:8] = [0x43fd4b33, 0x43fd4b33, 0x43fd4b33, 0x43fd4b33, 0x43fd4b33, "
              "0x43fd4b33, 0x43fd4b33, ...], w[2,0:8] = [0x428a6e12, 0x428a6e12, 0x428a6e12, 0x428a6e12, ...], b[2] = "
              "0x41bda5cc";
  return {"ordo check /tmp/cases --contract fwd.f32.fma-chain/1 --case " + id, detail, id, "", 0};
}

PropertyRun check_row(const std::string& name, PropertyKind kind, std::int64_t count, const std::string& unit) {
  PropertyRun run;
  run.name = name;
  run.backend = "files";
  run.kernel = "/tmp/cases";
  run.contract = "fwd.f32.fma-chain/1";
  run.kind = kind;
  run.unit = unit;
  run.requested = run.cases = count;
  return run;
}

// `ordo check` of a folder of 66 cases and 33 relations: the contract mismatches on `failing` cases (each
// failure with 5 element lines), the bound holds, and the batch-size relations fail `failing_relations`
// times.
Report check_report(int failing, int failing_relations) {
  Report r;
  r.command = "ordo check /tmp/cases";
  r.seed = 1;
  r.started_at = "2026-12-01T08:25:33Z";
  r.environment.gpu_absent_reason = "GPU not requested";
  const int cases = std::max(66, failing);
  PropertyRun eq = check_row("check.equals_contract", PropertyKind::bitwise, cases, "cases");
  for (int i = 0; i < failing; ++i) eq.failures.push_back(check_failure(case_id(i), 5));
  eq.failed = failing;
  eq.families = {{"gendot", cases}};
  PropertyRun bound = check_row("check.within_error_bound", PropertyKind::bound, cases, "cases");
  bound.families = {{"gendot", cases}};
  bound.max_error_over_bound = 0.674;
  bound.max_error_over_bound_by_family = {{"gendot", 0.674}};
  PropertyRun batch = check_row("check.batch_size_invariance", PropertyKind::invariance, 27, "relations");
  for (int i = 0; i < failing_relations; ++i)
    batch.failures.push_back({"ordo check /tmp/cases --contract none --case c0003 --case " + case_id(10 + i),
                              "a row alone == the same row in a batch: row 0 of c0003 (M=1) and row 5 of " +
                                  case_id(10 + i) + " (M=64) differ in 3 of 255 columns",
                              "c0003 vs " + case_id(10 + i), "", 0});
  batch.failed = failing_relations;
  PropertyRun perm = check_row("check.permutation_invariance", PropertyKind::invariance, 3, "relations");
  PropertyRun shard = check_row("check.column_shard_equals_slice", PropertyKind::invariance, 3, "relations");
  for (PropertyRun* run : {&eq, &bound, &batch, &perm, &shard}) r.results.push_back({*run});
  return r;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST(ReportMarkdownSize, AHugeFailingCheckFitsAPullRequestComment) {
  const Report r = check_report(3000, 27);
  const std::string md = to_markdown(r);
  EXPECT_LT(md.size(), kMarkdownLimit);
  EXPECT_LT(md.size(), 65536u);
  // The verdict still comes first, the provenance last.
  EXPECT_EQ(md.rfind("**FAIL: 2 of 5 checks failed", 0), 0u) << md.substr(0, 200);
  EXPECT_NE(md.find("### Provenance"), std::string::npos);
  // Every failing row shows its first failures in full and points to the rest.
  EXPECT_NE(md.find("c0000 (M=65 N=255 K=1, gendot, random, y f32): 2876 of 16575 elements differ\n    [0,0]: got "
                    "0x47090f26"),
            std::string::npos);
  EXPECT_NE(md.find("... 2,997 more failures in report.json (results[0].failures) and report.html"), std::string::npos)
      << md;
  EXPECT_NE(md.find("more failures in report.json (results[2].failures) and report.html"), std::string::npos) << md;
  // The failing ids of the row, compactly: consecutive ids as a range.
  EXPECT_NE(md.find("Failing cases: `c0000..c2999`\n"), std::string::npos) << md;
}

TEST(ReportMarkdownSize, ManyFailingRowsStillFit) {
  Report r = check_report(0, 0);
  r.results.clear();
  for (int row = 0; row < 300; ++row) {
    PropertyRun run = check_row("check.equals_contract", PropertyKind::bitwise, 100, "cases");
    run.kernel = "/tmp/cases-" + std::to_string(row);
    for (int i = 0; i < 100; ++i) run.failures.push_back(check_failure(case_id(i), 40));
    run.failed = 100;
    r.results.push_back({run});
  }
  const std::string md = to_markdown(r);
  EXPECT_LE(md.size(), kMarkdownLimit);
  EXPECT_NE(md.find("more rows with failures: see report.json (results[].failures) and report.html"),
            std::string::npos);
  // One failure's detail is cut at its first 24 lines: its summary and 23 elements.
  EXPECT_NE(md.find("... 17 more lines in report.json"), std::string::npos);
}

TEST(ReportMarkdownSize, AReportOfVeryManyRowsIsCutWithItsFencesClosed) {
  Report r = check_report(0, 0);
  for (int i = 0; i < 2000; ++i) r.results.push_back(r.results[1]);
  const std::string md = to_markdown(r);
  EXPECT_LE(md.size(), kMarkdownLimit);
  EXPECT_EQ(md.rfind("**PASS", 0), 0u);
  EXPECT_NE(md.find("the report is cut here to fit a pull-request comment"), std::string::npos);
  EXPECT_EQ(count_of(md, "```") % 2, 0u);
}

TEST(MarkdownText, CutToClosesAnOpenFence) {
  const std::string text = "head\n```\n" + std::string(100, 'x') + "\n" + std::string(100, 'y') + "\n```\ntail\n";
  const std::string cut = markdown::cut_to(text, 150, "(cut)");
  EXPECT_LE(cut.size(), 150u);
  EXPECT_EQ(cut, "head\n```\n" + std::string(100, 'x') + "\n```\n\n(cut)\n");
  EXPECT_EQ(markdown::cut_to(text, 1000, "(cut)"), text);
}

// check_report with one failing case whose detail ends with one more element line, `line`.
Report one_failure_ending_with(const std::string& line) {
  Report r = check_report(1, 0);
  r.results[0].run.failures[0].detail += line;
  return r;
}

TEST(ReportFailureLayout, MarkdownFencesEachDetailOneElementPerLine) {
  const std::string md = to_markdown(one_failure_ending_with("\n    [1,1]: a | b <img src=x> &amp; ``` and `tick`"));
  // The detail is in a fence longer than any backtick run in it: nothing in it is Markdown.
  const std::size_t open = md.find("````\nc0000 (M=65");
  ASSERT_NE(open, std::string::npos) << md;
  const std::size_t close = md.find("\n````\n", open);
  ASSERT_NE(close, std::string::npos);
  const std::string block = md.substr(open, close - open);
  EXPECT_EQ(count_of(block, "\n    [0,"), 5u) << block;
  EXPECT_NE(block.find("\n    [1,1]: a | b <img src=x> &amp; ``` and `tick`"), std::string::npos) << block;
  // Outside fences and code spans, the report's text never appears raw.
  EXPECT_EQ(count_of(md, "<img"), 1u);
}

TEST(ReportFailureLayout, HtmlListsEachElementWithHexAsCode) {
  const std::string html = to_html(one_failure_ending_with("\n    [1,1]: a | b <img src=x> &amp; 0x12zz"));
  const std::size_t list = html.find("<ul class=\"detail-lines\">");
  ASSERT_NE(list, std::string::npos) << html;
  const std::string items = html.substr(list, html.find("</ul>", list) - list);
  EXPECT_EQ(count_of(items, "<li>"), 6u) << items;
  EXPECT_NE(items.find("<li>[0,0]: got <code>0x47090f26</code> (35087.1484), contract <code>0x47090f27</code>"),
            std::string::npos)
      << items;
  EXPECT_NE(items.find("<li>[1,1]: a | b &lt;img src=x&gt; &amp;amp; <code>0x12</code>zz</li>"), std::string::npos)
      << items;
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"detail\" data-field=\"detail\">c0000 (M=65 N=255 K=1, gendot, random, y f32): 2876 "
                      "of 16575 elements differ</p>"),
            std::string::npos);
}

TEST(ReportRelations, RelationRowsAreCountedAsRelations) {
  const Report r = check_report(1, 2);
  const ReportSummary s = summarize(r);
  EXPECT_EQ(s.cases, 132);
  EXPECT_EQ(s.relations, 33);
  EXPECT_EQ(s.failed_cases, 1);
  EXPECT_EQ(s.failed_relations, 2);
  EXPECT_NE(s.headline.find("; 132 cases and 33 relations"), std::string::npos) << s.headline;
  const std::string md = to_markdown(r);
  EXPECT_NE(md.find("| check.batch_size_invariance | `/tmp/cases` | fwd.f32.fma-chain/1 | files | mismatch | 27 "
                    "relations | 2 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| check.equals_contract | `/tmp/cases` | fwd.f32.fma-chain/1 | files | mismatch | 66 cases |"),
            std::string::npos);
  EXPECT_NE(md.find("- 33 relations judged (pairs of outputs that must be equal), 2 failed"), std::string::npos);
  EXPECT_NE(md.find("FAILED (mismatch), 2 of 27 relations failed"), std::string::npos);
  const std::string html = to_html(r);
  EXPECT_NE(html.find("data-field=\"cases\" data-unit=\"relations\">27 relations</td>"), std::string::npos);
  EXPECT_NE(html.find("data-field=\"cases\" data-unit=\"cases\">66 cases</td>"), std::string::npos);
  EXPECT_EQ(count_text(1, "relations"), "1 relation");
  EXPECT_EQ(count_text(12345, "cases"), "12,345 cases");
  EXPECT_EQ(count_text(1, "properties"), "1 property");
  EXPECT_NE(md.find("- 1 subject: `/tmp/cases`"), std::string::npos);
}

TEST(ReportRelations, AnInvarianceOnlyCheckHasNoCaseLine) {
  Report r = check_report(0, 0);
  r.results.erase(r.results.begin(), r.results.begin() + 2);
  const ReportSummary s = summarize(r);
  EXPECT_EQ(s.headline, "PASS: all 3 checks passed; 33 relations");
  EXPECT_EQ(to_markdown(r).find("cases run of"), std::string::npos);
}

TEST(ReportSections, SectionsWithoutDataAreLeftOut) {
  const Report r = check_report(1, 0);
  const std::string md = to_markdown(r), html = to_html(r);
  EXPECT_NE(md.find("| cases per value family |"), std::string::npos);
  for (const char* absent : {"shape class", "### Bench", "### Campaign timeline", "### Self-test"})
    EXPECT_EQ(md.find(absent), std::string::npos) << absent;
  EXPECT_NE(html.find("id=\"cases-by-family\""), std::string::npos);
  for (const char* absent : {"id=\"cases-by-shape\"", "id=\"bench\"", "fig-bench-ratio", "id=\"timeline\"",
                             "fig-timeline", "No data", "id=\"selftest\""})
    EXPECT_EQ(html.find(absent), std::string::npos) << absent;
  // A report where nothing failed has no failures section at all.
  const std::string passing = to_html(check_report(0, 0));
  EXPECT_EQ(passing.find("id=\"failures\""), std::string::npos);
  EXPECT_EQ(to_markdown(check_report(0, 0)).find("### Failures"), std::string::npos);
}

TEST(ReportSections, NothingRanIsInconclusiveInBothRenderers) {
  Report r = check_report(0, 0);
  for (ResultRow& row : r.results) {
    row.run.cases = 0;
    row.run.skipped = row.run.requested;
    row.run.skip_reason = "not run: no GPU";
  }
  EXPECT_EQ(to_markdown(r).rfind("**INCONCLUSIVE: nothing ran", 0), 0u);
  const std::string html = to_html(r);
  EXPECT_NE(html.find("<p id=\"verdict\" class=\"verdict inconclusive\" data-verdict=\"inconclusive\"><strong>"
                      "INCONCLUSIVE: nothing ran"),
            std::string::npos);
  EXPECT_NE(html.find(".verdict.inconclusive {"), std::string::npos);
}

TEST(ReportDiagnosis, EachFailureGetsTheLineThatExplainsIt) {
  Report r = check_report(1, 1);
  EXPECT_EQ(diagnosis(r, 0), "within the error bound but not this contract's order: try `ordo identify`");
  EXPECT_EQ(diagnosis(r, 1), "");  // passed
  EXPECT_NE(diagnosis(r, 2).find("depend on the batch it is in"), std::string::npos);
  r.results[3].run.failed = 1;
  EXPECT_NE(diagnosis(r, 3).find("depend on the order of the rows"), std::string::npos);
  r.results[4].run.failed = 1;
  EXPECT_NE(diagnosis(r, 4).find("a shard of W does not give its slice"), std::string::npos);
  r.results[1].run.failed = 1;
  EXPECT_EQ(diagnosis(r, 1), "outside the error bound: a wrong result, not a reordering");
  EXPECT_NE(diagnosis(r, 0).find("the error bound failed too"), std::string::npos);
  r.results[2].run.subject_faults = 1;
  EXPECT_NE(diagnosis(r, 2).find("the subject (library or program) faulted"), std::string::npos);
  // The renderers show it.
  const std::string md = to_markdown(r), html = to_html(r);
  EXPECT_NE(md.find("Diagnosis: the subject (library or program) faulted"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"diagnosis\" data-field=\"diagnosis\">Diagnosis: outside the error bound"),
            std::string::npos);
  const Report first = check_report(1, 0);
  EXPECT_NE(to_html(first).find("try <code>ordo identify</code>.</p>"), std::string::npos);
}

TEST(ReportFailingIds, IdsAreCompactAndSayWhatTheyCover) {
  EXPECT_EQ(compact_ids({"c0001", "c0002", "c0003", "c0005", "c0006", "c0009", "c0010", "c0011"}, 10).items,
            "c0001..c0003, c0005, c0006, c0009..c0011");
  EXPECT_EQ(compact_ids({"c0003 vs c0010", "c0003 vs c0011", "c0003 vs c0012", "c0004 vs c0013"}, 10).items,
            "c0003 vs c0010..c0012, c0004 vs c0013");
  EXPECT_EQ(compact_ids({"case 9", "case 10", "case 11", "null x", "null w", "null y"}, 10).items,
            "case 9..11, null x, null w, null y");
  const CompactIds capped = compact_ids({"a", "b", "c", "d"}, 2);
  EXPECT_EQ(capped.items, "a, b");
  EXPECT_EQ(capped.more, 2u);
  FailureRecord generated{"ordo verify --case 17", "differs", "M=3 N=2 K=9 no-bias family=ties", "", 0};
  generated.case_index = 17;
  EXPECT_EQ(failure_id(generated), "case 17");
  PropertyRun run;
  run.cases = 1000;
  run.failed = 240;
  for (int i = 0; i < 50; ++i) {
    generated.case_index = 100 + i;
    run.failures.push_back(generated);
  }
  EXPECT_EQ(failing_ids_label(run), "failing cases (first 50 of 240)");
  EXPECT_EQ(compact_ids(failing_ids(run), 5).items, "case 100..149");
  // The index comes back from report.json.
  Report r = check_report(0, 0);
  r.results[0].run = run;
  r.results[0].run.name = "forward.kernel_equals_emulator";
  const Report back = parse_report(to_json(r).dump(), "t.json");
  EXPECT_EQ(back.results[0].run.failures[7].case_index, 107);
  EXPECT_EQ(back.results[1].run.failures.size(), 0u);
  const std::string md = to_markdown(back);
  EXPECT_NE(md.find("Failing cases (first 50 of 240): `case 100..149`"), std::string::npos) << md;
  EXPECT_NE(md.find("the run kept the first 50 of 240 failures"), std::string::npos);
  EXPECT_NE(to_html(back).find("Failing cases (first 50 of 240): <code data-field=\"failures[].original\">case "
                               "100..149</code>"),
            std::string::npos);
}

TEST(ReportSummaryJson, SaysTheVerdictCountsAndEachRow) {
  Report r = check_report(3, 2);
  r.results[2].run.subject_faults = 1;
  const nlohmann::json j = summary_json(r);
  EXPECT_EQ(j["schema"], "ordo.summary/1");
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["headline"], summarize(r).headline);
  EXPECT_EQ(j["command"], "ordo check /tmp/cases");
  const nlohmann::json& c = j["counts"];
  EXPECT_EQ(c["rows"], 5);
  EXPECT_EQ(c["rows_passed"], 3);
  EXPECT_EQ(c["rows_failed"], 2);
  EXPECT_EQ(c["rows_not_run"], 0);
  EXPECT_EQ(c["cases"], 132);
  EXPECT_EQ(c["failed_cases"], 3);
  EXPECT_EQ(c["relations"], 33);
  EXPECT_EQ(c["failed_relations"], 2);
  EXPECT_EQ(c["subject_faults"], 1);
  ASSERT_EQ(j["rows"].size(), 5u);
  const nlohmann::json& eq = j["rows"][0];
  EXPECT_EQ(eq["property"], "check.equals_contract");
  EXPECT_EQ(eq["kernel"], "/tmp/cases");
  EXPECT_EQ(eq["contract"], "fwd.f32.fma-chain/1");
  EXPECT_EQ(eq["verdict"], "mismatch");
  EXPECT_EQ(eq["unit"], "cases");
  EXPECT_EQ(eq["count"], 66);
  EXPECT_EQ(eq["failed"], 3);
  EXPECT_EQ(eq["subject_faults"], 0);
  EXPECT_EQ(eq["fails"], true);
  EXPECT_EQ(eq["failing_ids"], nlohmann::json({"c0000", "c0001", "c0002"}));
  EXPECT_EQ(eq["diagnosis"], "within the error bound but not this contract's order: try `ordo identify`");
  EXPECT_EQ(eq["reproduce"], "ordo check /tmp/cases --contract fwd.f32.fma-chain/1 --case c0000");
  const nlohmann::json& batch = j["rows"][2];
  EXPECT_EQ(batch["unit"], "relations");
  EXPECT_EQ(batch["count"], 27);
  EXPECT_EQ(batch["verdict"], "subject_fault");
  EXPECT_EQ(batch["failing_ids"], nlohmann::json({"c0003 vs c0010", "c0003 vs c0011"}));
  const nlohmann::json& passing = j["rows"][1];
  EXPECT_EQ(passing["fails"], false);
  EXPECT_EQ(passing["diagnosis"], "");
  EXPECT_EQ(passing["reproduce"], "");
  EXPECT_TRUE(passing["failing_ids"].empty());
}

}  // namespace
}  // namespace ordo::reports
