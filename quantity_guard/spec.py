"""Declarations and boundary coercion.

A declaration (``Spec``) says what a tool parameter or result must be: ``unit``, ``datum``,
``tz``, ``quality`` (the weakest acceptable grade), ``crs``, ``sourced`` and
``require_explicit_unit``. It is validated when the tool is defined, never first at call time.

``Spec.accept`` turns what a model sends into the declared form, or refuses it:

- a bare number (``1250``) is read in the declared unit and on the declared datum: the
  contract the schema states (refused under ``require_explicit_unit``); booleans are not numbers;
- a string: ``"1250 cfs"``, ``"1,250 cfs"``, ``"1250cfs"``, ``"12.4 ft NAVD88"``, a numeric
  string (a bare number), or a JSON object;
- a dict ``{"value": 1250, "unit": "cfs", "datum": ..., "quality": ..., "crs": ...}``, with
  any of the descriptive keys a tool result carries (``source``, ``time``, ``station``, ...:
  ``DESCRIPTIVE_KEYS``) echoed back; any other key (``scale``, ``offset``, a typo) is refused,
  not ignored;
- a ``Q``; a list or array for a series.

Compatible input is converted into the declared unit; incompatible input is refused with a
violation saying what was received, what was expected and what to send instead.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~2 ms cold)
if TYPE_CHECKING:  # annotations only: they are never evaluated at run time
    from datetime import tzinfo
    from typing import Any

from .errors import (BelowAbsoluteZero, CRSMismatch, DatumMismatch, DimensionalityError,
                     GuardViolation, InvalidArguments, MissingUnit, OffsetUnitError,
                     QualityViolation, UnitParseError)
from .quantity import Q, check_finite, normalise_crs, split_number
from .units import Unit, parse_unit, parse_with_datum
from .units import conversion

__all__ = ["Spec", "Accepted", "returns_of", "SPEC_KEYS", "DESCRIPTIVE_KEYS", "field_type_problem",
           "did_you_mean", "closest_name"]

SPEC_KEYS = frozenset({"unit", "datum", "tz", "quality", "crs", "sourced",
                       "require_explicit_unit", "description", "optional"})
_DICT_KEYS = frozenset({"value", "unit", "datum", "quality", "crs"})
# keys that describe a value without changing its meaning: models echo what a tool returned, so
# these are accepted (kept in the ledger with the argument as received; ``source`` on the Q).
# Anything else, above all a key that could change the meaning (scale, factor, offset,
# multiplier), is refused with this list.
DESCRIPTIVE_KEYS = frozenset({"source", "time", "timestamp", "datetime", "date", "station",
                              "site", "location", "method", "qualifiers", "description", "name",
                              "label", "parameter"})
_ALTERING_KEYS = frozenset({"scale", "factor", "offset", "multiplier", "scale_factor",
                            "add_offset", "shift", "divisor", "exponent"})

# how the value arrived, for the ledger and for messages
BARE, STRING, DICT, QUANTITY, SERIES, TIMESTAMP, RAW = (
    "bare", "string", "dict", "quantity", "series", "timestamp", "raw")


class Accepted:
    """The result of coercing one argument.

    ``value``: what the tool body receives (a Q in the declared unit, or a datetime);
    ``received``: the Q as the model stated it, before conversion (None for timestamps);
    ``how``: bare / string / dict / quantity / series / timestamp / raw;
    """

    __slots__ = ("value", "received", "how", "raw")
    value: Any  # a Q in the declared unit, a datetime, or (lenient) what was sent
    received: "Q | None"
    how: str
    raw: Any

    def __init__(self, value: Any, received: "Q | None", how: str, raw: Any) -> None:
        self.value = value
        self.received = received
        self.how = how
        self.raw = raw


class Spec:
    """A validated declaration for one parameter or result."""

    __slots__ = ("unit", "unit_text", "datum", "tz", "tz_text", "quality", "crs", "sourced",
                 "require_explicit_unit", "description", "optional", "field", "_plain", "_via")
    unit: "Unit | None"  # None exactly when ``tz`` is set (a timestamp)
    unit_text: "str | None"
    datum: "str | None"
    tz: "tzinfo | None"
    tz_text: "str | None"
    quality: "str | None"
    crs: "str | None"
    sourced: bool
    require_explicit_unit: bool
    description: "str | None"
    optional: bool
    field: "str | None"
    _plain: bool
    # a plain declaration's units seen in {"value", "unit"} arguments: unit text -> (the Unit,
    # the factor into the declared unit), for units that convert by a factor alone
    _via: "dict[str, tuple[Unit, float]]"

    def __init__(self, unit: "str | Unit | None" = None, *, datum: str | None = None,
                 tz: str | None = None, quality: str | None = None, crs: str | None = None,
                 sourced: bool = False, require_explicit_unit: bool = False,
                 description: str | None = None, optional: bool = False,
                 field: str | None = None) -> None:
        try:
            self._init(unit, datum, tz, quality, crs, sourced, require_explicit_unit, description,
                       optional, field)
        except GuardViolation as err:
            if field and not err.field:
                raise err.at(field) from None
            raise

    def _init(self, unit: "str | Unit | None", datum: str | None, tz: str | None,
              quality: str | None, crs: str | None, sourced: bool, require_explicit_unit: bool,
              description: str | None, optional: bool, field: str | None) -> None:
        where = f" for {field}" if field else ""
        _check_types(where, field, unit=unit, datum=datum, tz=tz, quality=quality, crs=crs,
                     sourced=sourced, require_explicit_unit=require_explicit_unit,
                     description=description, optional=optional)
        self.field = field
        self.unit_text = None if unit is None else (unit.symbol if isinstance(unit, Unit) else unit)
        self.unit = None
        self.datum = None
        if unit is not None:
            try:
                u, written_datum = parse_with_datum(unit) if isinstance(unit, str) else (unit, None)
            except UnitParseError as err:
                raise UnitParseError(f"declaration{where}: {err.message}", text=err.text,
                                     position=err.position, suggestions=err.suggestions,
                                     hint=err.hint,
                                     field=field) from None
            self.unit = u
            if written_datum is not None:
                self.unit_text = u.symbol
                datum = datum or written_datum
        if datum is not None:
            from . import datums
            if self.unit is None:
                raise InvalidArguments(f"declaration{where}: a datum ({datum}) needs a length unit",
                                       field=field)
            if self.unit.dims != parse_unit("m").dims:
                raise InvalidArguments(f"declaration{where}: a datum ({datum}) applies only to a "
                                       f"length, not to {self.unit.symbol}", field=field)
            self.datum = datums.get(datum).name
        self.tz_text = tz
        self.tz = None
        if tz is not None:
            from .timezones import parse_zone
            self.tz = parse_zone(tz)
            if self.unit is not None:
                raise InvalidArguments(f"declaration{where}: tz declares a timestamp, which has no "
                                       f"unit (unit {self.unit_text!r} given)", field=field)
        if quality is not None:
            from .quality import validate_grade
            quality = validate_grade(quality)
        self.quality = quality
        self.crs = normalise_crs(crs)
        self.sourced = bool(sourced)
        self.require_explicit_unit = bool(require_explicit_unit)
        self.description = description
        self.optional = bool(optional)
        # (a temperature scale is not plain: its values are checked against absolute zero)
        self._plain = (self.unit is not None and self.datum is None and self.crs is None
                       and self.quality is None and not self.require_explicit_unit
                       and self.unit.zero is None)
        self._via = {}
        if self.unit is None and self.tz is None:
            raise InvalidArguments(f"declaration{where} has neither a unit nor a tz: declare "
                                   f"{{'unit': 'm**3/s'}} or {{'tz': 'America/Chicago'}}",
                                   field=field)

    @classmethod
    def of(cls, decl: "Spec | str | Unit | dict[str, Any]", field: str | None = None) -> "Spec":
        """A Spec from a Spec, a unit string, or a dict of declaration fields."""
        if isinstance(decl, Spec):
            if field and decl.field != field:
                return cls(decl.unit, datum=decl.datum, tz=decl.tz_text, quality=decl.quality,
                           crs=decl.crs, sourced=decl.sourced,
                           require_explicit_unit=decl.require_explicit_unit,
                           description=decl.description, optional=decl.optional, field=field)
            return decl
        if isinstance(decl, (str, Unit)):
            return cls(decl, field=field)
        if isinstance(decl, dict):
            unknown = set(decl) - SPEC_KEYS
            if unknown:
                hint = did_you_mean(sorted(unknown, key=str), SPEC_KEYS)
                raise InvalidArguments(
                    f"declaration{' for ' + field if field else ''}: unknown keys "
                    f"{sorted(unknown, key=str)}{hint}; the declaration fields are "
                    f"{sorted(SPEC_KEYS)}", field=field)
            return cls(**decl, field=field)
        raise InvalidArguments(f"declaration{' for ' + field if field else ''} must be a unit "
                               f"string or a dict, received {type(decl).__name__}", field=field)

    # -- what a model is told --------------------------------------------------------------
    @property
    def is_timestamp(self) -> bool:
        return self.tz is not None

    def _quantity_unit(self) -> Unit:
        """The declared unit of a quantity declaration; callers have ruled out a timestamp."""
        unit = self.unit
        if unit is None:  # _init refuses a declaration with neither a unit nor a tz
            raise InvalidArguments(f"declaration{' for ' + self.field if self.field else ''} "
                                   f"is a timestamp (tz {self.tz_text}), not a quantity",
                                   field=self.field)
        return unit

    def words(self) -> str:
        """The unit stated in words, because many hosts drop x-* keys and an opaque abbreviation
        is the hazard: ``cubic feet per second (cfs)``."""
        if self.is_timestamp:
            return f"a timestamp with a UTC offset, in {self.tz_text}"
        unit = self._quantity_unit()
        if unit.symbol == "1":  # the dimensionless unit itself: no unit to name
            return "a plain number with no unit (dimensionless: a ratio or a count)"
        text = f"{unit.long_name} ({unit.symbol})"
        if self.datum:
            text += f" above {self.datum}"
        return text

    def in_words(self) -> str:
        """``In cubic feet per second (cfs).``; for the dimensionless unit, what it is."""
        words = self.words()
        if self.unit is not None and self.unit.symbol == "1":
            return words[:1].upper() + words[1:] + "."
        return f"In {words}."

    def describe(self) -> str:
        parts = [self.description] if self.description else []
        parts.append(self.in_words())
        if not self.is_timestamp:
            symbol = self._quantity_unit().symbol
            if symbol == "1":
                parts.append(('State it as {"value": <number>, "unit": "1"}; a' if
                              self.require_explicit_unit else "A bare number is read as it is; a")
                             + ' ratio given in percent or another dimensionless unit must carry '
                               'it, e.g. "12 %" (read as 0.12).')
            elif self.require_explicit_unit:
                parts.append('State the unit: {"value": <number>, "unit": "%s"} or "<number> %s".'
                             % (symbol, symbol))
            else:
                parts.append(f"A bare number is read in {symbol}; a value in another "
                             f"unit must carry it, e.g. \"<number> <unit>\".")
            zero = self._quantity_unit().zero
            if zero is not None:
                parts.append(f"A temperature, not a difference: at least {_show(zero)} {symbol} "
                             f"(absolute zero).")
        if self.quality:
            parts.append(f"Records must be at least {self.quality}.")
        if self.crs:
            parts.append(f"Coordinates in {self.crs}.")
        return " ".join(parts)

    def json_schema(self, *, extensions: bool = True) -> "dict[str, Any]":
        """The JSON Schema of this parameter, with ``x-unit`` etc. unless ``extensions`` is off."""
        if self.is_timestamp:
            schema: dict = {"type": "string", "format": "date-time", "description": self.describe()}
            if extensions:
                schema["x-tz"] = self.tz_text
            return schema
        unit = self._quantity_unit()
        props = {"value": {"type": "number"}, "unit": {"type": "string"}}
        for key, declared in (("datum", self.datum), ("quality", self.quality),
                              ("crs", self.crs)):
            if declared is not None:  # optional: the value's own frame, checked against it
                props[key] = {"type": "string"}
        q = {"type": "object", "properties": props, "required": ["value", "unit"]}
        if self.require_explicit_unit:
            schema = {"anyOf": [{"type": "string"}, q]}
        else:
            bare: dict = {"type": "number"}
            if unit.zero is not None:  # a temperature scale: nothing below absolute zero
                bare["minimum"] = unit.zero
            schema = {"anyOf": [bare, {"type": "string"}, q]}
        schema["description"] = self.describe()
        if extensions:
            schema["x-unit"] = self.unit_text
            if unit.ucum is not None:  # the same unit as a UCUM code, where one exists
                schema["x-unit-ucum"] = unit.ucum
            for key, value in (("x-datum", self.datum), ("x-crs", self.crs),
                               ("x-quality", self.quality)):
                if value is not None:
                    schema[key] = value
        return schema

    def output_schema(self) -> "dict[str, Any]":
        props: dict = {"value": {"type": "number"}, "unit": {"type": "string"}}
        for key in ("datum", "quality", "crs"):
            props[key] = {"type": "string"}
        return {"type": "object", "properties": props, "required": ["value", "unit"],
                "description": self.in_words()}

    # -- coercion ---------------------------------------------------------------------------
    def accept(self, raw: Any, field: str | None = None) -> Accepted:
        """Coerce one argument as a model sent it; raise a GuardViolation if it cannot be."""
        cls = raw.__class__
        if (cls is float or cls is int) and self._plain and raw - raw == 0:
            # the hot path: a bare number (_plain means self.unit is not None)
            try:
                q = Q._make(float(raw), self.unit, None, None, None)  # type: ignore[arg-type]  # _plain
            except OverflowError:  # an int past the float range: Q refuses it below
                pass
            else:
                return Accepted(q, q, BARE, raw)
        elif cls is dict and self._plain and len(raw) == 2:
            # {"value": <number>, "unit": <a unit seen before>}: the factor is cached, so the
            # call does no parsing and builds only the two quantities (see _remember)
            text = raw.get("unit")
            via = self._via.get(text) if text.__class__ is str else None
            value = raw.get("value")
            vcls = value.__class__
            if via is not None and (vcls is float or vcls is int):
                try:
                    m = float(value)
                except OverflowError:  # an int past the float range: refused below
                    pass
                else:
                    u, a = via
                    converted = m * a
                    if converted - converted == 0:  # (NaN and infinities: refused below)
                        received = Q._make(m, u, None, None, None)
                        target = self.unit
                        if u is target:
                            return Accepted(received, received, DICT, raw)
                        assert target is not None  # a factor is kept for a declared unit only
                        return Accepted(Q._make(converted, target, None, None, None),
                                        received, DICT, raw)
        field = field or self.field
        try:
            if self.tz is not None:
                from .timezones import check_timestamp
                return Accepted(check_timestamp(raw, self.tz, field=field), None, TIMESTAMP, raw)
            received, how = self._to_quantity(raw, field)
            accepted = Accepted(self._check(received, field), received, how, raw)
            if how is DICT and self._plain and cls is dict and len(raw) == 2:
                self._remember(raw, received)
            return accepted
        except BelowAbsoluteZero as err:  # refused by Q: say what this parameter takes
            unit = self.unit
            if unit is not None and unit.zero is not None:
                located = err.at(err.field or field)
                located.suggestion = _temperature_example(unit)
                raise located from None
            raise err.at(err.field or field) from None
        except GuardViolation as err:
            if err.field is None and field:
                raise err.at(field) from None
            raise

    def _remember(self, raw: "dict[str, Any]", received: Q) -> None:
        """Cache how ``{"value", "unit"}`` with ``raw``'s unit text was read, for ``accept``'s
        fast path: only where it is a factor alone (no datum written in the unit, no
        temperature point, no offset) and the value a plain number."""
        text = raw.get("unit")
        u = received.unit
        if text.__class__ is not str or "value" not in raw or received.datum is not None \
                or received.magnitude.__class__ is not float or u.offset is not None \
                or len(self._via) >= 64:
            return
        a, b = conversion(u, self.unit)  # type: ignore[arg-type]  # _plain: a unit
        if b is None:
            self._via[text] = (u, a)

    def lenient(self, raw: Any, field: str | None = None) -> Accepted:
        """For ``enforcement`` warn/off: the value as best it can be read, never refused."""
        try:
            return self.accept(raw, field)
        except GuardViolation:
            pass
        try:
            received, how = self._to_quantity(raw, field)
            return Accepted(received, received, how, raw)
        except GuardViolation:
            return Accepted(raw, None, RAW, raw)

    def _bare(self, value: Any, field: str | None, raw: Any, how: str = BARE) -> "tuple[Q, str]":
        if self.require_explicit_unit:
            unit = self._quantity_unit()
            raise MissingUnit(
                f"received the bare number {_show(value)}, and this parameter requires an "
                f"explicit unit", field=field, received=raw,
                suggestion=f'{{"value": {_show(value)}, "unit": "<its unit>"}}, e.g. '
                           f'{{"value": {_show(value)}, "unit": "{unit.symbol}"}} if it is '
                           f'in {unit.symbol}', expected=self.unit_text)
        try:  # (a timestamp declaration has no unit: Q refuses the number with MissingUnit)
            q = Q(value, self.unit, datum=self.datum, crs=self.crs)
        except InvalidArguments as err:
            raise err.at(field) from None
        return q, how

    def _to_quantity(self, raw: Any, field: str | None) -> "tuple[Q, str]":
        cls = raw.__class__
        if cls is Q:
            return raw, QUANTITY
        if cls is float or cls is int:
            return self._bare(raw, field, raw)
        if cls is bool or raw is None:
            raise InvalidArguments(
                f"received {raw!r}, which is not a quantity", field=field, received=raw,
                suggestion=self._example(), expected=self.unit_text)
        if cls is str:
            return self._from_string(raw, field)
        if cls is dict:
            return self._from_dict(raw, field, raw)
        if cls is list or cls is tuple or cls.__module__ == "numpy":
            if getattr(raw, "shape", None) == ():  # a numpy scalar: one number (Q reads it)
                return self._bare(raw, field, raw)
            return self._from_series(raw, field)
        if isinstance(raw, (int, float)) or cls.__name__ == "Decimal" or _is_real(raw):
            return self._bare(raw, field, raw)  # Fraction, Decimal: a number, as Q reads it
        raise InvalidArguments(f"received a {cls.__name__}, which is not a quantity",
                               field=field, received=repr(raw), suggestion=self._example())

    def _from_string(self, text: str, field: str | None) -> "tuple[Q, str]":
        s = text.strip()
        if s.startswith("{"):
            import json
            try:
                data = json.loads(s)
            except ValueError as err:
                raise InvalidArguments(f"received the string {text!r}, which starts like JSON but "
                                       f"is not valid JSON ({err})", field=field, received=text,
                                       suggestion=self._example()) from None
            if not isinstance(data, dict):
                raise InvalidArguments(f"received JSON that is not an object: {text!r}",
                                       field=field, received=text, suggestion=self._example())
            return self._from_dict(data, field, text)
        number, rest = split_number(s)
        if number is None:
            raise InvalidArguments(f"received {text!r}, which is not a number with a unit",
                                   field=field, received=text, suggestion=self._example())
        check_finite(number, text, field)
        if not rest:
            return self._bare(number, field, text)
        try:
            unit, datum = parse_with_datum(rest)
            return Q(number, unit, datum=datum), STRING
        except GuardViolation as err:
            raise err.at(field) from None

    def _from_dict(self, data: "dict[str, Any]", field: str | None,
                   raw: Any) -> "tuple[Q, str]":
        unknown = set(data) - _DICT_KEYS
        if unknown and not unknown <= DESCRIPTIVE_KEYS:
            unknown -= DESCRIPTIVE_KEYS
            altering = sorted(unknown & _ALTERING_KEYS)
            why = (f" ({', '.join(altering)} would change the value's meaning: apply "
                   f"{'it' if len(altering) == 1 else 'them'} and send the result)"
                   if altering else "")
            raise InvalidArguments(
                f"received a quantity with unknown keys {sorted(unknown)}{why}; the keys are "
                f"value, unit, datum, quality and crs, and these descriptive keys are accepted "
                f"and do not change the value: {', '.join(sorted(DESCRIPTIVE_KEYS))}",
                field=field, received=raw, suggestion=self._example())
        if "value" not in data:
            raise InvalidArguments(f"received {raw!r} with no 'value'", field=field, received=raw,
                                   suggestion=self._example())
        value = data["value"]
        vcls = value.__class__
        if vcls is bool or not (isinstance(value, (int, float, list)) or vcls is str
                                or vcls.__module__ == "numpy" or vcls.__name__ == "Decimal"
                                or _is_real(value)):
            raise InvalidArguments(f"received the value {value!r}, which is not a number",
                                   field=field, received=raw, suggestion=self._example())
        if value.__class__ is str:
            number, rest = split_number(value)
            if number is None or rest:
                raise InvalidArguments(f"received the value {value!r}, which is not a number "
                                       f"(put the unit under 'unit')", field=field, received=raw,
                                       suggestion=self._example())
            check_finite(number, value, field)
            value = number
        source = data.get("source") if unknown else None
        if source.__class__ is not str:
            source = None
        if data.get("quality") is not None:
            self._read_quality(data, field, raw)
        try:
            if data.get("unit") is None:
                q, how = self._bare(value, field, raw, DICT)
                if data.get("datum") is not None or data.get("quality") is not None \
                        or data.get("crs") is not None or source is not None:
                    q = Q(q.magnitude, q.unit, datum=data.get("datum", q.datum),
                          crs=data.get("crs", q.crs), quality=data.get("quality"),
                          source=source)
                return q, how
            return (Q(value, data["unit"], datum=data.get("datum"), crs=data.get("crs"),
                      quality=data.get("quality"), source=source), DICT)
        except GuardViolation as err:
            raise err.at(field) from None

    def _read_quality(self, data: "dict[str, Any]", field: str | None, raw: Any) -> None:
        """Refuse a quality the guard cannot read (an unknown word such as "reviewed", a
        condition or remark code), saying why it matters even where no floor is declared: the
        quality travels with the value, so it is read, never ignored or guessed."""
        from .quality import GRADES, grade, meets
        flag = data["quality"]
        try:
            grade(flag)
            return
        except QualityViolation as err:
            reason = ("is no quality grade or publisher flag the guard knows"
                      if err.message.startswith("unknown quality flag") else
                      f"cannot be read as a grade: {err.message.rstrip('.')}")
        unit = data.get("unit") or self.unit_text
        bare = f'{{"value": {_show(data.get("value"))}, "unit": "{unit}"}}'
        if self.quality is None:
            why = ("This parameter sets no quality floor, but a quality that is sent travels "
                   "with the value (the weakest grade wins when values combine, and the answer "
                   "audit reports it), so it is read, never dropped or guessed")
            allowed = GRADES
            instead = f'the value without "quality", {bare}, or with'
        else:
            why = f"This parameter requires records of at least {self.quality}"
            allowed = tuple(g for g in GRADES if meets(g, self.quality))
            instead = "the value with"
        raise QualityViolation(
            f"received quality {flag!r}, which {reason}. {why}", field=field, received=raw,
            expected=allowed,
            suggestion=f"{instead} a grade: {', '.join(allowed)} (or a publisher's flag for "
                       f"one, such as USGS 'A' or 'P')")

    def _from_series(self, values: Any, field: str | None) -> "tuple[Q, str]":
        if len(values) == 0:
            raise InvalidArguments("received an empty series", field=field, received=values,
                                   suggestion=self._example())
        if any(isinstance(v, (list, tuple)) for v in values):
            raise InvalidArguments("a series must be a flat list of values, one per element",
                                   field=field, received=repr(values)[:80],
                                   suggestion=f"[{self._example()}, ...]")
        if values.__class__.__module__ == "numpy" or all(
                v.__class__ in (int, float) or v is None for v in values):
            q, _ = self._bare(values, field, values)
            return q, SERIES
        parts = [self._to_quantity(v, field)[0] for v in values]
        first = parts[0]
        if not self._quantity_unit().dims == first.unit.dims:
            return first, SERIES
        mags = [p.to(first.unit).magnitude if p.unit.dims == first.unit.dims else p.magnitude
                for p in parts]
        return Q(mags, first.unit, datum=first.datum, crs=first.crs,
                 quality=_weakest([p.quality for p in parts])), SERIES

    def _check(self, q: Q, field: str | None) -> Q:
        unit = self.unit
        if unit is None:  # the check inline, the helper only to refuse: this path is hot
            unit = self._quantity_unit()
        if q.unit is not unit:
            if q.unit.dims != unit.dims:
                raise DimensionalityError(
                    f"expected a quantity in {self.unit_text} ({unit.dimensionality}), received "
                    f"{q} ({q.unit.dimensionality})", field=field, received=str(q),
                    expected=self.unit_text, suggestion=self._example())
        if self.datum is not None:
            if q.datum is None:
                q = Q._make(q.magnitude, q.unit, self.datum, q.crs, q.quality, q.source)
            elif q.datum != self.datum:
                raise DatumMismatch(
                    f"expected an elevation on {self.datum}, received {_show(q.magnitude)} "
                    f"{q.unit.symbol} on {q.datum}; values "
                    f"on another datum are refused, never silently shifted", field=field,
                    received=q.datum, expected=self.datum,
                    suggestion=datum_repair(q, self.datum, unit))
        if self.crs is not None:
            if q.crs is None:
                q = Q._make(q.magnitude, q.unit, q.datum, self.crs, q.quality, q.source)
            elif q.crs != self.crs:
                raise CRSMismatch(f"expected coordinates in {self.crs}, received {q.crs}",
                                  field=field, received=q.crs, expected=self.crs,
                                  suggestion=f"the value in {self.crs}")
        if self.quality is not None:
            from .quality import check_floor
            check_floor(q.quality, self.quality, field=field)
        if unit.zero is not None:  # a temperature scale: an absolute temperature is declared
            self._temperature(q, unit, field)
        if q.unit is unit:
            return q
        conversion(q.unit, unit)  # cached; raises OffsetUnitError for point/interval mixes
        try:
            return q.to(unit)
        except GuardViolation as err:
            raise err.at(field) from None

    def _temperature(self, q: Q, unit: Unit, field: str | None) -> None:
        """A parameter declared on a temperature scale (K, degR, degC, degF) takes a
        temperature, a point: a difference (delta_degC) is refused, and so is a value below
        absolute zero (-5 K). K and degR measure differences too, so Q(-5, "K") is a valid
        difference; a tool that takes a difference declares delta_degC or delta_degF."""
        if q.unit.interval:
            raise OffsetUnitError(
                f"expected a temperature in {self.unit_text}, received the temperature "
                f"difference {q}: this parameter takes a temperature, not a change of one (a "
                f"tool that takes a difference declares delta_degC)", field=field,
                received=str(q), expected=self.unit_text, suggestion=_temperature_example(unit))
        zero = q.unit.zero
        if zero is None:  # another dimension: _check has refused it already
            return
        m = q.magnitude
        if m.__class__ is float:
            low = m if m < zero else None
        else:
            below = m[m < zero]
            low = float(below[0]) if len(below) else None
        if low is not None:
            raise BelowAbsoluteZero(
                f"received {_show(low)} {q.unit.symbol}, below absolute zero ({_show(zero)} "
                f"{q.unit.symbol}), for a parameter declared in {self.unit_text}: it takes a "
                f"temperature, and a value below absolute zero can only be a temperature "
                f"difference (a tool that takes a difference declares delta_degC)",
                field=field, received=str(q), expected=self.unit_text,
                suggestion=_temperature_example(unit))

    def _example(self) -> str:
        if self.is_timestamp:
            return "an ISO 8601 timestamp with its offset"
        extra = f', "datum": "{self.datum}"' if self.datum else ""
        symbol = self._quantity_unit().symbol
        if symbol == "1":
            return ('a plain number, or {"value": <number>, "unit": "1"}, or a string such as '
                    '"<number> %"')
        return (f'a number in {symbol}, or {{"value": <number>, "unit": '
                f'"{symbol}"{extra}}}, or a string such as "<number> {symbol}"')

    def __repr__(self) -> str:
        fields = [f"{k}={getattr(self, k)!r}" for k in ("unit_text", "datum", "tz_text", "quality",
                                                         "crs") if getattr(self, k)]
        fields += [k for k in ("sourced", "require_explicit_unit", "optional") if getattr(self, k)]
        return f"Spec({', '.join(fields)})"

    def convert_result(self, value: Any, field: str | None = None) -> Q:
        """A tool's own result in the declared unit (a bare number is labelled with it)."""
        field = field or self.field
        if value.__class__ is Q:
            unit = self._quantity_unit()
            if value.unit.dims != unit.dims:
                raise DimensionalityError(
                    f"the tool returned {value} ({value.unit.dimensionality}) but declares "
                    f"{self.unit_text} ({unit.dimensionality})", field=field,
                    received=str(value), expected=self.unit_text)
            q = value
            if self.datum is not None and q.datum is None:
                q = Q._make(q.magnitude, q.unit, self.datum, q.crs, q.quality, q.source)
            return q.to(unit)
        cls = value.__class__
        if (cls is float or cls is int) and self._plain and value - value == 0:
            try:  # the common case, as Q(value, self.unit) reads it
                return Q._make(float(value), self.unit, None, None, None)  # type: ignore[arg-type]  # _plain
            except OverflowError:  # an int past the float range: Q refuses it below
                pass
        if isinstance(value, (int, float)) and cls is not bool:
            return Q(value, self.unit, datum=self.datum, crs=self.crs)
        received, _ = self._to_quantity(value, field)
        return self._check(received, field)


