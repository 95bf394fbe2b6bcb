# The sources of ordo_core, listed once: the main build (core/CMakeLists.txt) and the parsers' fuzz build
# (fuzz/CMakeLists.txt, which compiles them again with libFuzzer's instrumentation) both read this list.
set(ORDO_CORE_SOURCES status.cpp reduction_plan.cpp contract.cpp contract_file.cpp bounded_json.cpp atomic_file.cpp
  bounded_file.cpp float_bits.cpp verdict.cpp problem_checks.cpp problem.cpp logical_keys.cpp backward_problem.cpp)
list(TRANSFORM ORDO_CORE_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
