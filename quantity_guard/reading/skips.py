"""What is not a measurement: the predicates the reading pass consults before it records a
number (clock times, identifiers, list markers, counts, positions, codes, scores), and
``SKIP_RULES``, the ordered rows that decide, stage by stage, which numbers read are no
quantities. Each returns the reason a run of digits is skipped, or None.
"""
from __future__ import annotations

import re

from .codes import Said, Skip
from .text import (code_before, counted_noun, counted_noun_any, LENGTH, NOT_COUNTED, one_noun,
    read_phrase, read_unit, sentence_start, sentence_start_at, TIME, UNIT_STOP, WORD)


_DATE = re.compile(r"(?=\d)(?:\b(?:19|20)\d{2}(?:-(?:[0-3]\d{2}\b(?![-.,]\d)|W[0-5]\d(?:-[1-7])?\b)|"
                   r"/[0-3]\d{2}\b(?![-.,/]\d))"
                   r"|\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
                   r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[aApP]\.?[mM]\b\.?|\b)"
                   r"|\b(?:[01]?\d|2[0-3])h[0-5]\d\b)")
# Other clock notations and dotted versions. Each is a separate pattern run only when the text
# holds the literal it cannot match without (checked with `in`, or a regex led by a literal,
# which the engine scans for quickly): read on every answer, one combined pattern tried all its
# alternatives at every digit and cost more than the rest of the reading of a plain answer.
# ISO "T14:05:00Z" (needs "T" and a digit)
_CLOCK_T = re.compile(r"(?<=T)\d{2}:?\d{2}(?::?\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d.])")
_T_DIGIT = re.compile(r"T\d")
# "14.05 UTC", "14:05 BST", "09h30 GMT", "1405Z", "0930 hrs" (needs a zone word, "hrs" or "local")
_CLOCK_ZONE = re.compile(r"(?=\d)(?:\b(?:[01]?\d|2[0-3])[.:h]\s?[0-5]\d\s?(?:UTC|GMT|Z|BST|CET|CEST|EST|"
                         r"EDT|CST|CDT|MST|MDT|PST|PDT|local(?: time)?|Uhr)\b"
                         r"|\b(?:[01]\d|2[0-3])[0-5]\d\s?(?:Z\b|UTC\b|GMT\b|hrs\b|hours local\b))")
# every zone word above holds one of these ("ST": BST, CEST, EST, CST, MST, PST; "DT": EDT, ...)
_ZONE_HINTS = ("Z", "ST", "DT", "UTC", "GMT", "CET", "local", "Uhr", "hrs")
# "14 h 05" (not "2 h 30 min", a duration; needs " h ")
_CLOCK_H = re.compile(r"(?=\d)\b(?:[01]?\d|2[0-3]) h [0-5]\d\b(?!\s?(?:min|m\b|mn|'|\u2032))")
# "2 pm", "2pm", "11 a.m.", "2.05 p.m." (needs "am", "pm", "a.m." or "p.m." in any case)
_CLOCK_AMPM = re.compile(r"(?=\d)\b(?:1[0-2]|0?[1-9])(?:[.:][0-5]\d)?\s?(?:[aApP]\.[mM]\.|[aApP][mM]\b)")
# dotted version numbers and addresses: "1.2.3", "0.4.1", "10.0.0.1" (needs ".<digits>.<digit>")
_VERSION = re.compile(r"(?<![\w.])\d+\.\d+\.\d+(?:\.\d+)*(?![\w.]*\d)")
_VERSION_HINT = re.compile(r"\.\d+\.\d")


def clock_spans(text: str) -> list:
    """The spans of dates, clock times and dotted versions in ``text``: never measurements."""
    spans = [m.span() for m in _DATE.finditer(text)]
    if "T" in text and _T_DIGIT.search(text):
        spans += [m.span() for m in _CLOCK_T.finditer(text)]
    if any(z in text for z in _ZONE_HINTS):
        spans += [m.span() for m in _CLOCK_ZONE.finditer(text)]
    if " h " in text:
        spans += [m.span() for m in _CLOCK_H.finditer(text)]
    low = text.lower()
    if ("am" in low or "pm" in low or "a.m." in low or "p.m." in low):
        spans += [m.span() for m in _CLOCK_AMPM.finditer(text)]
    if "." in text and _VERSION_HINT.search(text):
        spans += [m.span() for m in _VERSION.finditer(text)]
    return spans


# -- round 5: identifiers that hold digits and are read in an answer only ---------------------
# A telephone number: three to six groups of digits (or the letters of a vanity number) joined
# by single hyphens or spaces, nine digits or more, and not a thousands grouping (which has
# groups of exactly three after the first): "1-888-275-8747", "0800 80 70 60", "0345 988 1188".
_PHONE = re.compile(r"(?:\+\d{1,3}[ -]?)?(?:\(\d{1,5}\)[ -]?)?\d{1,5}(?:([ \u00a0-])(?:\d{2,5}|[A-Z]{3,5}))"
                    r"(?:[ \u00a0-](?:\d{2,5}|[A-Z]{3,5})){1,4}(?![\w.,]?\d)")
# short service numbers need a word of telephones in their sentence: "call 911", "line: 311"
SERVICE_NUMBER = frozenset({"111", "112", "211", "311", "411", "511", "611", "711", "811", "911",
                             "999", "000", "101", "105"})
_PHONE_WORDS = re.compile(r"\b(?:call|dial|phone|telephone|tel|line|hotline|helpline|number|"
                          r"emergency|ring|text|contact)\b", re.I)
# A position on the earth: degrees (minutes, seconds) and a hemisphere, "38°56′58″N",
# "38.9496° N"; or a grid reference, "SU 7175 7370" (two letters, two equal digit groups)
_COORD = re.compile(r"\d{1,3}(?:\.\d+)?\s?\u00b0\s?(?:\d{1,2}(?:\.\d+)?\s?['\u2032]\s?(?:\d{1,2}(?:\.\d+)?"
                    r"\s?(?:[\"\u2033]|'')\s?)?)?[NSEW]\b")
_GRIDREF = re.compile(r"\b[HNOST][A-HJ-Z]\s?(\d{2,5})\s(\d{2,5})\b")
# a chainage or a kilometre post, "12+400"; odds and return periods, "1-in-100", "1 in 200-year"
_CHAINAGE = re.compile(r"\+\d{2,3}\b(?![.,]\d)")
_ONE_IN = re.compile(r"(?:-in-|\s+in\s+)(\d{1,5})(?:-|\s+)(?:years?|yrs?|chance|AEP|annual|event|"
                     r"flood|storm)\b", re.I)
_EPOCH_WORDS = re.compile(r"\b(?:unix|epoch|posix|timestamp)\b", re.I)
_MODEL_SETTING = re.compile(r"\b(?:top[_ -]?[pk]|seed|max[_ ]tokens|temperature)\s*[:=]?\s*$", re.I)
_MODEL_WORDS = re.compile(r"\b(?:model|llm|sampling|decoding|gpt|claude|gemini|llama|mistral|qwen)",
                          re.I)
_PROGRESS = re.compile(r"/\d{1,3}[\])]")


_PU_VALUE = re.compile(r"\s?(?:pu|p\.u\.)(?![\w.])")