#: the declaration fields that are true or false, and those that are text
FLAG_KEYS = ("sourced", "require_explicit_unit", "optional")
TEXT_KEYS = ("datum", "tz", "quality", "crs", "description")


def field_type_problem(key: str, value: Any) -> "str | None":
    """Why ``value`` cannot be the declaration field ``key`` (None when it can): a flag must be
    a boolean (the string ``"no"`` is not false), a text field a string, and ``unit`` a unit
    string (or a Unit)."""
    if key in FLAG_KEYS:
        if value.__class__ is bool:
            return None
        shown = f"the string {value!r}" if isinstance(value, str) else \
            f"{type(value).__name__} {value!r}"
        return (f"{key} must be a boolean, received {shown}; write {key} = true or "
                f"{key} = false without quotes (TOML and JSON; True or False in Python)")
    if key in TEXT_KEYS or key == "unit":
        if isinstance(value, str) or (key == "unit" and isinstance(value, Unit)):
            return None
        what = "a unit string such as \"m**3/s\"" if key == "unit" else "a string"
        example = {"tz": "\"America/Chicago\"", "datum": "\"NAVD88\"", "quality": "\"approved\"",
                   "crs": "\"EPSG:4326\"", "description": "\"...\""}.get(key, "\"m**3/s\"")
        return (f"{key} must be {what}, received {type(value).__name__} {value!r}; write "
                f"{key} = {example}")
    return None


