#pragma once
// Provenance of this build, recorded in every report.
namespace ordo {
const char* build_version();
const char* build_git_commit();
bool build_git_dirty();
}  // namespace ordo
