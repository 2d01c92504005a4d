"""Figures the answer does not claim: what-ifs, what a mistake would have given, figures it
withdraws, statements about things in general.
"""
from __future__ import annotations

import pytest

from audit_helpers import audited, flow_ledger, ledger_of, levee_ledger


@pytest.mark.parametrize("answer,ok", [
    ("The current is 393.6 A. At half load it would be about 197 A.", True),
    ("The current is 393.6 A. At half load it would be about 250 A.", False),
    ("The current is 393.6 A. At double the load it would be about 787 A.", True),
])
def test_a_what_if_in_words(answer, ok):
    audited(ledger_of(("full_load_current", 393.648, "A")), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # a margin of error in words, a sample count
    ("0.102 mm/d, uncertainty about 5%.", True),
    ("0.102 mm/d with an error margin of 10%.", True),
    ("0.102 mm/d (give or take 5%).", True),
    ("0.102 mm/d, accurate to within 5%.", True),
    ("0.102 mm/d (tolerance 2%).", True),
    ("0.102 mm/d, n=96.", True),
    ("0.102 mm/d (n = 96 samples).", True),
    ("The runoff ratio is 5%.", False),                  # a share with no margin word
    ("0.102 mm/d; the flow was n = 96 cfs.", False),    # a unit after it: a measurement
    # what-ifs with no would/could: a contraction, "suppose", a scenario; word factors
    ("0.102 mm/d. Were the flow double, it'd be about 0.204 mm/d.", True),
    ("0.102 mm/d. Suppose the flow halved: about 0.051 mm/d.", True),
    ("0.102 mm/d. In a scenario with twice the flow: 0.204 mm/d.", True),
    ("0.102 mm/d. Hypothetically, at three times the flow, 0.31 mm/d.", False),  # no factor read
    ("0.102 mm/d. Suppose the flow halved: about 0.09 mm/d.", False),
    ("0.102 mm/d. Were the flow double, it'd be about 0.5 mm/d.", False),
    ("Suppose the flow halved: about 0.051 mm/d.", False),  # no actual figure stated
])
def test_margins_counts_and_what_ifs_in_other_words(answer, ok):
    audited(flow_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # a figure the answer withdraws, with the figure that replaces it
    ("Depth 0.102 mm/d. (I initially put 1.02 mm/d \u2014 a slipped decimal; ignore it.)", True),
    ("Earlier I gave 0.201 mm/d; the depth is 0.102 mm/d.", True),
    ("The discharge is 1,250 cfs (I first typed 1,520 by mistake).", True),
    ("The area is 29,940 km\u00b2, not 29,490 as I wrongly wrote above.", True),
    ("The area is 29,940 km\u00b2, not 29,049.", True),
    # "X, not Y" denies Y, whatever the ratio of the two
    ("The tool returned about 1250, not 1.25 million.", True),
    ("The gauge gave 1250 (in cfs), not 35,396.", True),
    ("My draft said 1250 m\u00b3/s; the gauge reads 1250 cfs.", True),
    ("Depth 0.102 mm/d. 3.6 mm/d was wrong (the cfs were never converted).", True),
    ("A share of 2.4% \u2014 not the answer, it used the wrong flow; the depth is 0.102 mm/d.",
     False),                                      # withdrawn, but nothing of its kind replaces it
    # the same words pointing elsewhere, or a withdrawn figure with nothing in its place
    ("The depth is 3.6 mm/d (not a typo).", False),
    ("Ignore the earlier estimate. The depth is 3.6 mm/d.", False),
    ("The depth is 3.6 mm/d; earlier I said 0.102 mm/d.", False),
    ("Earlier I said 1.02 mm/d; that was wrong.", False),     # nothing replaces it
    ("Correction: the depth is 3.6 mm/d.", False),            # brings a figure, withdraws none
    ("The depth is 3.6 mm/d, not 0.102 mm/d.", False),
    ("Not 1.25 million: the tool returned a figure.", False),  # no figure it is set against
    ("The depth is not 3.6 mm/d.", False),                      # denied, nothing in its place
])
def test_figures_the_answer_withdraws(answer, ok):
    audit = audited(flow_ledger(), answer, ok)
    if ok:
        assert any(f.status == "discarded" for f in audit.findings), audit.findings


@pytest.mark.parametrize("answer,ok", [
    # a misreading named as one, beside the figure read the right way
    ("Passing the bare 1250 failed: the tool would read it as 1250 m\u00b3/s. With its unit, "
     "1,250 cfs, the depth is 0.102 mm/d.", True),
    ("The service misread as 1250 m\u00b3/s what was 1250 cfs; depth 0.102 mm/d.", True),
    # the same unit stated as the reading, or named as a misreading with nothing in its place
    ("The gauge reads 1250 m\u00b3/s; depth 0.102 mm/d.", False),
    ("The tool would read it as 1250 m\u00b3/s.", False),
])
def test_a_misreading_named_as_one(answer, ok):
    audited(flow_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # an additive what-if: the actual figure moved by a premise of its dimension
    ("Freeboard 3.7 ft. Were the river 0.5 ft higher, it would be about 3.2 ft.", True),
    ("Freeboard 3.7 ft; a crest 2 ft lower would leave 1.7 ft.", True),
    # a consequence the premise does not give, or a premise with no actual figure stated
    ("Freeboard 3.7 ft; a crest 2 ft lower would leave 2.7 ft.", False),
    ("A crest 2 ft lower would leave 1.7 ft.", False),
])
def test_additive_what_ifs(answer, ok):
    audited(levee_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    # background knowledge of a dimension a tool returns, stated about things in general
    ("Depth 0.102 mm/d. Mountain streams commonly carry over 5,000 cfs in spring.", True),
    ("Depth 0.102 mm/d. As a rule, basins over 50,000 km\u00b2 respond slowly.", True),
    # the same words about this case stay claims
    ("Depth 0.102 mm/d. The flow is usually 5,000 cfs in spring.", False),
    ("Depth 0.102 mm/d. Flows here commonly exceed 5,000 cfs.", False),
    ("Depth 0.102 mm/d. This basin is typically put at 50,000 km\u00b2.", False),
    ("Typically 5,000 cfs at this gauge; depth 0.102 mm/d.", False),
])
def test_general_statements_about_things_in_general(answer, ok):
    audited(flow_ledger(), answer, ok)


@pytest.mark.parametrize("answer,ok", [
    ("Depth 0.102 mm/d. At 2 \u00d7 the rate it would be 0.204 mm/d.", True),
    ("Depth 0.102 mm/d. At 3 times the rate it would be 0.306 mm/d.", True),
    ("Depth 0.102 mm/d. At 2 \u00d7 the rate it would be 0.5 mm/d.", False),
])
def test_a_numeric_factor_in_a_what_if(answer, ok):
    audited(flow_ledger(), answer, ok)
