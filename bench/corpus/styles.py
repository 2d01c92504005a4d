"""The answer styles. Each takes a Writer, the plan and the seeded RNG and writes one answer."""
from __future__ import annotations

import json
import re

from . import numbers as N
from .render import HEDGES



def prose(w, text: str, what: str = "identifier") -> None:
    """Plain text whose digit-bearing tokens (ids, dates, zones) are not quantities."""
    w.t(text, what)


def template(w, text: str, fill) -> None:
    """``text`` with ``{v}`` or ``{KEY}`` placeholders filled by ``fill(key)``."""
    for i, chunk in enumerate(re.split(r"(\{[A-Za-z_0-9]+\})", text)):
        if i % 2:
            fill(chunk[1:-1])
        else:
            prose(w, chunk)


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def say_input(w, key: str, alts, *, paren: bool = True, hedge_alt: bool = True) -> None:
    w.fig(key)
    if paren:
        for alt in alts:
            if alt in w.facts:
                w.t(" (")
                if hedge_alt and w.rng.random() < 0.5:
                    w.t(w.rng.choice(["≈ ", "about ", "~", "i.e. ", "or "]))
                w.fig(alt)
                w.t(")")


def say_final(w, plan, *, hedge: bool = False, phrase: bool = True, alts: bool = True,
              rng_range: bool = False) -> None:
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    tpl = w.rng.choice(plan.final_phrases) if phrase else "{v}"
    pre, post = tpl.split("{v}")
    if "about" in pre:
        hedge = False
    w.t(pre)
    if rng_range:
        w.fig_range(plan.final)
    else:
        w.fig(plan.final, hedge=hedge)
    if alts and plan.final_alts and w.rng.random() < 0.5:
        alt = w.rng.choice(plan.final_alts)
        w.t(" (")
        w.fig(alt, hedge=w.rng.random() < 0.3)
        w.t(")")
    w.t(post)


def say_claims(w, plan) -> None:
    for tpl, key in plan.claims:
        if key in w.facts:
            if w.text().rstrip()[-1:] not in (".", ":", ";", ")", "|", "") and \
                    not w.text().endswith("\n"):
                w.t(".")
            w.t(" ")
            template(w, tpl, lambda k: w.fig(key))


def say_footer(w, plan, p: float = 0.3) -> None:
    if plan.footer and w.rng.random() < p:
        w.t("\n\n")
        prose(w, w.rng.choice(plan.footer), "timestamp or zone")


def answer_line(w, plan, *, p: float = 0.5) -> None:
    if w.rng.random() >= p:
        return
    w.t("\n\n" + w.rng.choice(["FINAL ANSWER: ", "**Final answer:** ", "ANSWER: ",
                               "Final answer: ", "**Final Answer:** ", "Final answer — ",
                               "=> Answer: "]))
    if plan.final is None:
        w.t(w.rng.choice(["unavailable", "unavailable (insufficient data)", "cannot be determined"]))
    else:
        w.fig(plan.final)


def _steps(w, plan):
    if plan.alt_steps and w.rng.random() < 0.4:
        return w.rng.choice(plan.alt_steps)
    return plan.steps


# -- styles ---------------------------------------------------------------------------------
def terse(w, plan):
    if w.rng.random() < 0.4 and plan.inputs:
        parts = plan.inputs[: w.rng.randint(1, len(plan.inputs))]
        for i, (k, alts) in enumerate(parts):
            if i:
                w.t(", ")
            f = w.facts[k]
            w.t(f"{f.sym or cap(f.name)} = " if w.rng.random() < 0.5 else f"{cap(f.name)} ")
            w.fig(k)
        w.t(".\n")
    w.t(w.rng.choice(["ANSWER: ", "FINAL ANSWER: ", "**Answer:** ", "Answer: ",
                      "**FINAL ANSWER:** ", "Result: ", "**Result**: "]))
    if plan.final is None:
        w.t("unavailable")
        if w.rng.random() < 0.6:
            w.t(" — ")
            template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
    else:
        w.fig(plan.final)
        if plan.final_alts and w.rng.random() < 0.3:
            w.t(" (")
            w.fig(w.rng.choice(plan.final_alts))
            w.t(")")
    say_claims(w, plan)


_INTRO = ["The {name} is ", "I found a {name} of ", "The tool reports a {name} of ",
          "According to the data, the {name} is ", "The latest {name} is ",
          "The {name} comes back as ", "I retrieved a {name} of ", "It reports the {name} as "]


