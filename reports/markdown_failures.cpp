#include "reports/markdown_failures.h"

#include <cctype>
#include <sstream>

#include "reports/diagnosis.h"
#include "reports/markdown_text.h"
#include "reports/row_text.h"

namespace ordo::reports {
namespace {

constexpr std::size_t kFailuresShownPerRow = 3;  // in full; the rest are pointed to
constexpr std::size_t kIdsShown = 40;            // items of a row's failing-id list (a range is one item)
constexpr std::size_t kDetailLines = 24;         // of one failure's detail: its summary and 23 elements
constexpr std::size_t kLineChars = 600;          // of one detail line, of an id, of a minimised case's line
constexpr std::size_t kMinimisedLines = 16;
// Room kept for the line that points to a row's hidden failures, and for the last line of the section.
constexpr std::size_t kPointerReserve = 240;

// The lines of `text`, at most `max_lines` (then a line saying how many more) and each clipped.
std::string clipped_lines(const std::vector<std::string>& lines, std::size_t max_lines, const std::string& indent) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < max_lines; ++i)
    out += (i == 0 ? "" : indent) + markdown::clipped(lines[i], kLineChars) + "\n";
  if (lines.size() > max_lines)
    out += indent + "... " + std::to_string(lines.size() - max_lines) + " more lines in report.json\n";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Heading, verdict, diagnosis and failing ids of a row: always shown for a row that failed.
std::string row_head(const Report& r, std::size_t i) {
  const PropertyRun& run = r.results[i].run;
  const bool caught = run.expect_failure && run.passed();
  std::ostringstream md;
  md << "\n#### " << markdown::code(markdown::clipped(run.name, kLineChars)) << " on "
     << markdown::code(markdown::clipped(run.kernel, kLineChars)) << ": "
     << (caught ? "expected (a self-test: the broken subject was caught)" : "FAILED (" + r.results[i].verdict() + ")")
     << (run.failed > 0 ? ", " + failed_count_text(run) : "") << "\n\n";
  if (const std::string why = diagnosis(r, i); !why.empty()) md << "Diagnosis: " << why << ".\n\n";
  if (!run.failures.empty()) {
    std::vector<std::string> ids;
    for (const std::string& id : failing_ids(run)) ids.push_back(markdown::clipped(id, kLineChars));
    std::string label = failing_ids_label(run);
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
    const CompactIds list = compact_ids(ids, kIdsShown);
    md << label << ": " << markdown::code(list.items)
       << (list.more > 0 ? " and " + grouped(static_cast<std::int64_t>(list.more)) + " more" : "") << "\n";
  }
  return md.str();
}

// One failure in full: its case, the command that reproduces it, its detail one line per element.
std::string failure_block(const FailureRecord& f) {
  std::ostringstream md;
  md << "\n"
     << markdown::code(markdown::clipped(failure_id(f), kLineChars)) << ":\n\n"
     << markdown::fenced(markdown::clipped(f.reproduce, kLineChars))
     << markdown::fenced(clipped_lines(detail_lines(f.detail), kDetailLines, "    "));
  if (!f.minimised.empty())
    md << "\nminimised (" << f.shrink_steps << " steps):\n\n"
       << markdown::fenced(clipped_lines(split_lines(f.minimised), kMinimisedLines, ""));
  return md.str();
}

// Where the failures a row does not show are: "... 240 more failures in report.json (results[3].failures)
// and report.html", and how many the run did not keep at all.
std::string hidden_pointer(const PropertyRun& run, std::size_t row, std::size_t shown) {
  const std::size_t kept = run.failures.size();
  std::string out;
  if (shown < kept)
    out += "... " + grouped(static_cast<std::int64_t>(kept - shown)) + (shown == 0 ? "" : " more") +
           (kept - shown == 1 ? " failure" : " failures") + " in report.json (results[" + std::to_string(row) +
           "].failures) and report.html";
  if (static_cast<std::int64_t>(kept) < run.failed)
    out += std::string(out.empty() ? "" : "; ") + "the run kept the first " + grouped(static_cast<std::int64_t>(kept)) +
           " of " + grouped(run.failed) + " failures";
  return out.empty() ? "" : "\n" + out + "\n";
}

}  // namespace

MarkdownFailures markdown_failures(const Report& r, std::size_t budget) {
  // The rows to show, in order of importance: failing rows, then the failures self-tests must find.
  std::vector<std::size_t> order;
  for (const bool failing : {true, false})
    for (std::size_t i = 0; i < r.results.size(); ++i) {
      const PropertyRun& run = r.results[i].run;
      if (row_fails(run) == failing && (failing || !run.failures.empty())) order.push_back(i);
    }
  MarkdownFailures out;
  if (order.empty()) return out;

  const std::string heading = "\n### Failures\n";
  std::size_t used = heading.size() + kPointerReserve;
  std::vector<std::string> heads(r.results.size());
  std::vector<std::vector<std::string>> shown(r.results.size());
  std::vector<std::size_t> headed;
  // The headings take at most half the budget: with hundreds of failing rows, the first failures of the
  // first rows in full say more than the headings of the last.
  const std::size_t heads_budget = used + (budget > used ? (budget - used) / 2 : 0);
  for (std::size_t i : order) {
    std::string head = row_head(r, i);
    if (used + head.size() + kPointerReserve > heads_budget) break;
    used += head.size() + kPointerReserve;
    heads[i] = std::move(head);
    headed.push_back(i);
  }
  // A row's k-th failure after every row's (k-1)-th; a row stops at its first failure that does not fit,
  // so that what it shows is always its first failures.
  std::vector<bool> stopped(r.results.size(), false);
  for (std::size_t k = 0; k < kFailuresShownPerRow; ++k)
    for (std::size_t i : headed) {
      const PropertyRun& run = r.results[i].run;
      if (stopped[i] || k >= run.failures.size()) continue;
      std::string block = failure_block(run.failures[k]);
      const std::size_t cost = block.size() + run.failures[k].reproduce.size() + 1;
      if (used + cost > budget) {
        stopped[i] = true;
        continue;
      }
      used += cost;
      shown[i].push_back(std::move(block));
    }

  std::ostringstream md;
  md << heading;
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    if (heads[i].empty()) continue;
    md << heads[i];
    for (const std::string& block : shown[i]) md << block;
    for (std::size_t k = 0; k < shown[i].size(); ++k) out.reproduce.push_back(r.results[i].run.failures[k].reproduce);
    md << hidden_pointer(r.results[i].run, i, shown[i].size());
  }
  if (headed.size() < order.size())
    md << "\n... " << order.size() - headed.size() << " more rows with failures: see report.json (results[].failures) "
       << "and report.html\n";
  out.text = md.str();
  return out;
}

}  // namespace ordo::reports