_SITE_AFTER = re.compile(r"(?:'s)?\s+(?:site|station|gauge|gage|well|sensor|monitoring)", re.I)
_IDIOM = re.compile(r"(?:24/7|24-7|50/50|50-50)\b")
_ADDRESS = re.compile(r"(?:\s[A-Z][a-z]+){1,3}\s(?:Street|St\.?|Road|Rd\.?|Avenue|Ave\.?|Lane|Ln\.?|"
                      r"Drive|Dr\.?|Way|Boulevard|Blvd\.?|Place|Pl\.?|Court|Ct\.?|Square|Terrace|"
                      r"Parkway|Highway|Close|Crescent)\b")
_CALENDAR_BEFORE = re.compile(r"\b(?:day|week|month)\s*$", re.I)
_CALENDAR_AFTER = re.compile(r"\s+(?:of|in)\s+(?:the\s+year|(?:19|20)\d{2}\b)", re.I)
_LATLON_BEFORE = re.compile(r"\b(?:lat|lon|long|latitude|longitude)\.?\s*[:=]?\s*$", re.I)
_PROGRESS_BEFORE = re.compile(r"[\[(]\d{1,3}/$")


_NAME_NOT = UNIT_STOP | {"per", "out", "than"}  # "1-in-30-year": words, not a name


def id_hints(low: str) -> tuple:
    """Which of the word-led identifier rules can apply to a text at all (cheap ``in`` checks,
    made once per text): (a calendar word, a model setting word)."""
    return (("day" in low or "week" in low or "month" in low),
            ("temperature" in low or "seed" in low or "top" in low or "max" in low))


def identifier_at(text: str, s: int, e: int, raw: str, sign, last_skip: int, stated=frozenset(),
                   hints=(True, True)):
    """An identifier starting at the number read at ``s`` (a telephone number, a position on
    the earth, a chainage, a return period, a model's name or setting, a log's step counter,
    the next part of a standard's number): ``(start, end, reason)``, or None."""
    nxt = text[e:e + 1] or "\0"
    prev = text[s - 1:s] or "\0"
    if raw.isdigit() and nxt in "- \u00a0" and text[e + 1:e + 2].isdigit() or \
            raw.isdigit() and sign == "+" and nxt in " -":
        ph = _PHONE.match(text, s)
        if ph is not None:
            body = ph.group()
            groups = re.split(r"[ \u00a0-]+", body.lstrip("+"))
            n = sum(len(g.strip("()")) for g in groups)
            thousands = ph.group(1) != "-" and len(groups[0]) <= 3 and \
                all(len(g) == 3 and g.isdigit() for g in groups[1:])
            if n >= 9 and not thousands and not read_unit(text, ph.end())[0]:
                return (s, ph.end(), Skip.TELEPHONE)
    if raw in SERVICE_NUMBER and _PHONE_WORDS.search(text, max(0, s - 40), s) and \
            read_unit(text, e)[0] is None:
        return (s, e, Skip.SERVICE_NUMBER)
    if "\u00b0" in text[e:e + 3]:
        c = _COORD.match(text, s)
        if c is not None:
            return (s, c.end(), Skip.LATITUDE_LONGITUDE)
    if raw.isdigit() and s >= 3 and prev == " " and text[s - 3:s - 1].isupper():
        g = _GRIDREF.match(text, s - 3)
        if g is not None and len(g.group(1)) == len(g.group(2)):
            return (s - 3, g.end(), Skip.GRID_REFERENCE)
    ch = _CHAINAGE.match(text, e) if raw.isdigit() and nxt == "+" else None
    if ch is not None:
        return (s, ch.end(), Skip.CHAINAGE)
    if raw.isdigit() and nxt in "- \u00a0":
        o = _ONE_IN.match(text, e)
        if o is not None and float(raw) not in stated and float(o.group(1)) not in stated:
            # (the question's own "1 in 30 year storm" is quoted, and read)
            return (s, o.end(), Skip.ODDS_OR_RETURN_PERIOD)
    if prev == "-" and s >= 2 and text[s - 2].isalpha() and \
            text[max(0, s - 12):s - 1].split()[-1:][0].lower().split("-")[-1] not in _NAME_NOT and (
            text[e:e + 1] in "-_" and text[e + 1:e + 2].isalnum() or
            s >= 3 and not text[s - 3].isalnum() and text[s - 2].isupper()):
        # inside a hyphenated name ("gemini-1.5-pro", "stage-i-15_min") or a route ("I-10")
        return (s, e, Skip.PART_OF_NAME)
    if prev == "-" and last_skip > max(text.rfind(" ", 0, s), text.rfind("\n", 0, s)) and \
            read_unit(text, e)[0] is None:
        return (s, e, Skip.PART_OF_NAME)  # "...-large-2407"
    if raw.isdigit() and prev in "-/:" and s - 1 == last_skip and read_unit(text, e)[0] is None:
        return (s, e, Skip.IDENTIFIER_NEXT_PART)
    if raw.isdigit() and nxt == "-" and text[e + 1:e + 2].isupper() and \
            text[e + 2:e + 3].isdigit():
        return (s, e, Skip.CODE_WITH_LETTERS)
    if raw.isdigit() and prev in "[(" and _PROGRESS.match(text, e) or \
            raw.isdigit() and nxt in "])" and _PROGRESS_BEFORE.search(text, max(0, s - 5), s):
        return (s, e, Skip.STEP_COUNTER)
    if raw.isdigit() and len(raw) >= 6 and _SITE_AFTER.match(text, e):
        return (s, e, Skip.SITE_NAMED_AFTER)
    if raw.isdigit() and len(raw) >= 9 and _EPOCH_WORDS.search(text, max(0, s - 30), e + 30):
        return (s, e, Skip.TIMESTAMP)
    idiom = _IDIOM.match(text, s) if raw in ("24", "50") and nxt in "/-" else None
    if idiom is not None:
        return (s, idiom.end(), Skip.IDIOM)
    if raw.isdigit() and nxt == " " and text[e + 1:e + 2].isupper():
        ad = _ADDRESS.match(text, e)
        if ad is not None:
            return (s, e, Skip.STREET_NUMBER)
    if nxt in " pP" and _PU_VALUE.match(text, e):
        return (s, e, Skip.PER_UNIT_VALUE)
    if hints[0] and _CALENDAR_BEFORE.search(text, max(0, s - 8), s) and \
            _CALENDAR_AFTER.match(text, e):
        return (s, e, Skip.CALENDAR_POSITION)
    if sign and _LATLON_BEFORE.search(text, max(0, s - 14), s):
        return (s, e, Skip.LATITUDE_LONGITUDE)
    if hints[1] and _MODEL_SETTING.search(text, max(0, s - 16), s) and \
            read_unit(text, e)[0] is None and \
            _MODEL_WORDS.search(text, max(0, s - 120), min(len(text), e + 60)):
        return (s, e, Skip.MODEL_SETTING)
    return None


# a count: a small whole number and the plural noun it counts ("3 tool calls", "2 decimal
# places", "10 of 12 readings"), or a precision ("2 d.p.", "3 s.f.", "3 sig figs")
_COUNTED = re.compile(r"[ \u00a0]+(?:out of (?:the )?\d{1,3}[ \u00a0]+|of (?:the )?\d{1,3}[ \u00a0]+)?"
                      r"(?:([a-z][a-z-]{1,20})[ \u00a0]+)?([a-z][a-z-]{1,20})\b")
_PRECISION = re.compile(r"[ \u00a0]*(?:d\.?p\.?|s\.?f\.?|sig\.? ?figs?|significant|decimal)(?![a-z])",
                        re.I)