def chatty(w, plan):
    w.t(w.rng.choice(["Sure! ", "Here's what I found. ", "", "Let me walk through it. "]))
    if w.rng.random() < 0.5:
        ident, what = w.rng.choice(plan.ids)
        w.t(w.rng.choice(["For ", "Looking at ", "Checking "]))
        w.nq(ident, what)
        w.t(": ")
    for i, (k, alts) in enumerate(plan.inputs):
        f = w.facts[k]
        w.t(w.rng.choice(_INTRO).format(name=f.name))
        say_input(w, k, alts, paren=w.rng.random() < 0.6)
        w.t(". ")
    steps = _steps(w, plan)
    if steps and plan.final is not None and w.rng.random() < 0.6:
        s = steps[-1]
        w.t(w.rng.choice(["Working it through, ", "Computing ", "Doing the arithmetic, "]))
        w.step_eq(s, symbolic=False, units=w.rng.random() < 0.4)
        w.t(". ")
    say_claims(w, plan)
    w.t(" " if plan.claims and not w.text().endswith(" ") else "")
    w.t(w.rng.choice(["So the answer is ", "That gives ", "Overall, that is ",
                      "Putting it together: "]) if plan.final else "\n\n")
    say_final(w, plan, hedge=w.rng.random() < 0.3)
    w.t("." if plan.final else "")
    answer_line(w, plan)
    say_footer(w, plan)


def stepwise(w, plan):
    fmt = w.rng.choice(["**Step {i}: {label}**\n", "Step {i}: {label}\n", "{i}. {label}: ",
                        "### Step {i} – {label}\n", "**Step {i}.** {label}: ",
                        "Step {i}) {label}\n"])
    i = 0
    if plan.inputs and w.rng.random() < 0.7:
        i += 1
        _label(w, fmt, i, "Gather the inputs")
        for j, (k, alts) in enumerate(plan.inputs):
            f = w.facts[k]
            w.t(("- " if "\n" in fmt else (", " if j else "")) + f"{cap(f.name)}: ")
            say_input(w, k, alts, paren=w.rng.random() < 0.4)
            w.t("\n" if "\n" in fmt else "")
        w.t("" if "\n" in fmt else "\n")
    for s in (_steps(w, plan) if plan.final is not None else []):
        i += 1
        _label(w, fmt, i, s.label)
        w.step_eq(s, symbolic=w.rng.random() < 0.6, units=w.rng.random() < 0.5)
        w.t("\n")
    say_claims(w, plan)
    w.t("\n" + w.rng.choice(["**Answer:** ", "Result: ", "Therefore ", "**Result:** "]))
    say_final(w, plan)
    answer_line(w, plan, p=0.4)
    say_footer(w, plan)


def _label(w, fmt, i, label):
    pre, post = fmt.split("{i}")
    w.t(pre)
    w.nq(str(i), "step label")
    w.t(post.format(label=label))


def table(w, plan):
    sep_unit = w.rng.random() < 0.3
    lead = w.rng.choice(["", "subject", "Summary:\n\n"])
    if lead == "subject":
        w.t("Results for ")
        prose(w, plan.subject)
        w.t(":\n\n")
    else:
        w.t(lead)
    if sep_unit:
        w.t("| Quantity | Value | Unit |\n|---|---:|---|\n")
    else:
        w.t(w.rng.choice(["| Quantity | Value |\n|---|---|\n", "| Item | Value | Source |\n|:--|--:|:--|\n"]))
    cols3 = "Source" in w.text()
    rows = [(k, "input") for k, _ in plan.inputs]
    if plan.final is not None:
        rows += [(s.result, "computed") for s in _steps(w, plan) if s.result != plan.final]
    for k, src in rows:
        f = w.facts[k]
        w.t(f"| {cap(f.name)} | ")
        if sep_unit:
            w.fig(k, unit=False, unit_elsewhere=f.unit is not None)
            w.t(" | ")
            w.t(_unit_cell(w, f), "unit")
            w.t(" |\n")
            continue
        w.fig(k)
        w.t(f" | {f.tool or src} |\n" if cols3 else " |\n")
    if plan.final is not None:
        f = w.facts[plan.final]
        w.t(f"| **{cap(f.name)}** | **")
        if sep_unit:
            w.fig(plan.final, unit=False, unit_elsewhere=f.unit is not None)
            w.t("** | ")
            w.t(_unit_cell(w, f), "unit")
            w.t(" |\n")
        else:
            w.fig(plan.final)
            w.t("** | result |\n" if cols3 else "** |\n")
    say_claims(w, plan)
    w.t("\n")
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
    answer_line(w, plan, p=0.7)


