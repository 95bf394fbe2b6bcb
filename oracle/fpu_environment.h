#pragma once
#include <string>

namespace ordo::oracle {

// The host emulator is only bit exact under IEEE defaults: round to nearest even, no
// flush-to-zero, no denormals-are-zero (a library loaded into the process may have set MXCSR's
// FTZ/DAZ bits, e.g. one built with -ffast-math). Returns an empty string when the environment is
// right, else what is wrong.
std::string host_fpu_environment_problem();

}  // namespace ordo::oracle