_HTTP_AFTER = re.compile(r"\s*(?:\((?:[A-Z][a-z]+ ?){1,3}\)|(?:[A-Z][a-z]+ ){0,2}(?:error|response|"
                         r"status|Service Unavailable|Not Found|Bad Gateway|Gateway Timeout)\b)")
_HTTP_BEFORE = re.compile(r"(?:\b(?:with|returned|got|gave|threw|raised|a|an)\s+(?:an?\s+)?|HTTP[ /]?|"
                          r"\b(?:error|status|code|response|failure|HTTP)(?:\s+code)?(?:\s+(?:was|is|of))?\s*[(:=#]?\s*)$",
                          re.I)
_NOTE_BEFORE = re.compile(r"\b(?:note|footnote|ref\.?|reference|source|citation|fn\.?)\s*#?$", re.I)
_OF_THEM = re.compile(r"\s+of\s+(?:them|these|those|which|us|it)\b", re.I)
# a period: "the last 7 days", "the past 24 hours" (the data window, not a claim)
_PERIOD_RX = re.compile(r"\s*(?:tsal|tsap|suoiverp|gnideceserp|roirp|tsrif|lanif)(?![^\W_])")
# a probability or confidence level: "95% confidence", "a 1% chance", "the 1% AEP flood"
_CONFIDENT_BEFORE = re.compile(r"\b(?:confiden(?:ce|t)|certainty|certain|sure|probability|"
                               r"likelihood)\b[^.\n]{0,24}$", re.I)
_OUT_OF_TEN = re.compile(r"\s?/\s?(?:10|100)\b[^.\n]{0,16}\b(?:confiden|certain|sure)", re.I)
# a confidence written as a fraction or score right after its word: "confidence: 0.9",
# "probability of 0.95", "p ≈ 0.9", "certainty ~ 8/10"
_CONFIDENCE_NEAR = re.compile(r"(?:\b(?:confiden(?:ce|t)|certainty|probability|likelihood|credence)"
                              r"(?:\s+(?:level|score|rating|estimate))?(?:\s+(?:this|that|it)\s+is\s+"
                              r"(?:right|correct))?|\bp)\s*(?:[:=\u2248~]|is|of|at|about|around)?\s*"
                              r"(?:about|around|~|\u2248)?\s*$", re.I)
_CONFIDENCE_SCORE = re.compile(r"\b(?:confiden(?:ce|t)|certainty)\b[^.\n]{0,12}(?:/|out of)\s*$", re.I)
_SCORE_AFTER = re.compile(r"\s?(?:/|out of)\s?(?:5|10|100)\b")
_SCORE_BEFORE = re.compile(r"\d\s?(?:/|out of)\s?$")
# a list reference: "(2) above", "per (2)", "point (2)", "item (b) 2"
_LISTREF_AFTER = re.compile(r"\s*(?:above|below|earlier|later|before)\b", re.I)
_LISTREF_BEFORE = re.compile(r"\b(?:see|per|in|from|point|item|step|note|bullet|under|as)\s*$", re.I)
_SUBITEM_BEFORE = re.compile(r"\([a-z]\)\s*$")
# a margin of error in words: "uncertainty about 5%", "give or take 5%", "accurate to within 5%"
_UNCERTAIN_BEFORE = re.compile(r"\b(?:uncertaint(?:y|ies)|error margin|margin of error|margin|"
                               r"give or take|plus or minus|accurate to(?: within)?|good to(?: within)?|"
                               r"accuracy(?: of)?|tolerance|precision|error(?: of| bars?)?)"
                               r"\s*(?:[:=]|is|of|about|around|roughly|approximately|~|\u2248|\s)*$", re.I)
_N_EQUALS = re.compile(r"(?<![\w.])[nN]\s?=\s?$")
_CURRENCY = "\u00a3$\u20ac\u00a5\u20b9"
_MONEY_AFTER = re.compile(r"\s?(?:p|pence|cents?|pounds|dollars|euros|GBP|USD|EUR)\b(?!\s*/)", re.I)
_PROBABILITY = re.compile(r"\s*(?:confiden(?:ce|t)|CI\b|credible|probability|chance|likelihood|sure|"
                          r"odds\b|(?:\w+\s+)?odds\b|certainty|"
                          r"certain|"
                          r"AEP\b|annual[- ](?:exceedance|chance)|exceedance probability)", re.I)


# -- round 5: families of numbers that are not measurements -----------------------------------
# A count of the work done, written after its noun: "Lookups performed: 2", "Total requests = 3",
# "Number of calls made - 3", "Retry count = 1". The nouns are the steps of the procedure (calls,
# requests, retries, passes ...), never quantities an answer measures: "Peak flows: 1700" and
# "Readings: 1700" stay claims, and so does "the tool returned: 350" (a singular noun).
_WORK = (r"calls|invocations|requests|look-?ups|queries|fetch(?:es)?|retries|attempts|tries|steps|"
         r"stages|passes|iterations|rounds|hops|turns|operations|retrievals|errors|failures|"
         r"warnings|timeouts|tool ?uses")
_WORK_ONE = (r"call|invocation|request|look-?up|query|fetch|retry|attempt|try|step|stage|pass|"
             r"iteration|round|error|failure|tool ?use")
_WORK_COUNT_BEFORE = re.compile(
    r"(?:\b(?:number|count|total|no\.|tally) of\s+(?:(?:tool|api|function|http|web|data|"
    r"service)\s+)?(?:" + _WORK + r")|\b(?:" + _WORK + r")|\b(?:" + _WORK_ONE + r")\s+(?:count|"
    r"total|tally))(?:\s+(?:used|made|performed|issued|needed|required|taken|executed|run|sent|"
    r"in total|total|overall|altogether|so far|counted|logged|recorded|encountered|seen|"
    r"attempted))?\s*(?:[:=\u2014\u2013]|--?|\b(?:were|was|is|are|came to|totall?ed|numbered|"
    r"stands at|stood at)\b)\s*$", re.I)
# A position in a procedure: "Phase 2 of 3", "Stufe 2 von 3", "pass 2/2"; "Etape 2 :", "Paso 3:"
# (a step noun of a common European language, then a heading's colon or dash). "Stage", "pass"
# and "round" are words of measurement too (a river stage, "a round 400 A"): they are read as
# steps only with "of N" or a heading's colon or dash after the number.
_STEP_NOUN_BEFORE = re.compile(
    r"\b(?:step|stage|phase|part|pass|round|schritt|stufe|teil|\u00e9tape|etape|paso|fase|etapa|"
    r"parte|passo|stap|fase|krok|steg|vaihe)\s*#?\s*$", re.I)
_POSITION_AFTER = re.compile(r"\s*(?::|\u2014|\u2013|-\s|\)|\.\s|(?:of|von|sur|de|di|van|z)\s+\d{1,2}\b"
                             r"|/\s?\d{1,2}\b(?!\s?[A-Za-z\u00b0%]))", re.I)
# N of M, the total of a position or a count: "Phase 2 of 3", "2 of 3 gauges"
_OF_TOTAL_BEFORE = re.compile(r"(?<![\d.,])(\d{1,2})\s+(?:out\s+)?(?:of|von|sur|de|di|van|z)\s+$",
                              re.I)