def _unit_cell(w, f) -> str:
    if f.unit is None:
        return "–"
    return w.unit_spelling(f.unit, f.datum).strip()


def bullets(w, plan):
    numbered = w.rng.random() < 0.4
    marker = w.rng.choice(["- ", "* ", "• "])
    n = 0

    def item():
        nonlocal n
        n += 1
        if numbered:
            w.nq(f"{n}.", "list number")
            w.t(" ")
        else:
            w.t(marker)

    lead = w.rng.choice(["", "Here is the breakdown:\n\n", "subject"])
    if lead == "subject":
        w.t("**")
        prose(w, cap(plan.subject))
        w.t("**\n\n")
    else:
        w.t(lead)
    for k, alts in plan.inputs:
        item()
        w.t(f"**{cap(w.facts[k].name)}:** " if w.rng.random() < 0.5 else f"{cap(w.facts[k].name)}: ")
        say_input(w, k, alts)
        w.t("\n")
    for s in (_steps(w, plan) if plan.final is not None else []):
        if s.result == plan.final:
            continue
        item()
        w.t(f"{cap(w.facts[s.result].name)}: ")
        w.fig(s.result)
        w.t("\n")
    for tpl, key in plan.claims:
        item()
        template(w, tpl, lambda k: w.fig(key))
        w.t("\n")
    item()
    w.t("**Result:** " if plan.final else "**Result:** ")
    say_final(w, plan)
    w.t("\n")
    answer_line(w, plan, p=0.4)


def latex(w, plan):
    w.o["latex"] = True
    w.o["sci_spelling"] = "latex"
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"- {cap(f.name)}: $")
        w.fig(k)
        w.t("$\n")
    steps = _steps(w, plan) if plan.final is not None else []
    for s in steps:
        block = w.rng.random() < 0.5
        w.t("$$" if block else "\n$")
        w.step_eq(s, symbolic=w.rng.random() < 0.7, units=w.rng.random() < 0.4)
        w.t("$$\n" if block else "$\n")
    w.o["latex"] = False
    w.o["sci_spelling"] = w.rng.choice(N.SCI_SPELLINGS[:-1])
    say_claims(w, plan)
    w.t("\n" + w.rng.choice(["**Answer:** ", "Hence ", "So the result is "]))
    if plan.final is not None and w.rng.random() < 0.5:
        w.o["latex"] = True
        w.t("$")
        say_final(w, plan, phrase=False, alts=False)
        w.t("$")
        w.o["latex"] = False
    else:
        say_final(w, plan)
    answer_line(w, plan, p=0.4)


def scientific(w, plan):
    w.o["sci_all"] = True
    w.o["sci_spelling"] = w.rng.choice(N.SCI_SPELLINGS[:-1])
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"{cap(f.name)}: ")
        say_input(w, k, alts)
        w.t("\n")
    for s in (_steps(w, plan) if plan.final is not None else []):
        w.step_eq(s, symbolic=False, units=w.rng.random() < 0.5)
        w.t("\n")
    say_claims(w, plan)
    w.t("\n")
    say_final(w, plan)
    answer_line(w, plan, p=0.6)


def json_echo(w, plan):
    w.t(w.rng.choice(["Tool results:\n\n", "Here are the raw tool outputs:\n\n", ""]))
    w.t("```json\n")
    keys = [k for k, _ in plan.inputs if w.facts[k].tool or w.facts[k].error]
    if plan.final is not None and (w.facts[plan.final].tool or w.facts[plan.final].error):
        keys.append(plan.final)
    numeric_id = w.rng.random() < 0.4
    ident = plan.ids[0][0]
    w.t("{\n")
    id_key = w.rng.choice(["station_id", "id", "site"])
    if numeric_id and ident.isdigit():
        w.t(f'  "{id_key}": ')
        w.nq(str(int(ident)), "id as a JSON number")
        w.t(",\n")
    else:
        w.t(f'  "{id_key}": "')
        w.nq(ident, "id")
        w.t('",\n')
    old = w.o.get("prec")
    w.o["prec"] = "full"
    for k in keys:
        f = w.facts[k]
        name = (f.tool or f.name.replace(" ", "_"))
        w.t(f'  "{name}": {{"value": ')
        w.fig(k, unit=False, unit_elsewhere=f.unit is not None)   # the unit is the JSON field
        w.t(', "unit": "')
        w.t(f.unit or "", "unit")
        w.t('"')
        if f.datum:
            w.t(f', "datum": "{"GAUGE:E21136" if f.datum == "ASD" else f.datum}"')
        w.t("},\n")
    w.o["prec"] = old
    w.t('  "retrieved": "')
    w.nq("2026-11-30T14:05:00Z", "timestamp")
    w.t('"\n}\n```\n\n')
    say_claims(w, plan)
    w.t(" " if plan.claims else "")
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
    else:
        w.t(w.rng.choice(["So the answer is ", "Result: ", "That gives "]))
        say_final(w, plan)
        w.t(".")
    answer_line(w, plan, p=0.6)