def _check_types(where: str, field: "str | None", **fields: Any) -> None:
    for key, value in fields.items():
        if value is None and key not in FLAG_KEYS:
            continue
        problem = field_type_problem(key, value)
        if problem is not None:
            raise InvalidArguments(f"declaration{where}: {problem}", field=field,
                                   received=value, expected=key)


def datum_repair(q: Q, target: str, unit: Unit) -> str:
    """What to send instead of ``q`` for a parameter on ``target``, in words a model can act
    on: the converted value when an offset is registered, else how to obtain it."""
    from . import datums
    try:
        moved = q.to_datum(target).to(unit)
    except GuardViolation:
        moved = None
    if moved is None or q.datum is None:  # q.to_datum refuses an elevation with no datum
        return (f"the same point on {target}: apply the offset between {q.datum} and {target} "
                f"at this location (from a tool or the station record; it varies from place to "
                f"place, so it is never assumed), then send {{\"value\": <number>, \"unit\": "
                f"\"{unit.symbol}\", \"datum\": \"{target}\"}}")
    offset = datums.offset(q.datum, target)
    return (f'{{"value": {_show(moved.magnitude)}, "unit": "{unit.symbol}", "datum": '
            f'"{target}"}} ({_show(q.magnitude)} {q.unit.symbol} on {q.datum} moved to {target} '
            f'by the registered offset of {_show(float(offset))} m)')


