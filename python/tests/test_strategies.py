"""Hypothesis strategies over ordo's value families and shapes (skipped without hypothesis)."""
import numpy as np
import pytest

import ordo
import subjects

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from ordo import strategies  # noqa: E402

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(strategies.forward_cases(contract=subjects.FWD, max_m=16, max_n=16, max_k=64))
def test_fma_chain_matches_on_every_family(case):
    ordo.assert_matches(subjects.fma_chain(case.x, case.w, case.b), case.x, case.w, case.b, contract=subjects.FWD,
                        bound_elements=16)


@FAST
@given(strategies.forward_cases(contract="fwd.bf16.tc-fdpa-sm90/1", max_m=8, max_n=8, max_k=64))
def test_bf16_cases_are_bit_patterns(case):
    assert case.x.dtype == np.uint16 and case.w.dtype == np.uint16
    y = ordo.emulate(case.x, case.w, case.b, contract="fwd.bf16.tc-fdpa-sm90/1")
    assert ordo.check(y, case.x, case.w, case.b, contract="fwd.bf16.tc-fdpa-sm90/1", bound_elements=8).passed


def test_hypothesis_finds_the_batch_dependent_subject():
    def differs(case):
        y = subjects.batch_dependent(case.x, case.w, case.b)
        return not ordo.check(y, case.x, case.w, case.b, contract=subjects.FWD, bound_elements=0).passed

    found = hypothesis.find(strategies.forward_cases(contract=subjects.FWD, max_m=32, max_n=8, max_k=64), differs,
                            settings=settings(max_examples=500, deadline=None, database=None))
    assert found.x.shape[0] >= 8 and found.x.shape[1] > 4  # shrunk to where the split starts to matter
    assert "ordo.generate(" in repr(found)
