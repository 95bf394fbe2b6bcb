"""ordo.verify against Python subjects: the correct ones pass, the broken ones are caught and shrunk."""
import json

import pytest

import ordo
import subjects
from subjects import DW, DX, FWD


def test_fma_chain_passes(tmp_path):
    r = ordo.verify(subjects.fma_chain, contract=FWD, seed=5, report_dir=tmp_path)
    assert r.passed, str(r)
    names = {row.property for row in r.rows}
    assert {"forward.kernel_equals_emulator", "forward.kernel_batch_invariance",
            "forward.kernel_column_shard_equals_slice", "forward.kernel_within_error_bound"} <= names
    assert r.cases >= 600
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["schema"] == "ordo.report/1" and report["verdict"] == "pass" and report["seed"] == 5
    assert (tmp_path / "report.md").read_text().strip()
    # every value family was drawn
    families = set()
    for row in report["results"]:
        families |= set(row["families"])
    assert set(ordo.families()) <= families


def test_batch_dependent_order_is_caught():
    r = ordo.verify(subjects.batch_dependent, contract=FWD, seed=1)
    assert not r.passed
    failed = {row.property: row for row in r.rows if row.verdict != "pass"}
    assert "forward.kernel_batch_invariance" in failed
    f = failed["forward.kernel_batch_invariance"].failures[0]
    assert "0x" in f.detail and f.minimised
    assert f.reproduce.startswith("ordo.verify(batch_dependent, contract='fwd.f32.fma-chain/1'")
    assert "property='forward.kernel_batch_invariance'" in f.reproduce


def test_reproduce_line_reruns_the_case():
    r = ordo.verify(subjects.batch_dependent, contract=FWD, seed=1)
    f = next(f for f in r.failures if f.property == "forward.kernel_batch_invariance")
    assert f.case_index > 0  # a line that named another case would not reproduce this one
    # The reproduce line is a call: run it as written.
    again = eval(f.reproduce, {"ordo": ordo, "batch_dependent": subjects.batch_dependent})
    assert [(row.property, row.cases, row.failed) for row in again.rows] == [(f.property, 1, 1)]
    assert again.failures[0].detail == f.detail


def test_dw_in_call_order_is_caught():
    r = ordo.verify(subjects.dw_call_order, contract=DW, seed=1)
    assert not r.passed
    failed = {row.property for row in r.rows if row.verdict != "pass"}
    assert {"backward.dw_kernel_equals_emulator", "backward.dw_kernel_permutation_invariance"} <= failed
    detail = next(f.detail for f in r.failures if f.property == "backward.dw_kernel_equals_emulator")
    assert "dW" in detail and "0x" in detail


def test_dw_in_key_order_passes_and_refuses_what_the_contract_refuses():
    r = ordo.verify(subjects.dw_key_order, contract=DW, seed=2)
    assert r.passed, str(r)
    assert "backward.dw_kernel_refuses_invalid_keys" in {row.property for row in r.rows}


def test_dx_passes():
    assert ordo.verify(subjects.dx_chain, contract=DX, seed=4).passed


def test_contract_properties_run_when_asked():
    r = ordo.verify(subjects.fma_chain, contract=FWD, cases=3, contract_properties=True)
    names = {row.property for row in r.rows}
    assert {"forward.emulator_equals_scalar_reference", "forward.emulator_within_error_bound"} <= names
    assert "forward.emulator_equals_scalar_reference" not in {
        row.property for row in ordo.verify(subjects.fma_chain, contract=FWD, cases=3).rows}


def test_raise_for_failure_and_assert_verified():
    with pytest.raises(ordo.VerificationFailed, match="reproduce: ordo.verify"):
        ordo.assert_verified(subjects.batch_dependent, contract=FWD)
    assert ordo.assert_verified(subjects.fma_chain, contract=FWD, cases=5).passed


def test_accumulating_dw_subject():
    calls = []

    def dw_accumulating(x, g, keys, dw=None, db=None):
        calls.append(dw is not None)
        rdw, rdb = ordo.emulate_backward_weight(x, g, keys, contract=DW)
        if dw is None:
            return rdw, rdb
        # Not a continuation of the chains: adding a microbatch's result to the previous one rounds twice.
        return (dw + rdw).astype("float32"), (db + rdb).astype("float32") if db is not None else rdb

    r = ordo.verify(dw_accumulating, contract=DW, accumulate=True, seed=1)
    assert any(calls)
    row = next(row for row in r.rows if row.property == "backward.dw_kernel_microbatches_equal_whole")
    assert row.verdict != "pass"


def test_report_renders_with_the_ordo_program(tmp_path):
    import pathlib
    import shutil
    import subprocess
    root = pathlib.Path(__file__).resolve().parents[2]
    # The repository's build, the GPU bundle's folder (python/tests lies under it), or the PATH.
    candidates = [root / "build" / "tools" / "ordo", root / "ordo", shutil.which("ordo") or ""]
    program = next((str(p) for p in candidates if str(p) and pathlib.Path(p).is_file()), "")
    if not program:
        pytest.skip("the ordo program is not built here")
    r = ordo.verify(subjects.batch_dependent, contract=FWD, seed=1, report_dir=tmp_path)
    assert not r.passed
    md = subprocess.run([program, "report", str(tmp_path / "report.json")], capture_output=True, text=True)
    assert md.returncode == 0, md.stderr
    assert "forward.kernel_batch_invariance" in md.stdout and "ordo.verify(batch_dependent" in md.stdout
    html = subprocess.run([program, "report", str(tmp_path / "report.json"), "--html", str(tmp_path / "report.html")],
                          capture_output=True, text=True)
    assert html.returncode == 0 and "(fail)" in html.stdout, html.stderr
    assert (tmp_path / "report.html").stat().st_size > 0
