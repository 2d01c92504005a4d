"""The recorded responses the pack tests replay (tests/fixtures; origins in
tests/fixtures/README.md)."""
from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"


class Recordings:
    """The recordings under one folder of tests/fixtures (all of them by default)."""

    def __init__(self, folder: str = "") -> None:
        self.folder = FIXTURES / folder

    def raw(self, name: str) -> bytes:
        """The bytes of the recording ``name`` (a path below the folder)."""
        return (self.folder / name).read_bytes()

    def load(self, name: str):
        """The recording ``name`` as parsed JSON."""
        return json.loads(self.raw(name))
