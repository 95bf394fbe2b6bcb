// ordo report REPORT.json [--md FILE] [--html FILE]: renders any ordo report (verify, check, probe, fuzz,
// selftest, bench: schema ordo.report/1) as Markdown for a pull request and as one self-contained HTML
// page. Exit 0 rendered, 2 a bad or unreadable report (the message names the file and the field), 4 an
// output that cannot be written.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "core/atomic_file.h"
#include "reports/report.h"
#include "reports/report_reader.h"
#include "tools/commands.h"

namespace ordo::tools {
namespace {

struct ReportCommandOptions {
  std::string report;
  std::string md;
  std::string html;
};

// Whether two paths name one file (either may not exist yet).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec1, ec2;
  const auto ca = std::filesystem::weakly_canonical(a, ec1), cb = std::filesystem::weakly_canonical(b, ec2);
  return !ec1 && !ec2 && ca == cb;
}

int run_report(const ReportCommandOptions& o) {
  for (const std::string* out : {&o.md, &o.html})
    if (!out->empty() && same_file(*out, o.report)) {
      std::fprintf(stderr, "ordo report: %s: is the report being rendered; give another output file\n", out->c_str());
      return 2;
    }
  reports::Report report;
  try {
    report = reports::read_report_file(o.report);
  } catch (const reports::ReportReadError& e) {
    std::fprintf(stderr, "ordo report: bad report, nothing rendered: %s\n", e.what());
    return 2;
  }
  if (o.md.empty() && o.html.empty()) {
    std::cout << reports::to_markdown(report) << std::flush;
    if (!std::cout) {
      std::fprintf(stderr, "ordo report: cannot write the Markdown to stdout\n");
      return 4;
    }
    return 0;
  }
  // Both rendered before either is written: a rendering never leaves one output new and the other stale
  // for a reason other than the file system.
  const std::string md = o.md.empty() ? std::string() : reports::to_markdown(report);
  const std::string html = o.html.empty() ? std::string() : reports::to_html(report);
  try {
    if (!o.md.empty()) write_file_atomically(o.md, md);
    if (!o.html.empty()) write_file_atomically(o.html, html);
  } catch (const FileWriteError& e) {
    std::fprintf(stderr, "ordo report: cannot write: %s\n", e.what());
    return 4;
  }
  std::printf("ordo report: %s (%s)%s%s%s%s\n", o.report.c_str(), reports::report_verdict(report).c_str(),
              o.md.empty() ? "" : ", Markdown: ", o.md.c_str(), o.html.empty() ? "" : ", HTML: ", o.html.c_str());
  return 0;
}

}  // namespace

void register_report(CLI::App& app, int& exit_code) {
  static ReportCommandOptions o;
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Render an ordo report (the report.json of verify, check, probe, fuzz, selftest or a bench) as Markdown for a "
      "pull request, printed or written with --md, and as one self-contained HTML page with figures (--html). Exit 0 "
      "rendered, 2 a bad or unreadable report, 4 an output that cannot be written.");
  cmd->add_option("report", o.report, "the report JSON (schema ordo.report/1)")->required();
  cmd->add_option("--md", o.md, "write the Markdown to this file instead of stdout");
  cmd->add_option("--html", o.html, "write the HTML page to this file");
  cmd->callback([&exit_code] { exit_code = run_report(o); });
}

}  // namespace ordo::tools
