#pragma once
// Provenance of this build, recorded in every report: which source (commit, dirty tree) and how it was
// compiled, since the bits a verifier reports depend on both (FMA contraction, FTZ, fast-math flags).
namespace ordo {
const char* build_version();
const char* build_git_commit();
bool build_git_dirty();
// Fixed at configure time (cmake/git_info.cmake).
const char* build_type();           // CMAKE_BUILD_TYPE, e.g. "RelWithDebInfo"
const char* build_compiler();       // host compiler id and version, e.g. "GNU 12.2.0"
const char* build_cuda_compiler();  // nvcc's id and version, e.g. "NVIDIA 12.8.93"
const char* build_cxx_flags();      // the flags every host file is compiled with
const char* build_cuda_flags();     // the flags every device file is compiled with (nvcc)
}  // namespace ordo
