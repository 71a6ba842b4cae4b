"""Property tests are reproducible under CI: the Hypothesis profile loaded there derandomizes them."""

from __future__ import annotations

import os

from hypothesis import settings


def test_the_ci_profile_derandomizes_and_the_local_one_explores():
    assert settings.get_profile("ci").derandomize is True
    assert settings.get_profile("dev").derandomize is False
    assert settings.default.derandomize is (os.environ.get("CI") == "true")