# A self-assessment, as a score or odds: "Trust level: 4/5", "quality 8 out of 10", "odds of
# that being right are 9 in 10", "self-assessed accuracy 9/10". Only on the scales people score
# on (3, 4, 5, 10, 20, 100) and only after a word of trust, quality or chance.
_SELF_SCORE_WORDS = re.compile(
    r"\b(?:confiden(?:ce|t)|certain(?:ty)?|sure|trust(?:worth\w*)?|reliab\w*|quality|score|"
    r"grade|self-?(?:assessed|rated)|odds|chances?|likel\w*|probab\w*|accuracy|rating)\b"
    r"[^.;\n\d]{0,30}$", re.I)
_SCORE_SCALE = re.compile(r"\s?(?:/|out of|in)\s?(3|4|5|10|20|100)\b(?!\s?[A-Za-z\u00b0%])(?![.,]\d)")
_SCORE_OF = re.compile(r"(?<![\d.,])(\d{1,3})\s?(?:/|out of|in)\s?$")
# A section sign and what it numbers: "§2.1", "§ 4", "¶ 3", "§§2-3"
_SECTION_BEFORE = re.compile(r"[\u00a7\u00b6]\s*(?:\d+(?:\.\d+)*\s*(?:[-\u2013,]|and|to)\s*)?$")
# HTTP: a reason phrase after the code ("201 Created", "200 OK", "502 Bad Gateway") ...
_HTTP_REASON = re.compile(
    r"\s*(?:OK\b|Created\b|Accepted\b|No Content\b|Moved|Found\b|Not Modified|Bad Request|"
    r"Unauthori[sz]ed|Forbidden|Not Found|Method Not Allowed|Conflict\b|Gone\b|Too Many Requests|"
    r"Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out|Request Timeout)")
# ... or a code listed after another code of the same sentence, which names status or HTTP:
# "HTTP 429, then 200", "status was 503 at first and 200 after a retry"
_HTTP_LISTED = re.compile(r"\b[1-5]\d\d\b(?:[^\d.;:\n]{0,30}?)(?:,|\band\b|\bthen\b|\u2192|->|/)\s*"
                          r"(?:then\s+|later\s+|finally\s+|eventually\s+)?(?:an?\s+|got\s+|returned\s+)?$")
_HTTP_WORDS = re.compile(r"\b(?:status|HTTP|response code|error code|retr(?:y|ied|ies))\b", re.I)


_NOTE_START = re.compile(r" [A-Z][a-z]")


# a count of discrete things the tools do not measure: "one of 3 USGS gauges", "one of 4
# gauging stations", "supplies 1,240 customers". Round 5 passed a small number before a counted
# noun ("38 substations"); a grouped or longer count ("1,240 customers") and the total after a
# word number ("one of 3") are counts the same way. The caller passes these only when no tool
# returned a plain count (a wrong "1,250 customers" is then a wrong tool figure), and only with
# no unit read after the number.
_WORD_OF_BEFORE = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                             r"(?:out\s+)?of\s+(?:the\s+)?$", re.I)
_GROUPED_COUNT = re.compile(r"\d{1,3}(?:,\d{3})+")
_COUNT_NOUN_AFTER = re.compile(r"[ \u00a0]+(?:[A-Z][A-Z0-9]{1,5}[ \u00a0]+)?(?:([a-z][a-z-]{1,20})[ \u00a0]+)?"
                               r"([a-z][a-z-]{1,20})\b")


def discrete_count(text: str, s: int, e: int, raw: str, digits: str):
    """A count of discrete things ("1,240 customers", "one of 3 USGS gauges"), or None."""
    word_of = len(digits) <= 3 and "of" in text[max(0, s - 9):s] and \
        _WORD_OF_BEFORE.search(text, max(0, s - 16), s) is not None
    grouped = len(digits) >= 4 and (raw == digits or _GROUPED_COUNT.fullmatch(raw) is not None)
    if not (word_of or grouped):
        return None
    m = _COUNT_NOUN_AFTER.match(text, e)
    if m is None:
        return None
    first, noun = m.group(1), m.group(2)
    if first is not None and counted_noun(first):
        end_noun = m.start(2) - 1
    elif first is not None and (first in UNIT_STOP or first in NOT_COUNTED or
                                read_phrase(first) is not None):
        return None
    elif counted_noun(noun):
        end_noun = m.end()
    else:
        return None
    if text[end_noun:end_noun + 1] in ("/", "\u00b7", "*", "^"):
        return None  # a unit after all ("1,240 things/day")
    if "times" in (first, noun):
        return None  # "6,000 times the load": a factor, not a count
    return Skip.COUNT_OF_THINGS


# a file name or path: a token with no spaces holding "_" or "/" and ending in a file
# extension ("potomac_01646500_2026-11-30.csv", "out/rrl12_v2.json"). Its digits are part of a
# name, like a URL's; a measurement is never written inside one ("2.5_m.csv" is no claim).
_FILE_EXT = re.compile(r"\.(?:csv|tsv|json|jsonl|xlsx?|txt|parquet|nc|xml|pdf|png|jpe?g|svg|"
                       r"zip|gz|h5|hdf5|ya?ml|toml|md|html?|log|dat|geojson|shp|tiff?|py|ipynb|"
                       r"feather|db|sqlite)(?![\w/])", re.I)
_TOKEN_STOP = " \t\n\u00a0<>()[]{}\"'`"


def file_names(text: str) -> list:
    spans = []
    for m in _FILE_EXT.finditer(text):
        a = m.start()
        while a > 0 and text[a - 1] not in _TOKEN_STOP:
            a -= 1
        token = text[a:m.start()]
        if ("_" in token or "/" in token) and any(c.isalpha() for c in token):
            spans.append((a, m.end()))
    return spans


def _http_listed(text: str, s: int) -> bool:
    """An HTTP status code listed after another one in a sentence naming status or HTTP."""
    a = sentence_start(text, s)
    return _HTTP_LISTED.search(text, max(a, s - 48), s) is not None and \
        _HTTP_WORDS.search(text, a, s) is not None


_IN_OF_COUNT = re.compile(r"\s+in\s+(\d{1,3})\s+([a-z][a-z-]{2,20})\b", re.I)
_POINT_SCALE = re.compile(r"\s+(?:on|out of)\s+(?:a|the)\s+\d{1,3}[- ]point\s+scale\b", re.I)


