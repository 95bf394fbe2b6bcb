#include "reports/row_text.h"

#include <cctype>
#include <sstream>

namespace ordo::reports {
namespace {

// An id as a prefix and a decimal tail ("c0012", "case 17", "c0003 vs c0010"); ids without one (a
// scenario) are never part of a range.
struct NumberedId {
  std::string prefix, digits, last_word;  // last_word: after the last space ("c0010", "17")
  std::int64_t number = 0;
};

bool parse_numbered(const std::string& id, NumberedId* out) {
  std::size_t tail = id.size();
  while (tail > 0 && std::isdigit(static_cast<unsigned char>(id[tail - 1]))) --tail;
  if (tail == id.size() || id.size() - tail > 15) return false;
  out->prefix = id.substr(0, tail);
  const std::size_t space = id.rfind(' ');
  out->last_word = space == std::string::npos ? id : id.substr(space + 1);
  out->digits = id.substr(tail);
  out->number = std::stoll(out->digits);
  return true;
}

// Whether `next` follows `prev` in a range: one prefix, the next number, and zero-padded ids of one width
// ("c0009", "c0010"; "case 9", "case 10").
bool follows(const NumberedId& prev, const NumberedId& next) {
  if (next.prefix != prev.prefix || next.number != prev.number + 1) return false;
  const bool padded = prev.digits.size() > 1 && prev.digits[0] == '0';
  return !padded || next.digits.size() == prev.digits.size();
}

// "c0010..c0014", "case 10..14", "c0003 vs c0010..c0014": the last id's last word ends the range.
std::string range_text(const std::string& first, const NumberedId& last) { return first + ".." + last.last_word; }

}  // namespace

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

bool counts_relations(const PropertyRun& run) { return run.unit == "relations"; }

std::string unit_for(std::int64_t n, const std::string& unit) {
  if (n != 1 || unit.empty() || unit.back() != 's') return unit;
  if (unit.size() > 3 && unit.compare(unit.size() - 3, 3, "ies") == 0) return unit.substr(0, unit.size() - 3) + "y";
  return unit.substr(0, unit.size() - 1);
}

std::string count_text(std::int64_t n, const std::string& unit) { return grouped(n) + " " + unit_for(n, unit); }

bool row_fails(const PropertyRun& run) {
  return !row_lets_run_pass(run.verdict(), run.skip_reason);
}

std::string failure_id(const FailureRecord& f) {
  if (f.case_index >= 0) return "case " + std::to_string(f.case_index);
  return f.original;
}

std::vector<std::string> failing_ids(const PropertyRun& run) {
  std::vector<std::string> ids;
  ids.reserve(run.failures.size());
  for (const FailureRecord& f : run.failures) ids.push_back(failure_id(f));
  return ids;
}

CompactIds compact_ids(const std::vector<std::string>& ids, std::size_t max_items) {
  std::vector<std::string> items;
  std::size_t covered = 0;  // ids the items stand for
  for (std::size_t i = 0; i < ids.size() && items.size() < max_items;) {
    NumberedId first, last, next;
    std::size_t end = i + 1;
    if (parse_numbered(ids[i], &first)) {
      last = first;
      while (end < ids.size() && parse_numbered(ids[end], &next) && follows(last, next)) {
        last = next;
        ++end;
      }
    }
    if (end - i >= 3) {
      items.push_back(range_text(ids[i], last));
    } else {
      end = i + 1;
      items.push_back(ids[i]);
    }
    covered += end - i;
    i = end;
  }
  CompactIds out;
  for (const std::string& item : items) out.items += (out.items.empty() ? "" : ", ") + item;
  out.more = ids.size() - covered;
  return out;
}

std::string failed_count_text(const PropertyRun& run) {
  return grouped(run.failed) + " of " + count_text(run.cases, run.unit) + " failed";
}

std::string failing_ids_label(const PropertyRun& run) {
  std::string label = "failing " + run.unit;
  const auto kept = static_cast<std::int64_t>(run.failures.size());
  if (kept < run.failed) label += " (first " + grouped(kept) + " of " + grouped(run.failed) + ")";
  return label;
}

std::vector<std::string> detail_lines(const std::string& detail) {
  std::vector<std::string> lines;
  std::istringstream in(detail);
  for (std::string line; std::getline(in, line);) {
    const std::size_t text = line.find_first_not_of(' ');
    lines.push_back(text == std::string::npos ? "" : line.substr(text));
  }
  return lines;
}

}  // namespace ordo::reports
