"""The pytest plugin, run in an inner pytest session (pytester): options, fixture, marker, failure messages."""
import json

import pytest

INNER = '''
import pytest
import subjects
from subjects import FWD, DW

def test_good(ordo_verify):
    ordo_verify(subjects.fma_chain, contract=FWD)

def test_batch_dependent(ordo_verify):
    ordo_verify(subjects.batch_dependent, contract=FWD)

def test_call_order(ordo_verify):
    ordo_verify(subjects.dw_call_order, contract=DW)

def test_expected_failure(ordo_verify):
    ordo_verify(subjects.dw_call_order, contract=DW, expect_failure=True)

@pytest.mark.ordo(contract=FWD, cases=7)
def test_marker(ordo_verify):
    r = ordo_verify(subjects.fma_chain)
    assert {row.cases for row in r.rows} == {7}

@pytest.mark.parametrize("i", [0, 1])
def test_seed(ordo_seed, request, i):
    print("SEED", request.node.name, ordo_seed)
'''


@pytest.fixture
def inner(pytester, request):
    import pathlib
    pytester.makepyfile(test_inner=INNER)
    pytester.syspathinsert(pathlib.Path(__file__).parent)  # the subjects module
    return pytester


def seeds(result):
    import re
    return dict(re.findall(r"SEED (\S+) (\d+)", result.stdout.str()))


def test_plugin_catches_the_broken_subjects(inner):
    result = inner.runpytest("-p", "no:cacheprovider", "-rf")
    result.assert_outcomes(passed=5, failed=2)
    text = result.stdout.str()
    for name in ("test_batch_dependent", "test_call_order"):
        assert f"FAILED test_inner.py::{name}" in text
    assert "minimal case: M=" in text
    assert "reproduce: ordo.verify(batch_dependent, contract='fwd.f32.fma-chain/1'" in text
    assert "reproduce the test: pytest 'test_inner.py::test_call_order' --ordo-seed 1" in text
    assert "ordo: ordo " in text  # the report header names the library


def test_seeds_are_per_test_and_deterministic(inner):
    a = seeds(inner.runpytest("-s", "-k", "test_seed"))
    b = seeds(inner.runpytest("-s", "-k", "test_seed"))
    c = seeds(inner.runpytest("-s", "-k", "test_seed", "--ordo-seed", "2"))
    assert a == b and a != c and len(a) == 2
    assert len(set(a.values())) == 2  # one seed per test


def test_report_folder_and_level(inner, tmp_path):
    result = inner.runpytest("-k", "test_good", "--ordo-report", str(tmp_path), "--ordo-level", "1")
    result.assert_outcomes(passed=1)
    (folder,) = tmp_path.iterdir()
    report = json.loads((folder / "report.json").read_text())
    assert report["schema"] == "ordo.report/1" and report["verdict"] == "pass" and report["level"] == 1
    bad = inner.runpytest("-k", "test_good", "--ordo-level", "3")
    assert bad.ret != 0
