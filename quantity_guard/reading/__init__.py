"""The reading layer: a text (a question, an answer, a string a model sent) into ``Number``
tokens, each with its value, unit, datum, sign, span and written precision, and the runs of
digits that are not measurements with their ``Skip`` code.

It depends on the unit kernel and the datum registry only: the ledger reads the question's
numbers and the precision a model wrote with it, and the answer audit, above the ledger,
classifies what it reads.
"""
from __future__ import annotations

from .reader import extract_numbers, scan, written_tolerance
from .text import Number

__all__ = ["Number", "extract_numbers", "scan", "written_tolerance"]
