"""Record quality: grades, publisher vocabularies, classify, weakest, floors, aliases."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from quantity_guard import Q, quality
from quantity_guard.errors import QualityViolation, RedefinitionError
from quantity_guard.quality import (
    GRADES,
    QUALITY_ALIASES,
    QUALITY_CONDITIONS,
    check_floor,
    classify,
    describe,
    grade,
    meets,
    publishers,
    register_alias,
    register_condition,
    validate_grade,
    weakest,
)

PACKAGE = Path(quality.__file__).resolve().parent


@pytest.fixture(autouse=True)
def _clean_registrations():
    """Registrations are global; leave them as each test found them."""
    aliases = {k: dict(v) for k, v in QUALITY_ALIASES.items()}
    conditions = {k: dict(v) for k, v in QUALITY_CONDITIONS.items()}
    yield
    QUALITY_ALIASES.clear()
    QUALITY_ALIASES.update(aliases)
    QUALITY_CONDITIONS.clear()
    QUALITY_CONDITIONS.update(conditions)


# -- grades ------------------------------------------------------------------------------------

def test_grades_are_ordered_best_to_worst():
    assert GRADES == ("approved", "estimated", "provisional", "unverified", "suspect")


def test_data_file_order_matches_grades():
    data = json.loads((PACKAGE / "data" / "quality.json").read_text(encoding="utf-8"))
    assert tuple(data["grades"]["order"]) == GRADES
    assert set(data["grades"]["meanings"]) == set(GRADES)


@pytest.mark.parametrize("name", ["approved", "Approved", "APPROVED", " approved "])
def test_canonical_names_are_case_insensitive(name):
    assert grade(name) == "approved"
    assert validate_grade(name) == "approved"


# -- USGS WaterServices letters ----------------------------------------------------------------

@pytest.mark.parametrize("flag, expected", [
    ("A", "approved"), ("P", "provisional"), ("e", "estimated"), ("E", "estimated"),
])
def test_usgs_letters(flag, expected):
    assert grade(flag) == expected
    assert grade(flag, publisher="usgs") == expected


# Issue 18 item 4 replaced "single letters are case-sensitive" (which accepted 'p' and 'e' but
# refused 'a') with one rule for every vocabulary: flags match without regard to case, and an
# exact spelling keeps its own meaning.
@pytest.mark.parametrize("flag, publisher, expected", [
    ("a", "usgs", "approved"), ("a", None, "approved"), ("p", "usgs", "provisional"),
    ("p", None, "provisional"), ("P", "noaa_coops", "provisional"), ("V", None, "approved"),
    ("V", "noaa_coops", "approved"), ("e", None, "estimated"), ("E", None, "estimated"),
    ("gOOD", "ea", "approved"), ("UNCHECKED", None, "unverified"), ("provisional", None,
                                                                   "provisional"),
])
def test_one_case_rule_for_every_vocabulary(flag, publisher, expected):
    assert grade(flag, publisher=publisher) == expected
    assert classify([flag], publisher) == (expected, ())
    assert Q(1, "m", quality=flag).quality == expected


def test_an_exact_spelling_keeps_its_own_meaning():
    assert describe("e", "usgs")["flag"] == "e" and describe("E", "usgs")["flag"] == "E"
    assert describe("r", "usgs")["kind"] == "remark"
    assert describe("ice", "usgs")["kind"] == "condition"


def test_a_folded_spelling_with_two_meanings_is_refused_as_ambiguous():
    register_alias("riverco", "a", "suspect")       # riverco's 'a' is not USGS 'A'
    try:
        assert grade("a", publisher="riverco") == "suspect"
        assert grade("A", publisher="usgs") == "approved"
        with pytest.raises(QualityViolation, match="means different things"):
            grade("a")
        with pytest.raises(RedefinitionError):
            register_alias("usgs", "a", "suspect")  # folds onto USGS 'A', approved
    finally:
        QUALITY_ALIASES.pop("riverco", None)


def test_an_unknown_letter_is_still_refused_with_close_matches():
    with pytest.raises(QualityViolation) as exc:
        grade("x", publisher="usgs")
    assert "unknown quality flag 'x' for publisher 'usgs'" in str(exc.value)


def test_e_and_E_are_different_codes_with_their_own_meanings():
    assert describe("e", "usgs")["meaning"] == "Value has been estimated."
    assert "estimated unit values" in describe("E", "usgs")["meaning"]


def test_revised_is_a_remark_not_a_grade_and_not_reviewed():
    info = describe("R", "usgs")
    assert info["kind"] == "remark"
    assert "revised" in info["meaning"].lower()
    with pytest.raises(QualityViolation) as exc:
        grade("R")
    assert "'R' is a remark, not a quality grade" in str(exc.value)
    assert "classify(['A', 'R']) -> ('approved', ())" in exc.value.repair()


@pytest.mark.parametrize("flag", ["Ice", "Eqp", "Bkw", "Dis", "Ssn", "Mnt", "Fld", "Rat", "ZFl",
                                  "Zfl", "***", "--", "Nd", "Dry", "Pr", "<", ">", "&", "4"])
def test_usgs_conditions_are_not_grades(flag):
    assert describe(flag, "usgs")["kind"] == "condition"
    with pytest.raises(QualityViolation) as exc:
        grade(flag, publisher="usgs")
    assert f"{flag!r} is a condition code, not a quality grade" in str(exc.value)
    assert "classify(['P', 'Ice']) -> ('provisional', ('Ice',))" in exc.value.repair()


# -- USGS OGC API ------------------------------------------------------------------------------

@pytest.mark.parametrize("flag, expected", [
    ("Approved", "approved"), ("approved", "approved"), ("Provisional", "provisional"),
    ("ESTIMATED", "estimated"),
])
def test_ogc_words(flag, expected):
    assert grade(flag, publisher="usgs") == expected


@pytest.mark.parametrize("flag, kind", [
    ("REVISED", "remark"), ("ICE", "condition"), ("EQUIP", "condition"),
    ("DISCONTINUED", "condition"), ("DIFFDATUM", "condition"), ("GHNOTASSCPKQ", "remark"),
    ("REGULATED", "remark"),
])
def test_ogc_qualifier_words(flag, kind):
    assert describe(flag)["kind"] == kind


def test_words_match_without_case_but_keep_the_spelling_received():
    assert classify(["ice"], "usgs") == (None, ("ice",))
    assert classify(["equip"]) == (None, ("equip",))


# -- Environment Agency and CO-OPS -------------------------------------------------------------

@pytest.mark.parametrize("flag, expected", [
    ("Good", "approved"), ("Estimated", "estimated"), ("Suspect", "suspect"),
    ("Unchecked", "unverified"), ("good", "approved"),
])
def test_ea_words(flag, expected):
    assert grade(flag, publisher="ea") == expected
    assert grade(flag) == expected


def test_ea_missing_is_a_condition():
    assert classify(["Missing"], "ea") == (None, ("Missing",))


def test_coops_preliminary_and_verified():
    assert grade("p", "noaa_coops") == "provisional"
    assert grade("v", "noaa_coops") == "approved"
    assert grade("v") == "approved"


def test_unchecked_ranks_above_suspect():
    assert weakest(grade("Unchecked", "ea"), grade("Suspect", "ea")) == "suspect"


# -- publishers --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["usgs", "USGS", "nwis", "usgs_ogc", "waterservices"])
def test_publisher_synonyms(name):
    assert grade("A", publisher=name) == "approved"


def test_publisher_scopes_the_search():
    with pytest.raises(QualityViolation) as exc:
        grade("Good", publisher="usgs")
    msg = str(exc.value)
    assert "unknown quality flag 'Good' for publisher 'usgs'" in msg
    assert "Known flags for usgs: A, P, e, E, R" in msg


def test_unknown_publisher_is_refused_naming_the_known_ones():
    with pytest.raises(QualityViolation) as exc:
        grade("A", publisher="nasa")
    assert "unknown quality publisher 'nasa'" in str(exc.value)
    assert "usgs, ea, noaa_coops" in str(exc.value)
    assert "register_alias('nasa', flag, grade)" in exc.value.repair()


def test_publishers_lists_builtins_then_registered():
    assert publishers()[:3] == ("usgs", "ea", "noaa_coops")
    register_alias("sepa", "50", "approved")
    assert publishers()[-1] == "sepa"


# -- unknown flags -----------------------------------------------------------------------------

def test_unknown_flag_names_it_and_lists_known_flags_close_matches_first():
    with pytest.raises(QualityViolation) as exc:
        grade("Aproved")
    err = exc.value
    msg = str(err)
    assert msg.startswith("unknown quality flag 'Aproved'.")
    close_at = msg.index("Close matches:")
    known_at = msg.index("Known:")
    assert close_at < known_at
    assert "'Approved'" in msg[close_at:known_at]
    # every known vocabulary is listed
    for part in ("grades approved, estimated", "usgs A, P, e, E", "ea Good, Estimated",
                 "noaa_coops p, v"):
        assert part in msg
    assert err.received == "Aproved"
    assert err.expected[0].lower() == "approved"  # close matches come first
    assert "Send instead: 'approved'" in err.repair() or "Send instead: 'Approved'" in err.repair()


def test_unknown_flag_without_close_match_still_lists_the_vocabulary():
    with pytest.raises(QualityViolation) as exc:
        grade("zzzz")
    assert "Close matches" not in str(exc.value)
    assert "usgs A, P, e, E" in str(exc.value)


@pytest.mark.parametrize("bad", [None, 3, "", "   "])
def test_non_flags_are_refused(bad):
    with pytest.raises(QualityViolation):
        grade(bad)


# -- ambiguity ---------------------------------------------------------------------------------

def test_flag_with_different_meanings_needs_a_publisher():
    register_alias("acme", "A", "suspect")
    with pytest.raises(QualityViolation) as exc:
        grade("A")
    msg = str(exc.value)
    assert "'A' means different things to different publishers" in msg
    assert "usgs: approved" in msg and "acme: suspect" in msg
    assert "grade('A', publisher='acme') or grade('A', publisher='usgs')" in exc.value.repair()
    assert grade("A", publisher="acme") == "suspect"
    assert grade("A", publisher="usgs") == "approved"
    with pytest.raises(QualityViolation):
        classify(["A"])
    assert classify(["A"], "usgs") == ("approved", ())


def test_same_meaning_in_two_publishers_is_not_ambiguous():
    # EA 'Estimated' and OGC 'ESTIMATED' both mean estimated
    register_alias("acme", "Est", "estimated")
    register_alias("other", "Est", "estimated")
    assert grade("Est") == "estimated"


# -- classify ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, publisher, expected", [
    (["P", "Ice"], None, ("provisional", ("Ice",))),
    (["A", "e"], None, ("estimated", ())),
    (["P", "e"], "usgs", ("provisional", ())),
    (["A", "R"], "usgs", ("approved", ())),
    (["A"], None, ("approved", ())),
    (["P", "Ice", "Eqp", "Ice"], None, ("provisional", ("Ice", "Eqp"))),
    (["Ice"], None, (None, ("Ice",))),
    (["ESTIMATED", "REVISED"], None, ("estimated", ())),
    (["Approved", "ESTIMATED", "REVISED"], "usgs", ("estimated", ())),
    (["Provisional", "EQUIP"], "usgs", ("provisional", ("EQUIP",))),
    (["Approved", None], "usgs", ("approved", ())),
    (["Good"], "ea", ("approved", ())),
    (["Suspect"], "ea", ("suspect", ())),
    ([], None, (None, ())),
    (None, None, (None, ())),
    ("P", None, ("provisional", ())),
    ("Ice", None, (None, ("Ice",))),
    (("A", "<"), None, ("approved", ("<",))),
])
def test_classify(flags, publisher, expected):
    assert classify(flags, publisher) == expected


def test_classify_refuses_unknown_flags():
    with pytest.raises(QualityViolation) as exc:
        classify(["P", "Icee"])
    assert "unknown quality flag 'Icee'" in str(exc.value)
    assert "'Ice'" in str(exc.value)


def test_classify_accepts_canonical_names():
    assert classify(["approved", "Provisional"]) == ("provisional", ())


# -- weakest -----------------------------------------------------------------------------------

def test_weakest_takes_the_worst_and_ignores_unstated():
    assert weakest("approved", "provisional") == "provisional"
    assert weakest("suspect", "approved") == "suspect"
    assert weakest("approved", None) == "approved"
    assert weakest(None, None) is None
    assert weakest() is None
    assert weakest("Estimated", "APPROVED") == "estimated"


def test_weakest_refuses_unknown_grades():
    with pytest.raises(QualityViolation) as exc:
        weakest("approved", "great")
    assert "unknown quality grade 'great'" in str(exc.value)


_maybe = st.one_of(st.none(), st.sampled_from(GRADES))


@given(_maybe, _maybe)
def test_weakest_is_commutative(a, b):
    assert weakest(a, b) == weakest(b, a)


@given(_maybe, _maybe, _maybe)
def test_weakest_is_associative(a, b, c):
    assert weakest(weakest(a, b), c) == weakest(a, weakest(b, c)) == weakest(a, b, c)


@given(_maybe)
def test_weakest_is_idempotent(a):
    assert weakest(a, a) == a


@given(st.lists(_maybe, max_size=8))
def test_weakest_is_one_of_its_inputs_and_no_better_than_any(gs):
    result = weakest(*gs)
    stated = [g for g in gs if g is not None]
    if not stated:
        assert result is None
    else:
        assert result in stated
        assert all(meets(g, result) for g in stated)


# -- floors ------------------------------------------------------------------------------------

def test_meets():
    assert meets("approved", "approved")
    assert meets("approved", "provisional")
    assert meets("provisional", "provisional")
    assert not meets("provisional", "approved")
    assert not meets("suspect", "unverified")
    assert meets("unverified", "unverified")
    assert not meets(None, "suspect")  # unknown quality meets no floor
    assert meets(None, None)
    assert meets("suspect", None)


def test_check_floor_passes_and_normalises():
    assert check_floor("approved", "provisional") == "approved"
    assert check_floor("Provisional", "provisional") == "provisional"
    assert check_floor(None, None) is None
    assert check_floor("suspect", None) == "suspect"


def test_check_floor_refuses_a_weaker_record():
    with pytest.raises(QualityViolation) as exc:
        check_floor("provisional", "approved", field="runoff.discharge")
    err = exc.value
    assert err.field == "runoff.discharge"
    assert err.received == "provisional"
    assert err.expected == "approved"
    assert str(err) == ("runoff.discharge: received a provisional record, but this requires "
                        "quality approved or better (grades, best to worst: approved, estimated, "
                        "provisional, unverified, suspect).")
    assert err.suggestion.startswith("a record of at least approved quality: approved data "
                                     "(USGS 'A', EA 'Good'")
    assert "relax the declaration to quality='provisional'" in err.suggestion
    assert "Send instead: a record of at least approved quality" in err.repair()
    assert err.code == "quality_violation"


def test_check_floor_lists_every_acceptable_grade():
    with pytest.raises(QualityViolation) as exc:
        check_floor("suspect", "provisional")
    assert "approved or estimated or provisional data" in exc.value.suggestion


def test_check_floor_refuses_unknown_quality():
    with pytest.raises(QualityViolation) as exc:
        check_floor(None, "estimated", field="f")
    err = exc.value
    msg = str(err)
    assert "no stated quality" in msg
    assert "quality is unknown" in msg
    assert "'estimated'" in msg
    assert err.received is None and err.expected == "estimated"
    assert "a value that states its quality, at least estimated" in err.suggestion
    assert "drop quality='estimated'" in err.suggestion


def test_check_floor_refuses_an_unknown_floor():
    with pytest.raises(QualityViolation) as exc:
        check_floor("approved", "excellent")
    assert "unknown quality grade 'excellent'" in str(exc.value)


# -- validate_grade ----------------------------------------------------------------------------

def test_validate_grade_points_a_publisher_code_at_its_grade():
    with pytest.raises(QualityViolation) as exc:
        validate_grade("A")
    msg = str(exc.value)
    assert "unknown quality grade 'A'" in msg
    assert "'A' is a publisher flag meaning 'approved'" in msg
    assert exc.value.suggestion == "'approved'"


def test_validate_grade_suggests_a_close_grade():
    with pytest.raises(QualityViolation) as exc:
        validate_grade("provisonal")
    assert "Did you mean 'provisional'?" in str(exc.value)
    assert exc.value.expected == GRADES


@pytest.mark.parametrize("bad", [None, 1, "", "reviewed"])
def test_validate_grade_refuses(bad):
    with pytest.raises(QualityViolation):
        validate_grade(bad)


# -- aliases -----------------------------------------------------------------------------------

def test_register_alias_teaches_a_new_publisher():
    register_alias("SEPA", "50", "approved")
    register_alias("sepa", "140", "Provisional")
    assert QUALITY_ALIASES["sepa"] == {"50": "approved", "140": "provisional"}
    assert grade("50", "sepa") == "approved"
    assert grade("140") == "provisional"
    assert classify(["50", "140"], "SEPA") == ("provisional", ())


def test_register_alias_refuses_redefining_a_builtin_flag():
    with pytest.raises(RedefinitionError) as exc:
        register_alias("usgs", "A", "suspect")
    assert "usgs flag 'A' already means grade approved" in str(exc.value)
    with pytest.raises(RedefinitionError):
        register_alias("nwis", "Ice", "approved")  # a condition cannot become a grade
    with pytest.raises(RedefinitionError):
        register_alias("usgs", "ice", "approved")  # words match without case
    with pytest.raises(RedefinitionError):
        register_alias("usgs", "R", "approved")  # nor can a remark
    assert grade("A") == "approved"


def test_register_alias_refuses_redefining_its_own_alias():
    register_alias("acme", "OK", "approved")
    register_alias("acme", "OK", "approved")  # the same meaning again is harmless
    with pytest.raises(RedefinitionError):
        register_alias("acme", "ok", "suspect")


def test_register_alias_refuses_remapping_a_canonical_name():
    with pytest.raises(RedefinitionError):
        register_alias("acme", "approved", "suspect")


def test_register_alias_refuses_unknown_grades():
    with pytest.raises(QualityViolation) as exc:
        register_alias("acme", "X", "superb")
    assert "unknown quality grade 'superb'" in str(exc.value)
    assert "acme" not in QUALITY_ALIASES


def test_register_alias_may_add_an_unused_flag_to_a_builtin_publisher():
    register_alias("usgs", "X", "provisional")
    assert grade("X", "usgs") == "provisional"


def test_direct_alias_entries_are_checked_when_used():
    QUALITY_ALIASES["acme"] = {"G": "approved", "B": "bogus"}
    assert grade("G", "acme") == "approved"
    with pytest.raises(QualityViolation) as exc:
        grade("B", "acme")
    assert "'bogus', which is not a grade" in str(exc.value)


def test_register_condition():
    register_condition("usgs", "BACKWATER", "value affected by backwater")
    assert classify(["Provisional", "BACKWATER"], "usgs") == ("provisional", ("BACKWATER",))
    with pytest.raises(RedefinitionError):
        register_condition("usgs", "A")
    with pytest.raises(RedefinitionError):
        register_alias("usgs", "backwater", "approved")


def test_describe():
    info = describe("Ice")
    assert info["publisher"] == "usgs" and info["kind"] == "condition" and info["grade"] is None
    assert "services.md" in info["source"]
    assert describe("Good")["grade"] == "approved"


# -- the data file -----------------------------------------------------------------------------

def test_every_flag_has_a_kind_a_meaning_and_a_source():
    data = json.loads((PACKAGE / "data" / "quality.json").read_text(encoding="utf-8"))
    for pub, spec in data["publishers"].items():
        assert spec["title"]
        for flag, row in spec["flags"].items():
            assert row["kind"] in ("grade", "condition", "remark"), (pub, flag)
            assert row["meaning"] and row["source"], (pub, flag)
            assert (row.get("grade") in GRADES) == (row["kind"] == "grade"), (pub, flag)


def test_spellings_that_match_without_case_agree():
    data = json.loads((PACKAGE / "data" / "quality.json").read_text(encoding="utf-8"))
    for spec in data["publishers"].values():
        seen: dict[str, tuple] = {}
        for flag, row in spec["flags"].items():
            key = flag.lower()   # single letters too: one case rule (issue 18 item 4)
            meaning = (row["kind"], row.get("grade"))
            assert seen.setdefault(key, meaning) == meaning, flag


# -- laziness and vendoring --------------------------------------------------------------------

def _run_isolated(code: str, cwd: Path) -> str:
    out = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, '.')\n{code}"],
                         cwd=cwd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_reads_no_data(tmp_path):
    code = ("import quantity_guard.quality as q\n"
            "assert q._VOCAB is None\n"
            "q.grade('A')\n"
            "assert q._VOCAB is not None\n"
            "print('ok')")
    assert _run_isolated(code, PACKAGE.parent).strip() == "ok"


def test_works_when_the_folder_is_copied_and_run_isolated(tmp_path):
    shutil.copytree(PACKAGE, tmp_path / "quantity_guard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("from quantity_guard.quality import classify\n"
            "print(classify(['P', 'Ice']))")
    assert _run_isolated(code, tmp_path).strip() == "('provisional', ('Ice',))"
