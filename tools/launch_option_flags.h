#pragma once
// The kernels' launch options (kernels/launch_options.h) as flags of an `ordo` command: --trace-launch,
// --wgmma-stores direct, --fp32-tile NAME ... They change how ordo's variants run, never what they compute.
#include <CLI/CLI.hpp>

#include "kernels/launch_options.h"

namespace ordo::tools {

// Adds every launch option flag to `command`, in a group of their own; each sets its field of `options`
// when parsed (a malformed value is a CLI::ValidationError, exit 2).
void add_launch_option_flags(CLI::App* command, kernels::LaunchOptions& options);

}  // namespace ordo::tools
