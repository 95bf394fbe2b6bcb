#pragma once
// What an `ordo` command's exit status means: the same in every command (README, "Exit codes"), so
// that CI and scripts can branch on it without knowing which command ran.
#include "reports/report.h"

namespace ordo::tools {

enum ExitCode : int {
  kExitPass = 0,         // every check that ran passed, and at least one ran
  kExitFail = 1,         // a check failed: mismatch, bound violation, subject fault, missed refusal,
                         // a surviving mutant, or a case ordo could not check (tool error)
  kExitUsage = 2,        // bad usage or bad input (a malformed file, an unknown id, a busy folder): nothing judged
  kExitNothingRan = 3,   // nothing could run here (no GPU for GPU-only subjects; --require-gpu without one)
  kExitUnwritable = 4,   // an output (report, folder, checkpoint) cannot be written; checked before the work
  kExitInterrupted = 130,  // stopped by SIGINT (SIGTERM: 143); the report of what ran is written, marked so
};

// The exit status of a finished run from its report: interrupted, nothing ran, passed, failed. `signal`
// is the signal that interrupted it (0: none), which gives 128 + signal.
int exit_code_of(const reports::Report& report, int signal = 0);

}  // namespace ordo::tools
