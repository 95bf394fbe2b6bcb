#pragma once
// How a report row's counts and failures are named, the same way in the Markdown, the HTML, the console
// and the summary JSON: "27 relations" for `ordo check`'s invariance rows, never "27 cases"; a failure by
// its case id ("c0012"), its relation ("c0003 vs c0010") or its index in the case stream ("case 17").
#include <cstdint>
#include <string>
#include <vector>

#include "core/run_record.h"

namespace ordo::reports {

// 36663 -> "36,663", for prose; tables keep the plain number, as the JSON has it.
std::string grouped(std::int64_t n);

// Whether a row counts relations (pairs of outputs that must be equal) rather than cases.
bool counts_relations(const PropertyRun& run);
// "case" or "cases", "relation" or "relations", "property" or "properties": the unit as many as n.
std::string unit_for(std::int64_t n, const std::string& unit);
// "1 case", "500 cases", "1 relation", "27 relations" (grouped digits).
std::string count_text(std::int64_t n, const std::string& unit);
// A row that fails the run: neither a pass nor a stated reason for not running.
bool row_fails(const PropertyRun& run);

// The failure's case: "case 17" for a generated case (its index in the property's stream), else what the
// row recorded as the case: an `ordo check` case id, a relation's pair, a malformed call's scenario.
std::string failure_id(const FailureRecord& f);
// The ids of the failures a row kept, in order (a row keeps only its first failures; `failed` counts all).
std::vector<std::string> failing_ids(const PropertyRun& run);
// "c0003, c0010..c0014, c0020", "c0003 vs c0010..c0014", "case 3..9": runs of three or more consecutive
// ids of one prefix as a range, at most `max_items` items; `more` ids are left out after them.
struct CompactIds {
  std::string items;
  std::size_t more = 0;
};
CompactIds compact_ids(const std::vector<std::string>& ids, std::size_t max_items);
// "3 of 27 relations failed".
std::string failed_count_text(const PropertyRun& run);
// What a list of failing_ids() covers: "failing cases", or "failing cases (first 50 of 240)" when the row
// kept fewer failures than failed.
std::string failing_ids_label(const PropertyRun& run);

// A failure's detail, one entry per line: the summary first, then one line per differing element (the
// writers indent those lines by four spaces; the indentation is dropped here).
std::vector<std::string> detail_lines(const std::string& detail);

}  // namespace ordo::reports
