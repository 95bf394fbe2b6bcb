#pragma once
// `--json PATH` and `--json -`: the machine-readable summary of a run (reports/summary_json.h, schema
// ordo.summary/1) for a script or a CI step. With `-`, stdout carries the summary alone: from the moment the
// option is taken, everything the command would print on stdout goes to stderr instead (the progress and the
// verdict lines stay visible), and the summary is written to the real stdout at the end.
#include <string>

#include "reports/report.h"

namespace ordo::tools {

class SummaryOutput {
 public:
  // "" : no summary. "-": stdout (stdout's other output moves to stderr now). Anything else: a file, written
  // atomically; its folder is checked now, before the work (FileWriteError).
  explicit SummaryOutput(std::string target);
  ~SummaryOutput();
  SummaryOutput(const SummaryOutput&) = delete;
  SummaryOutput& operator=(const SummaryOutput&) = delete;

  // Writes the summary of `report` (FileWriteError when the file cannot be written).
  void write(const reports::Report& report) const;

 private:
  std::string target_;
  int real_stdout_ = -1;  // "-": the process's stdout, kept aside
};

}  // namespace ordo::tools