def _is_real(value: Any) -> bool:
    """A real number of a kind Q reads (Fraction, a numbers.Real)."""
    import numbers
    return isinstance(value, numbers.Real)


def _temperature_example(unit: Unit) -> str:
    freezing = Q(0.0, "degC").to(unit).magnitude
    return (f"a temperature of at least {_show(unit.zero)} {unit.symbol} (absolute zero), e.g. "
            f"{_show(freezing)} {unit.symbol} for 0 degC, or a temperature on another scale, "
            f"such as \"5 degC\"")


def _weakest(grades: "list[str | None]") -> "str | None":
    from .quality import weakest
    return weakest(*grades)


def _show(value: Any) -> str:
    if value.__class__ is float and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if value.__class__ is float:
        return repr(value)
    return str(value)


def returns_of(decl: Any, field: str) -> "Spec | dict[str, Spec] | None":
    """``returns=`` is one declaration (``{"unit": ...}`` or a unit string) or a dict of them
    by result field name."""
    if decl is None:
        return None
    if isinstance(decl, dict) and decl and not (set(decl) & SPEC_KEYS):
        for k, v in decl.items():
            near = _spec_key_lookalike(k, v)
            if near is not None:
                raise InvalidArguments(
                    f'returns = {{ {k} = "{v}" }} reads as a result field named {k!r} with the '
                    f"unit {v!r}, not as a declaration of the whole result: did you mean "
                    f'{near!r}? Write returns = {{ {near} = "{v}" }} for the whole result; if the '
                    f"result really has a field {k!r}, write it in full: "
                    f'returns = {{ {k} = {{ unit = "{v}" }} }}', field=f"{field}.{k}",
                    suggestion=f'returns = {{ {near} = "{v}" }}')
        return {k: Spec.of(v, f"{field}.{k}") for k, v in decl.items()}
    return Spec.of(decl, field)


