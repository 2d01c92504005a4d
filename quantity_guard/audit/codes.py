"""The audit's codes: why a number has its status (``Reason``, ``Finding.code``) and why a run
of digits is not a measurement (``Skip``, the ``code`` of each reason in ``Audit.skipped``,
decided by the reading layer: ``quantity_guard.reading.codes``, named here too).

The codes are what programs and tests compare; the sentences are for people and may be
reworded. The audit's own decisions read codes, never sentences.
"""
from __future__ import annotations

from enum import Enum

from ..reading.codes import SAID, Said, Skip, said

__all__ = ["BY_STATUS", "Reason", "SAID", "Said", "Skip", "said"]


class Reason(Enum):
    """Why a finding has its status: the rule that decided it."""

    # sourced: a recorded output
    SOURCED = "sourced"                          # a recorded output, in its own unit (or none)
    SOURCED_CONVERTED = "sourced_converted"      # ... converted into the unit written
    SOURCED_AS_PERCENTAGE = "sourced_as_percentage"  # a recorded fraction written in per cent
    SOURCED_AS_FRACTION = "sourced_as_fraction"  # a recorded share in per cent written as a fraction
    SOURCED_IN_SI_BASE = "sourced_in_si_base"    # re-expressed in SI base units, unit not written
    SOURCED_MAGNITUDE = "sourced_magnitude"      # a negative output written without its sign
    SOURCED_SIGNED_DIFFERENCE = "sourced_signed_difference"  # a signed difference, direction said
    SOURCED_STATION_ZERO = "sourced_station_zero"  # a station's datum, as its zero's elevation
    SOURCED_TRUNCATED = "sourced_truncated"      # a recorded output with its digits cut
    SOURCED_CALL_ARGUMENT = "sourced_call_argument"  # an argument of a call written out
    SOURCED_DATUM_CONVERSION = "sourced_datum_conversion"  # a recorded elevation on another datum
    SOURCED_SUPPORTED_INPUT = "sourced_supported_input"  # what a sound call received, written back
    SOURCED_ROUNDED_TWICE = "sourced_rounded_twice"  # an output rounded to one place more, then again
    # derived: one step from recorded outputs (or the question's numbers)
    DERIVED = "derived"                          # a one-step sum or difference
    DERIVED_PRODUCT = "derived_product"          # a one-step product or ratio
    DERIVED_COMPLEMENT = "derived_complement"    # 100 % minus a recorded or derived share
    DERIVED_ODDS = "derived_odds"                # a share written as odds (1 in 4)
    DERIVED_PER_PERIOD = "derived_per_period"    # a rate times its period (an amount per year)
    DERIVED_ELEVATION_SHARE = "derived_elevation_share"  # a share of an elevation or an offset
    DERIVED_FORMULA_RESULT = "derived_formula_result"  # the result of a written formula that checks
    # quoted, factor, operand
    QUOTED = "quoted"                            # stated in the question
    QUOTED_AS_SHARE = "quoted_as_share"          # a share of the question as a fraction (or %)
    FACTOR = "factor"                            # a conversion factor, identity or constant
    FACTOR_IN_ARITHMETIC = "factor_in_arithmetic"  # a factor named again where it is used
    OPERAND = "operand"                          # an operand of a written formula that checks
    RANGE_END = "range_end"                      # an end of a range that brackets an accepted figure
    # not a claim
    HYPOTHETICAL = "hypothetical"                # a what-if, or what a mistake would have given
    DISCARDED = "discarded"                      # an attempt the answer gives up
    RETRACTED = "retracted"                      # withdrawn by the answer itself
    REVISED_WORKING = "revised_working"          # working the answer itself revises
    SUPERSEDED = "superseded"                    # working its final-answer line states aright
    # flagged
    UNSOURCED = "unsourced"                      # matches nothing
    SIGN_FLIPPED = "sign_flipped"                # a recorded output with its sign flipped
    DIRECTION_REVERSED = "direction_reversed"    # a recorded output with its direction reversed
    FLAT_NOT_ROUNDING = "flat_not_rounding"      # stated flat beside the precise figure it is not
    MISLABELLED = "mislabelled"                  # a recorded magnitude with a contradicting unit
    MISLABELLED_SI = "mislabelled_si"            # an SI value written with the original unit
    MISLABELLED_SCALE = "mislabelled_scale"      # off by a power of ten: a prefix misstated
    TAINTED = "tainted"                          # an output of a call whose input was refused
    TAINTED_DERIVATION = "tainted_derivation"    # derived from such an output
    # of the whole answer (``Audit.abandoned``)
    ABANDONED_REFUSAL = "abandoned_refusal"      # no figure, though a refused call could be redone


#: the code a finding carries when its maker names none: the plain rule of its status
BY_STATUS = {"sourced": Reason.SOURCED, "derived": Reason.DERIVED, "quoted": Reason.QUOTED,
             "factor": Reason.FACTOR, "operand": Reason.OPERAND, "unsourced": Reason.UNSOURCED,
             "unit_mislabelled": Reason.MISLABELLED, "tainted": Reason.TAINTED,
             "hypothetical": Reason.HYPOTHETICAL, "discarded": Reason.DISCARDED}
