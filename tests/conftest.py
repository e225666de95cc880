"""What every test shares: SB3 gives a model without a logger of its own a fresh ``SB3-<time>``
folder in the temp folder at each ``learn``; the tests that train one keep those in pytest's own
temp folder instead of leaving them behind in /tmp."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_pytests_temp(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield
