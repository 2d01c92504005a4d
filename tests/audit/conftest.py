"""What every audit test shares: the datum registry is the process's, so what a test registers
is forgotten after it."""
from __future__ import annotations

import pytest

from quantity_guard import datums


@pytest.fixture(autouse=True)
def clean_datums():
    with datums.isolated():
        yield
