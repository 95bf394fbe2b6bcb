"""ordo's pytest plugin (registered through the `pytest11` entry point of python/pyproject.toml).

Options: --ordo-level 1|2, --ordo-seed N (the base seed; each test derives its own from it and its node id,
so a test's cases do not change when other tests are added), --ordo-report DIR (one report folder per test).
Fixture `ordo_verify`: ordo.verify with those settings; a failure fails the test with the minimised
counterexample, both outputs in hex, the ordo.verify call and the pytest command that reproduce it.
Marker `@pytest.mark.ordo(contract=..., op=..., cases=..., level=...)`: defaults for the fixture's calls.
"""
import hashlib
import re

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("ordo", "ordo: fixed-order GEMM contracts")
    group.addoption("--ordo-level", type=int, default=1, choices=(1, 2),
                    help="case budget of ordo_verify: 1 (CI, default) or 2 (qualification)")
    group.addoption("--ordo-seed", type=int, default=1,
                    help="base seed; each test's seed is derived from it and the test's node id (default 1)")
    group.addoption("--ordo-report", metavar="DIR", default=None,
                    help="write each ordo_verify call's report (ordo.report/1 JSON and Markdown) under DIR/<test>/")


def pytest_configure(config):
    config.addinivalue_line("markers", "ordo(contract=None, op=None, level=None, cases=None, **verify_options): "
                                       "defaults for the ordo_verify fixture in this test")


def pytest_report_header(config):
    try:
        import ordo
        where = f"{ordo.library_version} ({ordo.library_path})"
    except ImportError as e:  # the library is missing: say so once, the tests that need it fail with it
        where = f"not loadable: {e}"
    return f"ordo: {where}; level {config.getoption('ordo_level')}, base seed {config.getoption('ordo_seed')}"


def derive_seed(base_seed, nodeid):
    """The seed of one test: stable across runs, machines and test selection."""
    digest = hashlib.sha256(f"{base_seed}|{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


class OrdoVerify:
    """The ordo_verify fixture's value: call it like ordo.verify, without the level and seed."""

    def __init__(self, request):
        self.request = request
        config = request.config
        self.level = config.getoption("ordo_level")
        self.base_seed = config.getoption("ordo_seed")
        self.seed = derive_seed(self.base_seed, request.node.nodeid)
        self.report_root = config.getoption("ordo_report")
        marker = request.node.get_closest_marker("ordo")
        self.defaults = dict(marker.kwargs) if marker else {}
        self.calls = 0

    def _report_dir(self):
        if not self.report_root:
            return None
        import pathlib
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.request.node.nodeid).strip("_")
        folder = pathlib.Path(self.report_root) / name
        if self.calls > 1:
            folder = folder / f"call{self.calls}"
        return str(folder)

    def reproduce_command(self):
        return (f"pytest '{self.request.node.nodeid}' --ordo-seed {self.base_seed}"
                + (f" --ordo-level {self.level}" if self.level != 1 else ""))

    def __call__(self, fn, *, expect_failure=False, **kwargs):
        """Runs ordo.verify(fn, ...) and fails the test unless it passes (or, with expect_failure=True,
        unless it fails: for tests of a deliberately broken subject). Returns the VerifyResult."""
        import ordo
        options = {**self.defaults, **kwargs}
        options.setdefault("level", self.level)
        options.setdefault("seed", self.seed)
        self.calls += 1
        report_dir = options.pop("report_dir", None) or self._report_dir()
        result = ordo.verify(fn, report_dir=report_dir, **options)
        if expect_failure:
            if result.passed:
                pytest.fail(f"ordo_verify: expected ordo to catch this subject, but it passed\n{result}\n"
                            f"reproduce: {self.reproduce_command()}", pytrace=False)
            return result
        if not result.passed:
            pytest.fail(f"{result}\nreproduce the test: {self.reproduce_command()}", pytrace=False)
        return result


@pytest.fixture
def ordo_verify(request):
    """ordo.verify with this run's --ordo-level, this test's seed and --ordo-report; fails the test with the
    minimal counterexample and the reproduce lines."""
    return OrdoVerify(request)


@pytest.fixture
def ordo_seed(request):
    """This test's seed (derived from --ordo-seed and the node id)."""
    return derive_seed(request.config.getoption("ordo_seed"), request.node.nodeid)