def identities(w, plan):
    if not plan.identities:
        return chatty(w, plan)
    w.t(w.rng.choice(["Conversion factors used:\n", "Factors:\n", "Using the identities\n"]))
    for ik in plan.identities:
        w.t("- ")
        w.identity(ik)
        w.t("\n")
    w.t("\n")
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"{cap(f.name)}: ")
        say_input(w, k, alts)
        w.t("\n")
    for s in (_steps(w, plan) if plan.final is not None else []):
        w.step_eq(s, symbolic=False, units=True)
        w.t("\n")
    say_claims(w, plan)
    w.t("\n")
    say_final(w, plan)
    answer_line(w, plan, p=0.5)


def signed(w, plan):
    """Signs in words and the Unicode minus: offsets, deficits, 'below'."""
    w.o["minus"] = N.MINUS
    for k, alts in plan.inputs:
        f = w.facts[k]
        if f.below and f.value < 0 and w.rng.random() < 0.8:
            w.t(w.rng.choice(["NAVD88 heights here are ", "Going from NGVD29 to NAVD88, heights are "]))
            w.fig(k, signed=False)
            w.t(f" {f.below[1]} ({f.sym} = ")
            w.fig(k)
            w.t("). ")
            continue
        w.t(f"{cap(f.name)}: ")
        w.fig(k)
        w.t(". ")
    for s in (_steps(w, plan) if plan.final is not None else []):
        w.t("\n")
        w.step_eq(s, symbolic=False, units=w.rng.random() < 0.5)
        w.t(".")
    say_claims(w, plan)
    w.t("\n\n")
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    f = w.facts[plan.final]
    ref = "crest" if "freeboard" in f.name else "threshold"
    if f.value < 0:  # a negative freeboard or margin, said in words
        w.t(w.rng.choice(["The water would be ", "That is a deficit of ", "The level is "]))
        w.fig(plan.final, signed=False)
        w.t(w.rng.choice([f" above the {ref}.", " (overtopping)." if ref == "crest" else
                          " over the threshold.", f" above the {ref}."]))
    else:
        w.t(w.rng.choice(["The water stays ", "That leaves ", "The margin is "]))
        w.fig(plan.final)
        w.t(w.rng.choice([f" below the {ref}.", " of clearance.", "."]))
    answer_line(w, plan, p=0.5)


def ranged(w, plan):
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"{cap(f.name)}: ")
        w.fig(k)
        w.t(". ")
    say_claims(w, plan)
    if plan.final is None:
        w.t("\n")
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    w.t(w.rng.choice(["\nThe result is ", "\nI estimate ", "\nIt comes to "]))
    w.fig_range(plan.final)
    pre, post = w.rng.choice([(", most likely ", "."), ("; the computed value is ", "."),
                              (" (point value ", ").")])
    w.t(pre)
    w.fig(plan.final)
    w.t(post)
    answer_line(w, plan, p=0.5)


def parenthetical(w, plan):
    for i, (k, alts) in enumerate(plan.inputs):
        w.t("With " if i == 0 else " and ")
        f = w.facts[k]
        w.t(f"a {f.name} of ")
        say_input(w, k, alts or [], hedge_alt=True)
    w.t(", ")
    say_claims(w, plan)
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    w.t("the result is ")
    w.fig(plan.final)
    if plan.final_alts:
        w.t(" (")
        w.fig(w.rng.choice(plan.final_alts))
        w.t(")")
    w.t(".")
    answer_line(w, plan, p=0.5)