def _work_or_position(text: str, s: int, e: int, digits: str):
    """A small whole number (no unit) that counts the work done, numbers a step, or scores the
    answer itself; None when it may be a measurement."""
    if len(digits) > 3:
        return None
    if _WORK_COUNT_BEFORE.search(text, max(0, s - 56), s):
        return Skip.COUNT_OF_WORK
    if len(digits) <= 2:
        if _STEP_NOUN_BEFORE.search(text, max(0, s - 12), s) and _POSITION_AFTER.match(text, e):
            return Skip.POSITION_IN_PROCEDURE
        m = _OF_TOTAL_BEFORE.search(text, max(0, s - 12), s)
        if m is not None and int(m.group(1)) <= int(digits) and \
                read_unit(text, e)[0] is None and text[e:e + 1] not in ("/", "%"):
            return Skip.TOTAL_OF_POSITION
        m = _OF_TOTAL_BEFORE.match(text, e)  # (the N of "N of M": read after M)
        if m is None:
            after = re.match(r"\s+(?:out\s+)?(?:of|von|sur|de|di|van|z)\s+(\d{1,2})\b", text[e:e + 16],
                             re.I)
            if after is not None and int(digits) <= int(after.group(1)) and \
                    read_unit(text, e + after.end())[0] is None and \
                    text[e + after.end():e + after.end() + 1] not in ("/", "%", ".", ","):
                return Skip.POSITION_OUT_OF_TOTAL
    in_of = _IN_OF_COUNT.match(text, e)
    if in_of is not None and counted_noun_any(in_of.group(2)):
        return Skip.COUNT_OUT_OF_TOTAL
    if _POINT_SCALE.match(text, e):
        return Skip.SCORE_ON_SCALE
    sc = _SCORE_SCALE.match(text, e)
    if sc is not None and int(digits) <= int(sc.group(1)) and \
            _SELF_SCORE_WORDS.search(text, max(0, s - 48), s):
        return Skip.SELF_SCORE
    m = _SCORE_OF.search(text, max(0, s - 12), s)
    if m is not None and digits in ("3", "4", "5", "10", "20", "100") and \
            int(m.group(1)) <= int(digits) and read_unit(text, e)[0] is None and \
            _SELF_SCORE_WORDS.search(text, max(0, m.start() - 48), m.start()):
        return Skip.SELF_SCORE
    return None


_RATIO_AFTER = re.compile(r"\s+(?:too|larger|bigger|higher|greater|smaller|lower|more|less|"
                          r"as|the|that|this|its|over|faster|slower)\b")


def is_marker(text: str, s: int, e: int, close: str) -> bool:
    """A list or step marker ``n.`` / ``n)`` / ``(n)`` (the caller checked: at most two digits,
    then the closing mark and a space). It is one when the line before it holds only markdown
    marks (``**1. Levee crest``, ``### 2. ``, ``> - (3) ``), or, inline, when a word follows
    and the mark closes an enumeration: ``(1) Get the data. (2) Convert.`` (the bracket
    opened right before the number) or ``Plan: 1) read 2) compute`` (a ``)`` that closes no
    bracket of its line). A quantity is never written this way: ``(2 m)``, ``x 2)``."""
    line_start = text.rfind("\n", 0, s) + 1
    if not text[line_start:s].strip(" \t*_#>-+(|"):
        return True
    k = e + 1
    while k < len(text) and text[k] in "*_":
        k += 1
    word = text[k + 1:k + 2]
    if not word.isalpha():
        return False
    if close == "." and word.isupper():
        # inline numbered sentences: "... 35.4 m3/s. 3. Fetched the area: ..." (after the end
        # of a sentence or a heading's colon, the enumeration's neighbour written too)
        j = s - 1
        while j >= line_start and text[j] in " *_":
            j -= 1
        if j < line_start or text[j] in ".:;!?":
            n = int(text[s:e])
            return any(re.search(rf"(?<![\d.,]){v}\.[*_]*\s+[A-Z]", text) for v in (n - 1, n + 1)
                       if v >= 1)
        return False
    if close == ")" and text[s - 1:s] == "(":
        if text[max(line_start, s - 3):s - 1].strip(" *_") in ("", ".", ":", ";") or \
                text[s - 3:s - 1] in (". ", ": ", "; "):
            return True
        # in running text, a marker of a sequence: "pick one: (1) a time series, (2) a chart,
        # (3) an alert". The neighbour "(n-1)" or "(n+1)" is written in the same line, each a
        # bracketed number with a word after it (a quantity is never written "(2) a")
        line_end = text.find("\n", e)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        n = int(text[s:e])
        return any(re.search(rf"\({v}\)[*_]*\s+[A-Za-z]", line) for v in (n - 1, n + 1) if v >= 1)
    if close == ")" and text[s - 1:s] in (" ", ":"):
        before = text[line_start:s]
        return before.count("(") <= before.count(")")
    return False


# -- what is not a measurement: an ordered table of rules ------------------------------------------
class Candidate:
    """A number read in an answer, as the rules below see it: its span (``s``..``e``, the
    unit read up to ``end``), the digits written (``raw``; ``digits`` without separators),
    its value and what was read with it, the words before it reversed (``rev``), ``k``, the
    position of the last character before it that is not a space (-1 if none), and ``page``,
    what the reader knows of the whole text (``plus_minus``, ``base_hint``, ``precise_hint``
    and ``counts_skipped()``: whether a count of discrete things may be passed over)."""

    __slots__ = ("text", "s", "e", "end", "raw", "digits", "integer", "unit", "percent", "sign",
                 "exp", "factor", "rev", "k", "value", "datum", "page")

    def __init__(self, text, s, e, end, raw, digits, integer, unit, percent, sign, exp, factor,
                 rev, value=None, datum=None, page=None) -> None:
        self.text, self.s, self.e, self.end, self.raw, self.digits = text, s, e, end, raw, digits
        self.integer, self.unit, self.percent, self.sign = integer, unit, percent, sign
        self.exp, self.factor, self.rev = exp, factor, rev
        self.value, self.datum, self.page = value, datum, page
        k = s - 1
        while k >= 0 and text[k] in " \u00a0":
            k -= 1
        self.k = k


#: what a rule returns to end its stage: the number is a measurement as far as the rules of its
#: stage go (no later rule of the stage is tried; the next stage is)
MEASUREMENT = object()


class SkipRule:
    """One rule of what is not a measurement: ``decide(candidate)`` returns one of ``codes``
    (the number is skipped), ``MEASUREMENT`` (no later rule of its ``stage`` is tried) or None
    (the next rule decides); it is tried only when ``gate(candidate)`` (cheap) holds."""

    __slots__ = ("name", "codes", "gate", "decide", "stage")

    def __init__(self, name: str, codes: tuple, gate, decide, stage: str = "words") -> None:
        self.name, self.codes, self.gate, self.decide = name, codes, gate, decide
        self.stage = stage

    def __repr__(self) -> str:
        return f"SkipRule({self.name})"


def _uncertainty(c: Candidate):
    text, k = c.text, c.k
    if text[k] == "\u00b1" or text[max(0, k - 2):k + 1] == "+/-":
        return Skip.UNCERTAINTY
    return None


def _citation_bracketed(c: Candidate):
    text, s, e = c.text, c.s, c.e
    if s > 0 and text[s - 1] == "[" and text[e:e + 1] == "]" or text[max(0, s - 2):s] == "[^":
        return Skip.CITATION_BRACKETED
    return None


def _citation_named(c: Candidate):
    return Skip.CITATION_NAMED if _NOTE_BEFORE.search(c.text, max(0, c.s - 12), c.s) else None


def _code_and_number(c: Candidate):
    text, s = c.text, c.s
    if code_before(text, s - 1) and text[max(0, s - 12):s - 1].split()[-1:] != ["FINAL"] and \
            not text[max(0, s - 8):s - 1].endswith(("ANSWER", "FINAL")):
        return Skip.CODE_AND_NUMBER
    return None


def _section_reference(c: Candidate):
    text, s, k = c.text, c.s, c.k
    if _SECTION_BEFORE.search(text, max(0, s - 16), s if text[k] in "\u00a7\u00b6" else s):
        return Skip.SECTION_REFERENCE
    return None


def _money(c: Candidate):
    if c.k >= 0 and c.text[c.k] in _CURRENCY or _MONEY_AFTER.match(c.text, c.end):
        return Skip.MONEY
    return None