def _spec_key_lookalike(key: Any, value: Any) -> "str | None":
    """The declaration field a result-field key looks like a misspelling of (``units``,
    ``Unit``, ``datums``), when it is given the shorthand (a bare string) a declaration field
    would take; None otherwise. A field written in full (``{ unit = ... }``) is a field."""
    if not isinstance(key, str) or not isinstance(value, str):
        return None
    return closest_name(key.replace("-", "_"), SPEC_KEYS, cutoff=0.8)


def closest_name(name: str, known: "Any", cutoff: float = 0.6) -> "str | None":
    """The ``known`` name ``name`` most likely means: the same with case and a plural ``s``
    folded, else difflib's closest above ``cutoff``; None if none."""
    import difflib
    names = sorted(k for k in known if isinstance(k, str))
    folded = name.strip().lower()
    hit = next((k for k in names if k.lower() in (folded, folded.rstrip("s"))
                or k.lower().rstrip("s") == folded), None)
    if hit is None:
        close = difflib.get_close_matches(folded, names, n=1, cutoff=cutoff)
        hit = close[0] if close else None
    return hit


def did_you_mean(names: "list[Any]", known: "Any", cutoff: float = 0.6) -> str:
    """`` (did you mean 'unit'?)`` for the unknown ``names`` that are close to a ``known``
    one (:func:`closest_name`), or ``""``."""
    pairs = []
    for name in names:
        hit = closest_name(name, known, cutoff) if isinstance(name, str) else None
        if hit is not None and hit != name:
            pairs.append(f"{hit!r} for {name!r}" if len(names) > 1 else repr(hit))
    return f" (did you mean {', '.join(pairs)}?)" if pairs else ""
