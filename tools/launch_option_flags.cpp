#include "tools/launch_option_flags.h"

#include <string>

namespace ordo::tools {

void add_launch_option_flags(CLI::App* command, kernels::LaunchOptions& options) {
  const std::string group = "Launch options (how ordo's variants run; the bits are the same)";
  for (const kernels::LaunchOptionFlag& f : kernels::launch_option_flags()) {
    const std::string name = f.name;
    if (*f.values == '\0') {
      command
          ->add_flag_callback(
              name,
              [&options, name] {
                if (std::string e = kernels::set_launch_option(&options, name, ""); !e.empty())
                  throw CLI::ValidationError(name, e);
              },
              f.help)
          ->group(group);
      continue;
    }
    command
        ->add_option_function<std::string>(
            name,
            [&options, name](const std::string& value) {
              if (std::string e = kernels::set_launch_option(&options, name, value); !e.empty())
                throw CLI::ValidationError(name, e);
            },
            std::string(f.help) + " (" + f.values + ")")
        ->group(group);
  }
}

}  // namespace ordo::tools
