#pragma once
// The move of the corpus from its three first formats (ordo.golden/1, ordo.golden-backward/1,
// ordo.regression/1; protocol/golden_corpus.h, golden_backward.h, regression_corpus.h) to ordo.corpus/1
// (protocol/corpus_entry.h), and the proof that it lost no bit: legacy_difference compares every input
// and output bit of a legacy file, as its own reader reads it, with the entry that replaced it, as the new
// reader reads it. tests/data/legacy-corpus/ keeps the legacy files for that comparison
// (tests/host/legacy_corpus_test.cpp); tests/legacy/convert_legacy_corpus.cpp is the one-off tool that
// wrote corpus/ from them.
#include <string>

#include "protocol/corpus_entry.h"
#include "protocol/golden_backward.h"
#include "protocol/golden_corpus.h"
#include "protocol/regression_corpus.h"

namespace ordo::protocol {

// Conversions. Every case keeps its values bit for bit; a golden case's family becomes its label, a
// regression's name its file name, its description the why, each of its cases its rows in the case's
// order (with the file's keys only when the case used them) and its order text the label. The contract
// must be a built-in id (ContractFileError otherwise).
CorpusEntry convert_legacy_golden(const GoldenFile& f);
CorpusEntry convert_legacy_golden_backward(const GoldenBackwardFile& f);
CorpusEntry convert_legacy_regression(const RegressionFile& f);

// "" when every case of the legacy file and of the entry agree in every input and output bit (shapes,
// values, keys, row order, bias, output dtype, the order of the cases) and in the header (contract,
// variant, GPU, commit); else the first difference, located ("case 3: x[17]: 0x... against 0x...").
std::string legacy_difference(const GoldenFile& f, const CorpusEntry& e);
std::string legacy_difference(const GoldenBackwardFile& f, const CorpusEntry& e);
std::string legacy_difference(const RegressionFile& f, const CorpusEntry& e);

}  // namespace ordo::protocol
