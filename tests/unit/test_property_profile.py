"""Property tests are reproducible under CI: the Hypothesis profile loaded there derandomizes them."""

from __future__ import annotations

import importlib
import os

from hypothesis import settings

from tests.conftest import REPO



def test_the_ci_profile_derandomizes_and_the_local_one_explores(pytestconfig):
    assert settings.get_profile("ci").derandomize is True and settings.get_profile("ci").deadline is None
    assert settings.get_profile("dev").derandomize is False
    if not pytestconfig.getoption("hypothesis_profile", None):  # --hypothesis-profile NAME wins over CI
        assert settings.default.derandomize is (os.environ.get("CI") == "true")


def test_no_property_test_opts_out_of_the_loaded_profile():
    """A test's own @settings may change its example count, not the profile's derandomize; no @seed either."""
    tests = []
    for path in sorted(REPO.glob("tests/**/test_*.py")):
        if "from hypothesis import" in path.read_text(encoding="utf-8"):
            module = importlib.import_module(".".join(path.relative_to(REPO).with_suffix("").parts))
            tests += [f for f in vars(module).values() if hasattr(f, "_hypothesis_internal_use_settings")]
    assert len(tests) >= 10
    for test in tests:
        assert test._hypothesis_internal_use_settings.derandomize is settings.default.derandomize, test.__name__
        assert getattr(test, "_hypothesis_internal_use_seed", None) is None, test.__name__
