// The HTML report: one self-contained page (inline CSS and SVG; no script, no font, no URL), so that it
// opens offline and from an artefact store exactly as written. It shows what the Markdown shows (the same
// ReportSummary and provenance lines) plus four figures. Traceability: the verdict is id="verdict"; every
// results row carries data-property / data-kernel / data-contract, every number cell a data-field naming
// its JSON field; every figure is an <svg> with an id, a <title> and a caption naming its source.
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "reports/html_failures.h"
#include "reports/report.h"
#include "reports/row_text.h"
#include "reports/svg_charts.h"

namespace ordo::reports {
namespace {

using svg::escape;
using svg::format_value;

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; font-size: 14px; color: #1f2328; max-width: 1200px; margin: 24px auto; padding: 0 16px; }
.verdict { font-size: 18px; padding: 12px 16px; border-radius: 6px; border: 1px solid; }
.verdict.pass { background: #dafbe1; border-color: #1a7f37; }
.verdict.pass_with_inconclusive { background: #fff8c5; border-color: #9a6700; }
.verdict.fail, .verdict.interrupted { background: #ffebe9; border-color: #cf222e; }
.verdict.inconclusive { background: #f6f8fa; border-color: #57606a; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
.pair { display: flex; gap: 32px; align-items: flex-start; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.fails td { background: #ffebe9; }
tr.not-run td { color: #57606a; }
.contract { color: #57606a; font-size: 12px; }
code, pre { font-family: monospace; font-size: 12px; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 16px 0; }
figcaption { color: #57606a; font-size: 12px; }
.diagnosis { font-weight: bold; }
.failing-ids code, ul.detail-lines li, p.detail { overflow-wrap: anywhere; }
ul.detail-lines { font-size: 12px; }
)css";

// One table cell holding a report number, named by its field.
std::string num_cell(const std::string& field, const std::string& value) {
  return "<td class=\"num\" data-field=\"" + field + "\">" + escape(value) + "</td>";
}

std::string text_cell(const std::string& field, const std::string& value, bool code = false) {
  return "<td data-field=\"" + field + "\">" + (code ? "<code>" : "") + escape(value) + (code ? "</code>" : "") +
         "</td>";
}

std::string figure(const std::string& svg_text, const std::string& caption) {
  return "<figure>\n" + svg_text + "<figcaption>" + escape(caption) + "</figcaption>\n</figure>\n";
}

std::string tightness_figure(const ReportSummary& s) {
  svg::BarChart c;
  c.id = "fig-error-bound";
  c.title = "Max error over bound, per contract and value family";
  c.value_label = "max |y - exact| / bound (at most 1: within the bound)";
  c.reference = 1;
  c.reference_label = "bound";
  c.empty_reason = "no row of this report measured error against a bound (max_error_over_bound_by_family is empty)";
  for (const auto& [contract, by_family] : s.tightness)
    for (const auto& [family, ratio] : by_family) c.bars.push_back({contract, family, ratio});
  c.digits = 6;  // 0.9999993 is not 1: near the bound the digits matter
  return figure(svg::bar_chart(c),
                "From results[].max_error_over_bound_by_family: per contract, the largest over its rows.");
}

std::string bench_figure(const Report& r) {
  svg::BarChart c;
  c.id = "fig-bench-ratio";
  c.title = "Time against cuBLAS, per kernel and shape";
  c.value_label = "kernel time / cuBLAS time (below 1: faster than cuBLAS)";
  c.reference = 1;
  c.reference_label = "cuBLAS";
  c.empty_reason = "this report has no bench rows (bench[] is empty)";
  for (const auto& b : r.bench) {
    const std::string shape =
        std::to_string(b.value("M", 0)) + "x" + std::to_string(b.value("N", 0)) + "x" + std::to_string(b.value("K", 0));
    const nlohmann::json& ratio = b.contains("ratio") ? b["ratio"] : nlohmann::json();
    const bool usable = ratio.is_number() && !b.contains("error");
    c.bars.push_back({b.value("kernel", ""), "M x N x K = " + shape, usable ? ratio.get<double>() : std::nan("")});
  }
  return figure(svg::bar_chart(c), "From bench[]: ratio = ms / cublas_ms for each kernel and shape (M, N, K).");
}

std::string cases_figure(const ReportSummary& s) {
  svg::BarChart c;
  c.id = "fig-cases";
  c.title = "Cases per value family and per shape class";
  c.value_label = "cases (summed over the rows)";
  c.empty_reason = "no row recorded value families or shape classes";
  for (const auto& [name, n] : s.family_cases) c.bars.push_back({"value family", name, static_cast<double>(n)});
  for (const auto& [name, n] : s.shape_cases) c.bars.push_back({"shape class", name, static_cast<double>(n)});
  return figure(svg::bar_chart(c),
                "From results[].families and results[].shape_classes, summed over the rows; a case "
                "counts towards every shape class it is in.");
}

std::string timeline_figure(const Report& r) {
  svg::LineChart c;
  c.id = "fig-timeline";
  c.title = "Campaign: cases and failures over time";
  c.x_label = "seconds since the start";
  c.empty_reason = "this report has no timeline (campaign reports such as ordo fuzz record one)";
  if (!r.timeline.empty()) {
    svg::LinePanel cases{"cases", {}}, failures{"failures", {}};
    for (const TimelinePoint& p : r.timeline) {
      cases.points.push_back({p.seconds, static_cast<double>(p.cases)});
      failures.points.push_back({p.seconds, static_cast<double>(p.failures)});
    }
    c.panels = {cases, failures};
  }
  return figure(svg::line_chart(c), "From timeline[]: seconds, cases and failures at each point.");
}

void results_table(std::ostringstream& h, const Report& r) {
  h << "<table id=\"results-table\">\n<tr><th>property</th><th>subject / contract</th><th>backend</th><th>verdict</th>"
       "<th>run</th><th>failed</th><th>skipped</th><th>elements</th><th>max error/bound</th></tr>\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const ResultRow& row = r.results[i];
    const auto& run = row.run;
    const Verdict v = run.verdict();
    const char* cls = v == Verdict::pass                      ? "pass"
                      : row_lets_run_pass(v, run.skip_reason) ? "not-run"
                                                                          : "fails";
    h << "<tr id=\"result-" << i << "\" class=\"" << cls << "\" data-row=\"" << i << "\" data-property=\""
      << escape(run.name) << "\" data-kernel=\"" << escape(run.kernel) << "\" data-contract=\"" << escape(run.contract)
      << "\" data-verdict=\"" << row.verdict() << "\">" << text_cell("property", run.name)
      << "<td><code data-field=\"kernel\">" << escape(run.kernel)
      << "</code><br><span class=\"contract\" data-field=\"contract\">" << escape(run.contract) << "</span></td>"
      << text_cell("backend", run.backend) << text_cell("verdict", row.verdict())
      << "<td class=\"num\" data-field=\"cases\" data-unit=\"" << escape(run.unit) << "\">" << run.cases << " "
      << escape(unit_for(run.cases, run.unit)) << "</td>" << num_cell("failed", std::to_string(run.failed))
      << num_cell("skipped", std::to_string(run.skipped)) << num_cell("elements", std::to_string(run.elements))
      << num_cell("max_error_over_bound",
                  run.max_error_over_bound != 0 ? format_value(run.max_error_over_bound, 6) : "-")
      << "</tr>\n";
  }
  h << "</table>\n";
}

void count_table(std::ostringstream& h, const std::string& id, const std::string& what,
                 const std::map<std::string, std::int64_t>& counts, const std::string& field) {
  h << "<table id=\"" << id << "\"><tr><th>" << escape(what) << "</th><th>cases</th></tr>\n";
  for (const auto& [name, n] : counts)
    h << "<tr data-name=\"" << escape(name) << "\"><td>" << escape(name) << "</td>"
      << num_cell(field, std::to_string(n)) << "</tr>\n";
  h << "</table>\n";
}

// Rows are value families, columns contracts, as in the Markdown.
void tightness_table(std::ostringstream& h, const ReportSummary& s) {
  std::set<std::string> families;
  for (const auto& [contract, by_family] : s.tightness)
    for (const auto& [family, ratio] : by_family) families.insert(family);
  h << "<p>Tightness of the error bound: max error / bound (at most 1 is within the bound), the largest over the rows "
       "of "
       "each contract.</p>\n<table id=\"tightness-table\"><tr><th>value family</th>";
  for (const auto& [contract, by_family] : s.tightness) h << "<th>" << escape(contract) << "</th>";
  h << "</tr>\n";
  for (const std::string& family : families) {
    h << "<tr data-family=\"" << escape(family) << "\"><td>" << escape(family) << "</td>";
    for (const auto& [contract, by_family] : s.tightness) {
      const auto it = by_family.find(family);
      h << "<td class=\"num\" data-contract=\"" << escape(contract)
        << "\" data-field=\"max_error_over_bound_by_family\">"
        << (it == by_family.end() ? "-" : format_value(it->second, 6)) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
}

// The rows of deliberately broken subjects, one per mutant: what killed it and what the kill cost.
void selftest_section(std::ostringstream& h, const Report& r, const ReportSummary& s) {
  h << "<section id=\"selftest\">\n<h2>Self-test</h2>\n<p id=\"selftest-summary\" data-killed=\"" << s.selftest.killed
    << "\" data-mutants=\"" << s.selftest.mutants << "\">" << escape(selftest_line(s)) << "</p>\n"
    << "<table id=\"selftest-table\"><tr><th>mutant</th><th>backend</th><th>outcome</th><th>killed by</th><th>value "
       "family</th><th>cases</th><th>seconds</th></tr>\n";
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const auto& run = r.results[i].run;
    if (!run.expect_failure) continue;
    const bool killed = run.verdict() == Verdict::pass;
    const std::string family = killed && !run.failures.empty() ? run.failures[0].family : "";
    h << "<tr data-row=\"" << i << "\" data-kernel=\"" << escape(run.kernel) << "\" data-verdict=\""
      << r.results[i].verdict() << "\">" << text_cell("kernel", run.kernel, true) << text_cell("backend", run.backend)
      << text_cell("verdict", std::string(reports::mutant_outcome(run.verdict())))
      << text_cell("property", killed ? run.name : "-")
      << text_cell("failures[0].family", family.empty() ? "-" : family) << num_cell("cases", std::to_string(run.cases))
      << num_cell("seconds", format_value(run.seconds)) << "</tr>\n";
  }
  h << "</table>\n</section>\n";
}

std::string code_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "<code>" : ", <code>") + escape(i) + "</code>";
  return out;
}

}  // namespace

std::string to_html(const Report& r) {
  const ReportSummary s = summarize(r);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ordo report: "
    << escape(s.headline) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  h << "<p id=\"verdict\" class=\"verdict " << s.verdict << "\" data-verdict=\"" << s.verdict << "\"><strong>"
    << escape(s.headline) << "</strong></p>\n";
  h << "<p><code id=\"command\" data-field=\"command\">" << escape(r.command) << "</code></p>\n";

  h << "<section id=\"checked\">\n<h2>What was checked</h2>\n<ul>\n";
  h << "<li>" << count_text(static_cast<std::int64_t>(s.properties.size()), "properties") << ": "
    << code_list(s.properties) << "</li>\n";
  h << "<li>" << count_text(static_cast<std::int64_t>(s.subjects.size()), "subjects") << ": " << code_list(s.subjects)
    << "</li>\n";
  h << "<li>" << count_text(static_cast<std::int64_t>(s.contracts.size()), "contracts") << ": "
    << code_list(s.contracts) << "</li>\n";
  if (s.requested > 0 || s.relations == 0)  // a check of the invariances alone has no case to count
    h << "<li><span data-field=\"cases\">" << s.cases << "</span> cases run of <span data-field=\"requested\">"
      << s.requested << "</span> planned (<span data-field=\"skipped\">" << s.skipped
      << "</span> skipped), <span data-field=\"failed\">" << escape(failed_cases_text(s))
      << "</span>, <span data-field=\"elements\">" << s.elements << "</span> output elements judged</li>\n";
  if (s.relations > 0)
    h << "<li><span data-field=\"relations\">" << s.relations
      << "</span> relations judged (pairs of outputs that must be equal), <span data-field=\"failed_relations\">"
      << s.failed_relations << "</span> failed</li>\n";
  h << "</ul>\n";
  if (!s.family_cases.empty() || !s.shape_cases.empty()) {
    h << "<div class=\"pair\">\n";
    if (!s.family_cases.empty()) count_table(h, "cases-by-family", "value family", s.family_cases, "families");
    if (!s.shape_cases.empty()) count_table(h, "cases-by-shape", "shape class", s.shape_cases, "shape_classes");
    h << "</div>\n" << cases_figure(s);
  }
  h << "</section>\n";

  if (s.selftest.mutants > 0) selftest_section(h, r, s);

  h << "<section id=\"results\">\n<h2>Results</h2>\n";
  results_table(h, r);
  bool any_skip = false;
  for (const ResultRow& row : r.results)
    if (!row.run.skip_reason.empty()) {
      if (!any_skip) h << "<p>Not run, or not all run:</p>\n<ul id=\"not-run\">\n";
      any_skip = true;
      h << "<li data-property=\"" << escape(row.run.name) << "\" data-kernel=\"" << escape(row.run.kernel) << "\">"
        << escape(row.run.name) << " (<code>" << escape(row.run.kernel) << "</code>): " << escape(row.run.skip_reason)
        << "</li>\n";
    }
  if (any_skip) h << "</ul>\n";
  if (!s.tightness.empty()) {
    tightness_table(h, s);
    h << tightness_figure(s);
  }
  h << "</section>\n";

  if (!r.bench.empty()) {
    h << "<section id=\"bench\">\n<h2>Bench</h2>\n<table "
         "id=\"bench-table\"><tr><th>kernel</th><th>M</th><th>N</th><th>K</th><th>ms</th><th>cuBLAS "
         "ms</th><th>time ratio</th></tr>\n";
    for (std::size_t i = 0; i < r.bench.size(); ++i) {
      const auto& b = r.bench[i];
      h << "<tr data-bench=\"" << i << "\" data-kernel=\"" << escape(b.value("kernel", "")) << "\">"
        << text_cell("kernel", b.value("kernel", ""), true) << num_cell("M", std::to_string(b.value("M", 0)))
        << num_cell("N", std::to_string(b.value("N", 0))) << num_cell("K", std::to_string(b.value("K", 0)))
        << num_cell("ms", format_value(b.value("ms", 0.0)))
        << num_cell("cublas_ms", format_value(b.value("cublas_ms", 0.0)))
        << num_cell("ratio",
                    b.contains("error") ? "error: " + b.value("error", "") : format_value(b.value("ratio", 0.0)))
        << "</tr>\n";
    }
    h << "</table>\n" << bench_figure(r) << "</section>\n";
  }

  if (!r.timeline.empty()) {
    h << "<section id=\"timeline\">\n<h2>Campaign timeline</h2>\n<table "
         "id=\"timeline-table\"><tr><th>seconds</th><th>cases</th><th>failures</th></tr>\n";
    for (std::size_t i = 0; i < r.timeline.size(); ++i)
      h << "<tr data-point=\"" << i << "\">" << num_cell("seconds", format_value(r.timeline[i].seconds))
        << num_cell("cases", std::to_string(r.timeline[i].cases))
        << num_cell("failures", std::to_string(r.timeline[i].failures)) << "</tr>\n";
    h << "</table>\n" << timeline_figure(r) << "</section>\n";
  }

  h << html_failures(r);

  h << "<section id=\"provenance\">\n<h2>Provenance</h2>\n<table id=\"provenance-table\">\n";
  for (const ProvenanceItem& item : provenance(r, s))
    h << "<tr data-field=\"" << escape(item.field) << "\"><th>" << escape(item.label) << "</th><td>"
      << escape(item.value) << "</td></tr>\n";
  h << "</table>\n<p>Reproduce (the run, then each failure):</p>\n<pre id=\"reproduce\">";
  for (const std::string& c : s.commands) h << escape(c) << "\n";
  h << "</pre>\n</section>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace ordo::reports
