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


def pytest_sessionstart(session):
    """In a pytest-xdist worker, compile one family of kc_env's largest compiled functions before the
    first test, another in the next worker (``warm_up``): on a cold numba cache the workers then
    share the compiling instead of doing the same twice."""
    import os

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        from warm_up import warm_up

        warm_up(worker)
