"""Why a run of digits is not a measurement (``Skip``, the ``code`` of each reason in
``Audit.skipped``), and ``Said``, a reason as a person reads it that carries its code.

The codes are what programs and tests compare; the sentences are for people and may be
reworded. Decisions read codes, never sentences.
"""
from __future__ import annotations

from enum import Enum


class Skip(Enum):
    """Why a run of digits is not a measurement. The value is the sentence a person reads."""

    PART_OF_UNIT = "part of the unit written before it"
    DATE_TIME_OR_ADDRESS = "a date, a time, a zone offset or a web address"
    ORDINAL = "an ordinal"
    CODE_STRING = "a string in code or JSON (an identifier), not a number"
    IDENTIFIER = "an identifier (a station, site, code or standard number)"
    LABEL = "a step, list or section label"
    LIST_MARKER = "a list marker"
    YEAR = "a year"
    DAY_OF_MONTH = "a day of a month"
    OUT_OF_RANGE = "out of the range of a measurement"
    ONE_UNIT_DEFINED = "one unit, defined by what follows (1 Ml/d = 1,000 m³/d)"
    DISTANCE_TO_PLACE = "a distance to a place (150 m below the bridge, 2 km downstream)"
    PER_UNIT_BASE = "the base of a per-unit system (a convention, 100 MVA)"
    PRECISION_TO = "a precision (exact to 0.1 A, to the nearest 0.1 ft)"
    DIGITS_INTO_LETTERS = "an identifier (digits run into letters)"
    TELEPHONE = "a telephone number"
    SERVICE_NUMBER = "a telephone number (a service number)"
    LATITUDE_LONGITUDE = "a position on the earth (latitude or longitude)"
    GRID_REFERENCE = "a position on the earth (a grid reference)"
    CHAINAGE = "a chainage (a distance along a line, used as a place name)"
    ODDS_OR_RETURN_PERIOD = "odds or a return period (1 in 100 years)"
    PART_OF_NAME = "part of a name (a model, a file, a route)"
    IDENTIFIER_NEXT_PART = "the next part of an identifier (IEC 60076-1, EM 1110-2-1913)"
    CODE_WITH_LETTERS = "an identifier (a code: 3-A8)"
    STEP_COUNTER = "a step counter ([2/4])"
    SITE_NAMED_AFTER = "an identifier (a site number named after it: the 7374000 site)"
    TIMESTAMP = "a timestamp (seconds since an epoch)"
    IDIOM = "an idiom written in digits (24/7, 50/50)"
    STREET_NUMBER = "a street number (an address)"
    PER_UNIT_VALUE = "a per-unit value (a ratio to a base the answer picks)"
    CALENDAR_POSITION = "a calendar position (day 334 of 2026)"
    MODEL_SETTING = "a model setting (temperature 0, seed 42)"
    UNCERTAINTY = "an uncertainty (± a tolerance)"
    CITATION_BRACKETED = "a citation or footnote marker ([1])"
    CITATION_NAMED = "a citation or footnote marker (note 2, ref. 1)"
    CODE_AND_NUMBER = "an identifier (a code and its number: RRL 12)"
    SECTION_REFERENCE = "a section reference (§2.1, ¶ 3)"
    MONEY = "a price or a sum of money"
    UNCERTAINTY_IN_WORDS = "an uncertainty (a margin of error in words)"
    PROBABILITY = "a probability or confidence level"
    PROBABILITY_OUT_OF_TEN = "a probability or confidence level (9/10 confidence)"
    CONFIDENCE_SCORE = "a probability or confidence level (confidence 0.9, 8/10)"
    LIST_REFERENCE = "a list reference ((2) above, item (b) 2)"
    PERIOD = "a period (the last 7 days)"
    INTERVAL_ADJECTIVE = "an interval named as an adjective (a 7-day mean)"
    COMPOUND_ADJECTIVE = "a compound adjective (a 3-phase system)"
    PRECISION = "a precision (2 d.p., 3 significant figures)"
    HTTP_STATUS = "an HTTP status code"
    COUNT_N_EQUALS = "a count (n = 96)"
    COUNT_OF_THEM = "a count (2 of them)"
    COUNT = "a count (3 tool calls, 10 of 12 readings)"
    COUNT_OF_THINGS = "a count of discrete things (1,240 customers, one of 3 gauges)"
    COUNT_OF_WORK = "a count of the work done (calls used: 3)"
    POSITION_IN_PROCEDURE = "a position in a procedure (phase 2 of 3, étape 2 :)"
    TOTAL_OF_POSITION = "the total of a position or a count (2 of 3)"
    POSITION_OUT_OF_TOTAL = "a position or a count out of a total (2 of 3)"
    COUNT_OUT_OF_TOTAL = "a count out of a total (1 in 5 gauges)"
    SCORE_ON_SCALE = "a self-assessment score (8 on a 10-point scale)"
    SELF_SCORE = "a self-assessment score (trust 4/5, 9 in 10)"
    BACKGROUND_KNOWLEDGE = "background knowledge (typically, usually, as a rule), not a figure of this case"
    SCHEDULE_INTERVAL = "the interval of a schedule (every 15 min), not a duration the answer claims"
    UNCHECKABLE_DURATION = "a duration, and no tool returns a time (nothing to check it against)"
    CONSTANT_ROOT = "the constant \u221a"  # followed by the number under the root

    @property
    def identifier(self) -> bool:
        """An identifier: a number right after it continues it ("IEC 60076-1")."""
        return self in _IDENTIFIERS


_IDENTIFIERS = frozenset({Skip.IDENTIFIER, Skip.SITE_NAMED_AFTER, Skip.CODE_AND_NUMBER,
                          Skip.CODE_WITH_LETTERS, Skip.DIGITS_INTO_LETTERS})


class Said(str):
    """A reason as a person reads it (the string itself) that carries its ``code``."""

    code: Skip

    def __new__(cls, code: Skip, text: str | None = None) -> Said:
        self = str.__new__(cls, code.value if text is None else text)
        self.code = code
        return self

    def __reduce__(self):
        return (Said, (self.code, str(self)))


SAID = {code: Said(code) for code in Skip}


def said(reason):
    """The reason in ``Audit.skipped``'s form: a ``Said`` for a code; a ``Said`` or any other
    string as it is."""
    return SAID[reason] if reason.__class__ is Skip else reason
