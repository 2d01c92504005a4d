"""What the gateway suites share besides a redis-server (``redis_server.py``): the annotations
their replicas guard, and the load balancer they need."""
from __future__ import annotations

import os
import shutil

import pytest

WATER = "[tools.read_discharge]\nreturns = 'cfs'\n[tools.runoff.params]\ndischarge = 'm**3/s'\n"


def need_nginx() -> None:
    """Skip without nginx, or fail in CI, which installs it."""
    if shutil.which("nginx") is None:
        message = "nginx is not installed (apt-get install -y nginx): the gateway tests need a real load balancer"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
