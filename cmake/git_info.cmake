# Records the commit and whether the tree was dirty, at build time, for report provenance.
set(ORDO_GIT_INFO_CPP ${CMAKE_BINARY_DIR}/generated/git_info.cpp)
add_custom_target(ordo_git_info_stamp
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${ORDO_GIT_INFO_CPP}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/write_git_info.cmake
  BYPRODUCTS ${ORDO_GIT_INFO_CPP}
  COMMENT "Recording git commit for report provenance")
