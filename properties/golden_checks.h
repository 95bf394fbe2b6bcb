#pragma once
// Golden vectors as a property: the bits a GPU computed for a contract (ordo.corpus/1 golden entries,
// corpus/golden/, recorded by `ordo record-golden`), against a host subject of that contract. `ordo replay`
// runs ordo's own emulators through them; this runs any forward subject, such as an emulator mutant of
// the self-test, whose defect only real hardware bits may show.
#include <string>
#include <vector>

#include "properties/check_result.h"
#include "protocol/corpus_entry.h"
#include "properties/forward_case.h"
#include "subjects/forward_subject.h"

namespace ordo::properties {

// Every forward case of the golden entries for `contract_id` among the *.json files under `dir`, in file
// order; none when `dir` does not exist. Throws CorpusError for an entry that cannot be read.
std::vector<protocol::CorpusCase> golden_forward_cases(const std::string& dir, const std::string& contract_id);

// ForwardCase i of the generator is golden case i: its inputs as explicit values, its label's family.
rc::Gen<ForwardCase> gen_golden_case(const std::vector<protocol::CorpusCase>& cases);

// The subject's output of golden case c.seed equals the recorded bits. A case whose inputs are no longer
// the recorded ones (the runner simplifying a failure's values) has no recorded output and passes.
CheckResult check_equals_golden(ForwardSubject& subject, const std::vector<protocol::CorpusCase>& cases, const ForwardCase& c);

}  // namespace ordo::properties
