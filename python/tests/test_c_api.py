"""include/ordo/harness.h from plain C99, without Python in the loop: the API serves any language."""
import os
import pathlib
import shutil
import subprocess

import pytest

import ordo

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADERS = ROOT / "include"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.skipif(not (HEADERS / "ordo" / "harness.h").is_file(), reason="no include/ordo/harness.h here")
def test_c_program_verifies_through_the_api(tmp_path):
    lib = pathlib.Path(ordo.library_path)
    exe = tmp_path / "harness_from_c"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{HEADERS}",
                    str(pathlib.Path(__file__).parent / "c" / "harness_from_c.c"), str(lib),
                    f"-Wl,-rpath,{lib.parent}", "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, env=dict(os.environ)).stdout
    assert "expected: ordo_harness_contract_load: unknown contract" in out
    assert "verdict pass aborted 0" in out
