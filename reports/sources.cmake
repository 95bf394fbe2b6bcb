# The sources of ordo_reports, listed once: the main build (reports/CMakeLists.txt) and the report reader's
# fuzz target (fuzz/CMakeLists.txt) both read this list.
set(ORDO_REPORTS_SOURCES report.cpp json_writer.cpp markdown_writer.cpp markdown_failures.cpp markdown_text.cpp
  html_writer.cpp html_failures.cpp svg_charts.cpp report_reader.cpp row_text.cpp diagnosis.cpp summary_json.cpp
  selftest_summary.cpp)
list(TRANSFORM ORDO_REPORTS_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