def rounding(w, plan):
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"{cap(f.name)} ")
        w.fig(k)
        w.t("; ")
    say_claims(w, plan)
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    w.t("\nResult: ")
    w.fig(plan.final, prec=w.rng.choice(["sig5", "full", "sig4"]))
    pre, post = w.rng.choice([(", i.e. ", ""), (" — rounded, ", ""),
                              (" (to three significant figures: ", ")")])
    w.t(pre)
    w.fig(plan.final, prec="sig3")
    w.t(post)
    if w.rng.random() < 0.5:
        w.t(", or about ")
        w.fig(plan.final, prec="sig2", loose=True)
    w.t(".")
    answer_line(w, plan, p=0.5)


def hedged(w, plan):
    w.o["coarse"] = w.rng.random() < 0.5
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"The {f.name} is ")
        w.fig(k, hedge=not f.exact and w.rng.random() < 0.5)
        w.t(". ")
    say_claims(w, plan)
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    w.t(w.rng.choice(["So it's ", "That works out to ", "The answer is "]))
    tpl = w.rng.choice([t for t in plan.final_phrases if "about" not in t] or ["{v}"])
    pre, post = tpl.split("{v}")
    w.t(pre)
    w.fig(plan.final, hedge=True)
    w.t(post + ".")
    answer_line(w, plan, p=0.4)


def full_precision(w, plan):
    w.o["prec"] = "full"
    for k, alts in plan.inputs:
        f = w.facts[k]
        w.t(f"{f.tool} returned " if f.tool else
            "The question gives " if f.kind == "question" else f"{cap(f.name)}: ")
        w.fig(k)
        w.t(".\n")
    for s in (_steps(w, plan) if plan.final is not None else []):
        w.step_eq(s, symbolic=False, units=False)
        w.t("\n")
    say_claims(w, plan)
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        return
    w.t("\nFINAL ANSWER: ")
    w.fig(plan.final)


def tool_trace(w, plan):
    """What the agent called and what came back, then the answer."""
    w.t(w.rng.choice(["Tool calls:\n", "I called the tools as follows:\n", ""]))
    by_tool: dict = {}
    for k, f in w.facts.items():
        if f.kind == "output" and f.tool and not f.error:
            by_tool.setdefault(f.tool, []).append(k)
    arrow = w.rng.choice([" → ", " -> ", " returned ", ": "])
    marker = w.rng.choice(["- ", "", "* "])
    seen: dict = {}
    for name, args, failed in plan.calls:
        if not failed and name not in by_tool:
            continue   # its output is not one this answer uses (or the answer got it wrong)
        w.t(marker + f"`{name}(")
        parts = []
        for a, v in args.items():
            parts.append((a, v))
        for i, (a, v) in enumerate(parts):
            w.t(", " if i else "")
            if isinstance(v, dict):
                w.t(a)            # a quantity argument: named, its value shown by the output
            else:
                w.t(f'{a}="')
                w.t(str(v), "identifier")
                w.t('"')
        w.t(")`")
        if failed:
            w.t(arrow.rstrip(": ") + " error: ")
            w.t("HTTP 503 (service unavailable)", "status code")
            w.t("\n")
            continue
        keys = by_tool.get(name, [])
        i = seen.get(name, 0)
        seen[name] = i + 1
        if i < len(keys):
            w.t(arrow)
            w.fig(keys[i], prec=w.rng.choice([None, "full"]))
        w.t("\n")
    say_claims(w, plan)
    w.t("\n")
    if plan.final is None:
        template(w, w.rng.choice(plan.unavailable), lambda k: w.fig(k))
        answer_line(w, plan, p=0.8)
        return
    steps = _steps(w, plan)
    if steps and w.rng.random() < 0.5:
        w.step_eq(steps[-1], symbolic=False, units=True)
        w.t("\n")
    w.t(w.rng.choice(["FINAL ANSWER: ", "Answer: ", "**Final answer:** "]))
    w.fig(plan.final)


STYLES = {
    "terse": terse, "chatty": chatty, "stepwise": stepwise, "table": table,
    "bullets": bullets, "latex": latex, "scientific": scientific, "json_echo": json_echo,
    "identities": identities, "signed_words": signed, "range": ranged,
    "parenthetical": parenthetical, "rounding": rounding, "hedged": hedged,
    "full_precision": full_precision, "tool_trace": tool_trace,
}
__all__ = ["STYLES", "HEDGES"]
