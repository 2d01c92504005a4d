"""Hypothesis settings for the whole suite.

By default every run draws the same examples (``derandomize``): CI is deterministic, and a
failing example found while developing is pinned with ``@example`` where it was found. There is
no deadline: the suite also runs on a loaded machine (CI), where a slow example is not a defect.
``HYPOTHESIS_PROFILE=explore python -m pytest`` searches with fresh random examples instead:
run it when changing code that a property test covers.
"""
import os

import pytest

from quantity_guard import datums


@pytest.fixture
def tag():
    """A fresh tag for the peer processes a test starts (``mcp_peers.driver.new_tag``); any
    process still carrying it afterwards is killed."""
    from mcp_peers.driver import new_tag, reap
    t = new_tag()
    yield t
    reap(t)


@pytest.fixture(autouse=True)
def _datum_registry_as_found():
    """The datum registry is the process's: what a test registers is forgotten after it."""
    with datums.isolated():
        yield


try:
    from hypothesis import settings
except ImportError:  # hypothesis is a dev dependency; without it the property tests are skipped
    pass
else:
    settings.register_profile("deterministic", derandomize=True, deadline=None, database=None,
                              print_blob=True)
    settings.register_profile("explore", deadline=None, print_blob=True)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# Suites by folder: a test under one of these folders carries the marker of the same name. The
# default run (pyproject's addopts) leaves them out, and a folder whose marker the run's `-m`
# expression cannot select is not even imported (the frameworks cost seconds to import);
# `python -m pytest -m NAME` runs one of them.
SUITE_FOLDERS = ("integrations", "gateway", "typecheck")


def _selectable(config, marker: str) -> bool:
    """Whether a test carrying only ``marker`` passes the run's ``-m`` expression."""
    from _pytest.mark.expression import Expression

    expression = config.getoption("markexpr")
    if not expression:
        return True
    return Expression.compile(expression).evaluate(lambda name, **_: name == marker)


def pytest_ignore_collect(collection_path, config):
    try:
        top = collection_path.relative_to(config.rootpath / "tests").parts[0]
    except (ValueError, IndexError):
        return None
    if top in SUITE_FOLDERS and not _selectable(config, top):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    root = config.rootpath / "tests"
    for item in items:
        try:
            top = item.path.relative_to(root).parts[0]
        except ValueError:
            continue
        if top in SUITE_FOLDERS:
            item.add_marker(getattr(pytest.mark, top))
