#include "reports/html_failures.h"

#include <cctype>
#include <sstream>

#include "reports/diagnosis.h"
#include "reports/row_text.h"
#include "reports/svg_charts.h"

namespace ordo::reports {
namespace {

using svg::escape;

constexpr std::size_t kFailuresOpen = 3;  // shown unfolded; the rest of a row's failures in a <details>

bool is_hex_digit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// A detail line escaped, with every hex literal ("0x47090f26") in <code>.
std::string with_hex_as_code(const std::string& line) {
  std::string out, text;
  for (std::size_t i = 0; i < line.size();) {
    const bool starts_word = i == 0 || !std::isalnum(static_cast<unsigned char>(line[i - 1]));
    if (starts_word && line.compare(i, 2, "0x") == 0 && i + 2 < line.size() && is_hex_digit(line[i + 2])) {
      std::size_t end = i + 2;
      while (end < line.size() && is_hex_digit(line[end])) ++end;
      out += escape(text) + "<code>" + escape(line.substr(i, end - i)) + "</code>";
      text.clear();
      i = end;
    } else {
      text += line[i++];
    }
  }
  return out + escape(text);
}

// Our own prose with `code` in backticks (a diagnosis), escaped, the backtick spans as <code>.
std::string with_backticks_as_code(const std::string& text) {
  std::string out;
  bool in_code = false;
  std::size_t from = 0;
  for (std::size_t at = text.find('`'); at != std::string::npos; at = text.find('`', from)) {
    out += escape(text.substr(from, at - from)) + (in_code ? "</code>" : "<code>");
    in_code = !in_code;
    from = at + 1;
  }
  return out + escape(text.substr(from)) + (in_code ? "</code>" : "");
}

std::string failure_item(const FailureRecord& f, std::size_t k) {
  std::ostringstream h;
  const std::vector<std::string> lines = detail_lines(f.detail);
  h << "<li class=\"failure\" data-failure=\"" << k << "\"><p><code data-field=\"original\">" << escape(failure_id(f))
    << "</code></p>\n<pre data-field=\"reproduce\">" << escape(f.reproduce) << "</pre>\n<p class=\"detail\" "
    << "data-field=\"detail\">" << (lines.empty() ? "" : with_hex_as_code(lines[0])) << "</p>\n";
  if (lines.size() > 1) {
    h << "<ul class=\"detail-lines\">\n";
    for (std::size_t i = 1; i < lines.size(); ++i) h << "<li>" << with_hex_as_code(lines[i]) << "</li>\n";
    h << "</ul>\n";
  }
  if (!f.minimised.empty())
    h << "<p>minimised (" << f.shrink_steps << " steps):</p>\n<pre data-field=\"minimised\">" << escape(f.minimised)
      << "</pre>\n";
  h << "</li>\n";
  return h.str();
}

void row_failures(std::ostringstream& h, const Report& r, std::size_t i) {
  const PropertyRun& run = r.results[i].run;
  const bool caught = run.expect_failure && run.passed();
  h << "<article class=\"row-failures\" id=\"failures-" << i << "\" data-row=\"" << i << "\" data-property=\""
    << escape(run.name) << "\" data-kernel=\"" << escape(run.kernel) << "\" data-verdict=\"" << r.results[i].verdict()
    << "\">\n<h3><code>" << escape(run.name) << "</code> on <code>" << escape(run.kernel) << "</code>: "
    << (caught ? "expected (a self-test: the broken subject was caught)"
               : "FAILED (" + escape(r.results[i].verdict()) + ")")
    << (run.failed > 0 ? ", " + escape(failed_count_text(run)) : "") << "</h3>\n";
  if (const std::string why = diagnosis(r, i); !why.empty())
    h << "<p class=\"diagnosis\" data-field=\"diagnosis\">Diagnosis: " << with_backticks_as_code(why) << ".</p>\n";
  if (!run.failures.empty()) {
    std::string label = failing_ids_label(run);
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    const CompactIds ids = compact_ids(failing_ids(run), run.failures.size());
    h << "<p class=\"failing-ids\">" << escape(label) << ": <code data-field=\"failures[].original\">"
      << escape(ids.items) << "</code></p>\n<ol class=\"failures\">\n";
    for (std::size_t k = 0; k < run.failures.size() && k < kFailuresOpen; ++k) h << failure_item(run.failures[k], k);
    h << "</ol>\n";
    if (run.failures.size() > kFailuresOpen) {
      h << "<details>\n<summary>" << run.failures.size() - kFailuresOpen << " more failures</summary>\n<ol start=\""
        << kFailuresOpen + 1 << "\" class=\"failures\">\n";
      for (std::size_t k = kFailuresOpen; k < run.failures.size(); ++k) h << failure_item(run.failures[k], k);
      h << "</ol>\n</details>\n";
    }
  }
  if (static_cast<std::int64_t>(run.failures.size()) < run.failed)
    h << "<p>The run kept the first " << grouped(static_cast<std::int64_t>(run.failures.size())) << " of "
      << grouped(run.failed) << " failures.</p>\n";
  h << "</article>\n";
}

}  // namespace

std::string html_failures(const Report& r) {
  std::ostringstream h;
  bool any = false;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    const PropertyRun& run = r.results[i].run;
    if (!row_fails(run) && run.failures.empty()) continue;
    if (!any) h << "<section id=\"failures\">\n<h2>Failures</h2>\n";
    any = true;
    row_failures(h, r, i);
  }
  if (any) h << "</section>\n";
  return h.str();
}

}  // namespace ordo::reports