def _uncertainty_in_words(c: Candidate):
    if _UNCERTAIN_BEFORE.search(c.text, max(0, c.s - 32), c.s):
        return Skip.UNCERTAINTY_IN_WORDS
    return None


def _probability(c: Candidate):
    """A percentage is a probability or confidence level, or a measurement (a share)."""
    text, s = c.text, c.s
    if _PROBABILITY.match(text, c.end) or _CONFIDENT_BEFORE.search(text, max(0, s - 40), s):
        return Skip.PROBABILITY
    return MEASUREMENT


def _probability_out_of_ten(c: Candidate):
    return Skip.PROBABILITY_OUT_OF_TEN if _OUT_OF_TEN.match(c.text, c.e) else None


def _confidence_score(c: Candidate):
    """A self-rated confidence as a fraction or a score: "confidence: 0.9", "p ≈ 0.9",
    "confidence 8/10", "4 out of 5"."""
    text, s, e = c.text, c.s, c.e
    if _CONFIDENCE_NEAR.search(text, max(0, s - 40), s) or \
            _CONFIDENCE_SCORE.search(text, max(0, s - 20), s):
        if not c.integer and float(c.digits) <= 1 or _SCORE_AFTER.match(text, e) or \
                _SCORE_BEFORE.search(text, max(0, s - 10), s):
            return Skip.CONFIDENCE_SCORE
    return None


def _list_reference(c: Candidate):
    """"(2) above", "item (b) 2"; also a note's marker opening a sentence: "(1) Data as
    returned by the service."."""
    text, s, e = c.text, c.s, c.e
    if text[s - 1:s] == "(" and text[e:e + 1] == ")" and (
            _LISTREF_AFTER.match(text, e + 1) or _LISTREF_BEFORE.search(text, max(0, s - 16), s - 1)
            or _NOTE_START.match(text, e + 1) and sentence_start_at(text, s - 1)) \
            or _SUBITEM_BEFORE.search(text, max(0, s - 8), s):
        return Skip.LIST_REFERENCE
    return None


def _period(c: Candidate):
    """A number with a unit is a period ("the last 7 days"), or a measurement."""
    unit = c.unit
    if c.integer and c.raw == c.digits and unit.dims == TIME and not unit.shift and \
            _PERIOD_RX.match(c.rev.lstrip(" \t").removeprefix("eht ")):
        return Skip.PERIOD
    return MEASUREMENT


def _not_a_small_whole(c: Candidate) -> bool:
    """Signed, scaled, a fraction, grouped or over three digits: none of the rules below (all
    about small whole numbers without a unit) apply."""
    return bool(c.sign or c.exp or c.factor is not None or not c.integer or c.raw != c.digits or
                len(c.digits) > 3)


def _adjective(c: Candidate):
    """A compound adjective naming an interval ("15-minute data", "a 7-day mean") or a count
    ("a 3-phase system", "a 2-step check"); any other hyphenated word: a measurement."""
    word = WORD.match(c.text, c.e + 1)
    w = word.group().lower().split("-")[0] if word else ""
    hit = read_phrase(w) if w else None
    if hit is not None and hit[0].dims == TIME or w in ("year", "month", "yr", "week"):
        return Skip.INTERVAL_ADJECTIVE
    if hit is None and w.isalpha() and len(w) > 2 and w not in UNIT_STOP:
        return Skip.COMPOUND_ADJECTIVE
    return MEASUREMENT


def _precision(c: Candidate):
    return Skip.PRECISION if _PRECISION.match(c.text, c.e) else None


def _work_or_position_rule(c: Candidate):
    return _work_or_position(c.text, c.s, c.e, c.digits)


def _http_status(c: Candidate):
    text, s, e = c.text, c.s, c.e
    if _HTTP_AFTER.match(text, e) or _HTTP_BEFORE.search(text, max(0, s - 20), s) or \
            _HTTP_REASON.match(text, e) or _http_listed(text, s):
        return Skip.HTTP_STATUS
    return None


def _n_equals(c: Candidate):
    return Skip.COUNT_N_EQUALS if _N_EQUALS.search(c.text, max(0, c.s - 6), c.s) else None


def _of_them(c: Candidate):
    return Skip.COUNT_OF_THEM if _OF_THEM.match(c.text, c.e) else None


def _count(c: Candidate):
    """A count of things: "3 tool calls", "10 of 12 readings", "1 call to get"."""
    text, digits = c.text, c.digits
    m = _COUNTED.match(text, c.e)
    if m is None:
        return None
    first, noun = m.group(1), m.group(2)
    end_noun = m.end()
    if first is not None and (counted_noun(first) or digits == "1" and one_noun(first)):
        end_noun = m.start(2) - 1   # "3 readings were averaged", "1 call to get"
    elif first is not None and (first in UNIT_STOP or first in NOT_COUNTED or
                                read_phrase(first) is not None):
        return None
    elif not (counted_noun(noun) or digits == "1" and first is None and one_noun(noun)):
        return None
    if text[end_noun:end_noun + 1] in ("/", "\u00b7", "*", "^"):
        return None  # a unit after all ("3 things/day")
    if "times" in (first, noun):
        after = m.start(2) - 1 if first == "times" else m.end()
        if _RATIO_AFTER.match(text, after):
            return None  # "35 times too large", "3 times the flow": a ratio, not a count
    return Skip.COUNT


def _count_of_things(c: Candidate):
    """"1,240 customers", "one of 3 USGS gauges"; passed over only where no tool returned a
    plain count (``page.counts_skipped()``): there a wrong count is a wrong tool figure."""
    code = discrete_count(c.text, c.s, c.e, c.raw, c.digits)
    return code if code is not None and c.page.counts_skipped() else None


def _may_be_a_count_of_things(c: Candidate) -> bool:
    return c.unit is None and c.integer and not c.percent and not c.sign and not c.exp and \
        c.factor is None and len(c.digits) <= 7


# one unit defined by a formula after it: "1 Ml/d = 1,000 m\u00b3 / 86,400 s" (its right side is
# read, and must hold; "1 kV = 1000 V" is no formula, and is read)
_DEFINED_AS = re.compile(r"\s*(?:=|\u2261|:=|equals|is equal to|is defined as)\s*\(?\d[^=;\n]{0,40}?"
                         r"\s[/\u00d7*\u00f7]\s*\d")


def _one_unit_defined(c: Candidate):
    return Skip.ONE_UNIT_DEFINED if _DEFINED_AS.match(c.text, c.end) else None


# A distance to a place: "150 m below the A33 bridge", "2 km downstream of the intake" (a
# structure or a place, never a level: "below the bridge soffit" is a clearance, and "below the
# threshold", "below the gauge datum" are claims)
_LANDMARK_AFTER = re.compile(
    r"\s+(?:(?:up|down)stream\b(?!\s+(?:level|stage|flow|water))|(?:(?:up|down)stream\s+|north\s+|"
    r"south\s+|east\s+|west\s+)?(?:of|from|below|above|past|beyond|before|after)\s+(?:the\s+)?"
    r"(?:[A-Z][\w-]*\s+){0,3}(?:bridge|intake|weir|confluence|outfall|dam|lock|crossing|road|"
    r"mouth|junction|village|town|mill|culvert|sluice|footbridge|viaduct|ford|barrage|"
    r"substation|railway|motorway|highway|outlet)s?\b(?!\s+(?:crest|top|deck|level|height|soffit|"
    r"invert|datum|zero|threshold|sill|spill|apron|floor)))")
