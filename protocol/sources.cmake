# The sources of ordo_protocol, listed once: the main build (protocol/CMakeLists.txt) and the parsers' fuzz
# build (fuzz/CMakeLists.txt) both read this list.
set(ORDO_PROTOCOL_SOURCES npy.cpp cases_manifest.cpp strict_json.cpp sha256.cpp corpus_tensor.cpp corpus_entry.cpp
  corpus_entry_write.cpp golden_corpus.cpp golden_backward.cpp regression_corpus.cpp corpus_legacy.cpp
  case_folder.cpp case_writer.cpp)
list(TRANSFORM ORDO_PROTOCOL_SOURCES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
