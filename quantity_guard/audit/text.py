"""The reading layer's text primitives (``quantity_guard.reading.text``) under the names the
audit's rules use: the ``Number`` token, a unit phrase read, the dimensions of length and time."""
from __future__ import annotations

from ..reading.text import LENGTH, Number, read_phrase, TIME

__all__ = ["LENGTH", "Number", "read_phrase", "TIME"]