_LANDMARK_FIRST = frozenset("udnsewofbpaUDNSEWOFBPA")  # up, down, north ... of, from, below ...


def _distance_to_place(c: Candidate):
    return Skip.DISTANCE_TO_PLACE if _LANDMARK_AFTER.match(c.text, c.end) else None


def _may_be_a_distance(unit, datum, text: str, end: int) -> bool:
    return datum is None and unit.dims == LENGTH and text[end + 1:end + 2] in _LANDMARK_FIRST


# a per-unit value ("0.9 pu") is read on a base the answer picks; the base ("on a 100 MVA base")
# is a convention
_PU_AFTER = re.compile(r"\s+base\b", re.I)
_PU_BASE = re.compile(r"\bbase\s+(?:of\s+)?$", re.I)


def base_hint(low: str) -> bool:
    """Whether the rule per_unit_base can apply to a text at all (its lower-case form)."""
    return "base" in low


def _per_unit_base(c: Candidate):
    text, s = c.text, c.s
    if _PU_AFTER.match(text, c.end) or _PU_BASE.search(text, max(0, s - 12), s):
        return Skip.PER_UNIT_BASE
    return None


# a precision written with a unit: "exact to 0.1 A", "given to the nearest 0.1 ft"
_PRECISION_BEFORE = re.compile(r"\b(?:(?:exact|accurate|precise|correct|good|given|resolved|known)"
                               r"\s+to(?:\s+within)?(?:\s+the\s+nearest)?|"
                               r"to\s+the\s+nearest|resolution(?:\s+of)?|precision(?:\s+of)?)\s*$", re.I)
_PRECISION_HINTS = ("exact", "accura", "precis", "correct to", "good to", "given to", "resolved",
                    "known to", "nearest", "resolution")


def precision_hint(low: str) -> bool:
    """Whether the rule precision_to can apply to a text at all (its lower-case form)."""
    return any(w in low for w in _PRECISION_HINTS)


def _precision_to(c: Candidate):
    text, s = c.text, c.s
    before = text[max(0, s - 24):s].lower()
    if ("to " in text[max(0, s - 20):s] or "resolution" in before or "precision" in before) and \
            _PRECISION_BEFORE.search(text, max(0, s - 28), s):
        return Skip.PRECISION_TO
    return None


def _list_marker(c: Candidate):
    text, e = c.text, c.e
    nxt = text[e:e + 1]
    if text[e + 1:e + 4].lstrip("*_")[:1].isspace() and is_marker(text, c.s, e, nxt):
        return Skip.LIST_MARKER
    return None


def _may_be_a_marker(digits: str, nxt: str) -> bool:
    return len(digits) <= 2 and nxt in ".)" and nxt != ""


def _year(c: Candidate):
    return Skip.YEAR if read_unit(c.text, c.e)[0] is None else None


def _may_be_a_year(raw: str, digits: str) -> bool:
    return raw == digits and len(digits) == 4 and 1800 <= int(digits) <= 2100


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SQRT_BEFORE = re.compile(r"(?:\u221a|sqrt|root)\s*\(?\s*$", re.I)


def _day_of_month(c: Candidate):
    words_before = c.rev[::-1].split()
    word_after = c.text[c.e:c.e + 12].strip().lower()
    if (words_before and words_before[-1][:3] in _MONTHS) or word_after[:3] in _MONTHS:
        return Skip.DAY_OF_MONTH
    return None


def _constant_root(c: Candidate):
    """The number under a root ("\u221a3", "sqrt(2)"): a constant of the text, recorded on its
    page (``page.constants``)."""
    if _SQRT_BEFORE.search(c.text, max(0, c.s - 8), c.s):
        n = int(c.digits)
        c.page.constants.add(f"sqrt{n}")
        return Said(Skip.CONSTANT_ROOT, f"the constant \u221a{n}")
    return None


def _may_be_a_day(digits: str) -> bool:
    return len(digits) <= 2 and int(digits) <= 31


def _ordinal(c: Candidate):
    """"1st", "2nd": an ordinal; but "1250cfs" is a number with a unit."""
    text, e = c.text, c.e
    if text[e:e + 2] in ("st", "nd", "rd", "th") and not text[e + 2:e + 3].isalnum():
        return Skip.ORDINAL
    return None


def _code_string(c: Candidate):
    """A number quoted as a string in code or JSON: "7374000", `42`."""
    return Skip.CODE_STRING if c.text[c.e:c.e + 1] == c.text[c.s - 1] else None


def _digits_into_letters(c: Candidate):
    """Digits run into letters that are no unit ("5a", "12b"): part of an identifier."""
    return Skip.DIGITS_INTO_LETTERS


def _always(c: Candidate) -> bool:
    return True


_WORK_CODES = (Skip.COUNT_OF_WORK, Skip.POSITION_IN_PROCEDURE, Skip.TOTAL_OF_POSITION,
               Skip.POSITION_OUT_OF_TOTAL, Skip.COUNT_OUT_OF_TOTAL, Skip.SCORE_ON_SCALE,
               Skip.SELF_SCORE)

#: what is not a measurement, in the order the rules are tried, stage by stage (``STAGES``)
SKIP_RULES = (
    SkipRule("ordinal", (Skip.ORDINAL,), lambda c: c.text[c.e:c.e + 1].isalpha() and not c.percent,
             _ordinal, stage="marks"),
    SkipRule("code_string", (Skip.CODE_STRING,),
             lambda c: c.page.answer and c.s > 0 and c.text[c.s - 1] in "\"'`" and
             not c.percent and not c.sign, _code_string, stage="marks"),
    SkipRule("list_marker", (Skip.LIST_MARKER,),
             lambda c: _may_be_a_marker(c.digits, c.text[c.e:c.e + 1]), _list_marker,
             stage="whole"),
    SkipRule("year", (Skip.YEAR,), lambda c: _may_be_a_year(c.raw, c.digits), _year,
             stage="whole"),
    SkipRule("day_of_month", (Skip.DAY_OF_MONTH,), lambda c: _may_be_a_day(c.digits),
             _day_of_month, stage="whole"),
    SkipRule("constant_root", (Skip.CONSTANT_ROOT,),
             lambda c: c.page.sqrt_written and _may_be_a_day(c.digits) and int(c.digits) <= 10,
             _constant_root, stage="whole"),
    SkipRule("uncertainty", (Skip.UNCERTAINTY,), lambda c: c.k >= 0, _uncertainty),
    SkipRule("citation_bracketed", (Skip.CITATION_BRACKETED,), lambda c: c.integer,
             _citation_bracketed),
    SkipRule("citation_named", (Skip.CITATION_NAMED,), lambda c: c.integer, _citation_named),
    SkipRule("code_and_number", (Skip.CODE_AND_NUMBER,),
             lambda c: c.integer and c.unit is None and c.s >= 3 and c.text[c.s - 1] == " ",
             _code_and_number),
    SkipRule("section_reference", (Skip.SECTION_REFERENCE,),
             lambda c: c.unit is None and not c.percent and c.k >= 0 and
             c.text[c.k] in "\u00a7\u00b6-\u2013,", _section_reference),
    SkipRule("money", (Skip.MONEY,), _always, _money),
    SkipRule("uncertainty_in_words", (Skip.UNCERTAINTY_IN_WORDS,), lambda c: c.percent,
             _uncertainty_in_words),
    SkipRule("probability", (Skip.PROBABILITY,), lambda c: c.percent, _probability),
    SkipRule("probability_out_of_ten", (Skip.PROBABILITY_OUT_OF_TEN,), lambda c: c.unit is None,
             _probability_out_of_ten),
    SkipRule("confidence_score", (Skip.CONFIDENCE_SCORE,),
             lambda c: c.unit is None and not c.sign, _confidence_score),
    SkipRule("list_reference", (Skip.LIST_REFERENCE,),
             lambda c: c.unit is None and c.integer and len(c.digits) <= 2, _list_reference),
    SkipRule("period", (Skip.PERIOD,), lambda c: c.unit is not None, _period),
    SkipRule("not_a_small_whole", (), _not_a_small_whole, lambda c: MEASUREMENT),
    SkipRule("adjective", (Skip.INTERVAL_ADJECTIVE, Skip.COMPOUND_ADJECTIVE),
             lambda c: c.text[c.e:c.e + 1] == "-" and c.text[c.e + 1:c.e + 2].isalpha(),
             _adjective),
    SkipRule("precision", (Skip.PRECISION,), _always, _precision),
    SkipRule("work_or_position", _WORK_CODES, _always, _work_or_position_rule),
    SkipRule("http_status", (Skip.HTTP_STATUS,),
             lambda c: len(c.digits) == 3 and 100 <= int(c.digits) <= 599, _http_status),
    SkipRule("n_equals", (Skip.COUNT_N_EQUALS,), _always, _n_equals),
    SkipRule("of_them", (Skip.COUNT_OF_THEM,), _always, _of_them),
    SkipRule("count", (Skip.COUNT,), _always, _count),
    SkipRule("count_of_things", (Skip.COUNT_OF_THINGS,), _may_be_a_count_of_things,
             _count_of_things, stage="things"),
    SkipRule("one_unit_defined", (Skip.ONE_UNIT_DEFINED,),
             lambda c: c.value == 1.0 and not c.exp and c.factor is None, _one_unit_defined,
             stage="unit"),
    SkipRule("distance_to_place", (Skip.DISTANCE_TO_PLACE,),
             lambda c: _may_be_a_distance(c.unit, c.datum, c.text, c.end), _distance_to_place,
             stage="unit"),
    SkipRule("per_unit_base", (Skip.PER_UNIT_BASE,), lambda c: c.page.base_hint, _per_unit_base,
             stage="unit"),
    SkipRule("precision_to", (Skip.PRECISION_TO,), lambda c: c.page.precise_hint and not c.percent,
             _precision_to, stage="unit"),
    SkipRule("digits_into_letters", (Skip.DIGITS_INTO_LETTERS,),
             lambda c: c.unit is None and not c.percent and c.factor is None and
             c.text[c.e:c.e + 1].isalpha(), _digits_into_letters, stage="letters"),
)


#: the stages of ``SKIP_RULES``, in the order they are tried (``SKIP_RULES`` lists its rows in
#: that order): in a question too, the marks around a number before any word is read
#: ("marks") and a whole number written without a percent sign, whatever follows it
#: ("whole"); in an answer only, once the unit after it is read, the words around a number
#: with no unit, a percentage, a time or any number of a text with a "\u00b1" ("words"), a
#: whole number with no unit that may count things ("things") and a number read with its
#: unit ("unit"); last, in a question too, digits run into letters that are no unit
#: ("letters"). Before "marks" the reader passes over the digits inside a span it read (a
#: date, a time, an address, an identifier), and before "whole" an identifier or a label.
STAGES = ("marks", "whole", "words", "things", "unit", "letters")


def _stage(name: str) -> tuple:
    return tuple((None if r.gate is _always else r.gate, r.decide) for r in SKIP_RULES
                 if r.stage == name)


_MARKS, _WHOLE, _WORDS, _THINGS, _UNIT, _LETTERS = (_stage(name) for name in STAGES)


def _first(rules: tuple, c: Candidate):
    for gate, decide in rules:
        if gate is None or gate(c):
            code = decide(c)
            if code is not None:
                return None if code is MEASUREMENT else code
    return None


def not_a_measurement(page, text, s, e, end, raw, digits, integer, unit, percent, sign, exp,
                      factor, rev, value, datum):
    """Why a number read (with its unit) is no measurement: in an answer (``page.answer``) the
    code of the first rule of the stages "words", "things" and "unit" of ``SKIP_RULES`` that
    decides (a count, a precision, a period, an uncertainty, a probability), unless the
    question states the value (``page.stated``: it is quoted, and read); then, in a question
    too, of the stage "letters"; or None. Each stage is entered only when its cheap test (its
    rows' gates, inline: this runs on every number) holds; the candidate is built then."""
    c = code = None
    if page.answer:
        if unit is None or percent or page.plus_minus or unit.dims == TIME:
            c = Candidate(text, s, e, end, raw, digits, integer, unit, percent, sign, exp, factor,
                          rev, value, datum, page)
            code = _first(_WORDS, c)
        if code is None:
            if unit is None:
                if integer and not percent and not sign and not exp and factor is None and \
                        len(digits) <= 7:
                    c = c or Candidate(text, s, e, end, raw, digits, integer, unit, percent, sign,
                                       exp, factor, rev, value, datum, page)
                    code = _first(_THINGS, c)
            elif value == 1.0 or page.base_hint or page.precise_hint or datum is None and \
                    unit.dims == LENGTH and text[end + 1:end + 2] in _LANDMARK_FIRST:
                c = c or Candidate(text, s, e, end, raw, digits, integer, unit, percent, sign, exp,
                                   factor, rev, value, datum, page)
                code = _first(_UNIT, c)
        if code is not None and value not in page.stated:
            return code
    if unit is None and not percent and factor is None and text[e:e + 1].isalpha():
        return _first(_LETTERS, c or Candidate(text, s, e, end, raw, digits, integer, unit,
                                               percent, sign, exp, factor, rev, value, datum, page))
    return None


def whole_number_skip(page, text, s, e, raw, digits, rev):
    """Why a whole number written without a percent sign is no quantity, whatever follows it
    (a list marker, a year, a day of a month, the number under a root): the code of the
    first rule of the stage "whole" of ``SKIP_RULES``, or None. In a question too; its
    candidate has no unit read yet."""
    n = len(digits)  # (the gates of its rows, inline: this runs on every whole number)
    if n <= 2 and (text[e:e + 1] in (".", ")") or int(digits) <= 31) or \
            n == 4 and raw == digits and 1800 <= int(digits) <= 2100:
        return _first(_WHOLE, Candidate(text, s, e, e, raw, digits, True, None, False, None, 0,
                                        None, rev, None, None, page))
    return None


def marked_skip(page, text, s, e, raw, digits, integer, rev, sign, pct):
    """Why a number is no quantity by the marks around it (an ordinal, a string in code): the
    code of the first rule of the stage "marks" of ``SKIP_RULES``, or None. In a question too
    (a string in code only in an answer); its candidate has no unit read yet."""
    # (the gates of its rows, inline: this runs on every number)
    if text[e:e + 1].isalpha() and not pct or \
            page.answer and s > 0 and text[s - 1] in "\"'`" and not pct and not sign:
        return _first(_MARKS, Candidate(text, s, e, e, raw, digits, integer, None, bool(pct),
                                        sign, 0, None, rev, None, None, page))
    return None
