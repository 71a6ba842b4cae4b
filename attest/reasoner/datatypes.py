"""OWL 2 RL datatypes: lexical validity (dt-not-type), data values and their value spaces (dt-type2, dt-eq, dt-diff)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from datetime import datetime
from decimal import Decimal
from typing import Callable
from functools import lru_cache
from xml.dom import minidom
from xml.parsers.expat import ExpatError

from pyoxigraph import Literal

from attest.vocab import RDF, RDFS, XSD

_INT = re.compile(r"[+-]?[0-9]+")
_DEC = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
_FLOAT = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN")
_DATETIME = re.compile(r"-?[0-9]{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
                       r"(\.[0-9]+)?(?P<tz>Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?")
_LANG = re.compile(r"[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*")
_NAME_START = r"A-Za-z_:\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F"
_NAME_CHAR = _NAME_START + r"\-.0-9\u00B7\u0300-\u036F\u203F-\u2040"
_NAME = re.compile(f"[{_NAME_START}][{_NAME_CHAR}]*")
_NCNAME = re.compile(f"[{_NAME_START.replace(':', '')}][{_NAME_CHAR.replace(':', '')}]*")
_NMTOKEN = re.compile(f"[{_NAME_CHAR}]+")
_BASE64 = re.compile(r"(([A-Za-z0-9+/] ?){4})*(([A-Za-z0-9+/] ?){3}[A-Za-z0-9+/]|([A-Za-z0-9+/] ?){2}[AEIMQUYcgkosw048] ?=|"
                     r"[A-Za-z0-9+/] ?[AQgw] ?= ?=)?")
_HEX = re.compile(r"([0-9a-fA-F]{2})*")
_URI_BAD = re.compile(r"[\s<>\"{}|\\^`]")

# integer types: (minimum, maximum), None = unbounded
_INTEGER_RANGES = {
    "integer": (None, None), "nonNegativeInteger": (0, None), "positiveInteger": (1, None),
    "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1), "short": (-2**15, 2**15 - 1), "byte": (-128, 127),
    "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1), "unsignedShort": (0, 2**16 - 1),
    "unsignedByte": (0, 255),
}
_FLOAT_LIMITS = {"float": (1.401298464324817e-45, 3.4028234663852886e38), "double": (5e-324, 1.7976931348623157e308)}


def _integer(lex: str, bounds: tuple[int | None, int | None]) -> bool:
    if not _INT.fullmatch(lex):
        return False
    v = int(lex)
    lo, hi = bounds
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def _floating(lex: str, kind: str) -> bool:
    if not _FLOAT.fullmatch(lex):
        return False
    if lex.lstrip("+-") in ("INF", "NaN"):
        return True
    mantissa, _, exponent = lex.lower().partition("e")
    if not mantissa.strip("+-.0"):
        return True  # zero
    smallest, largest = _FLOAT_LIMITS[kind]
    # compare in log10 so that 1e400 or 1e-400 do not overflow or flush to zero first
    magnitude = math.log10(abs(float(mantissa))) + (int(exponent) if exponent else 0)
    return math.log10(smallest) <= magnitude <= math.log10(largest)


def _xml(lex: str) -> bool:
    try:
        minidom.parseString(f"<r>{lex}</r>")
    except ExpatError:
        return False
    return True


def _plain(lex: str) -> bool:
    text, at, tag = lex.rpartition("@")
    return bool(at) and (tag == "" or bool(_LANG.fullmatch(tag)))


def _whitespace_collapsed(lex: str) -> bool:
    return lex == " ".join(lex.split())


def _integer_in(bounds: tuple[int | None, int | None]) -> Callable[[str], bool]:
    return lambda s: _integer(s, bounds)


_CHECKS: dict[str, Callable[[str], bool]] = {
    XSD + "boolean": lambda s: s in ("true", "false", "1", "0"),
    XSD + "decimal": lambda s: bool(_DEC.fullmatch(s)),
    XSD + "float": lambda s: _floating(s, "float"),
    XSD + "double": lambda s: _floating(s, "double"),
    XSD + "dateTime": lambda s: bool(_DATETIME.fullmatch(s)),
    XSD + "dateTimeStamp": lambda s: bool((m := _DATETIME.fullmatch(s)) and m.group("tz")),
    XSD + "language": lambda s: bool(_LANG.fullmatch(s)),
    XSD + "Name": lambda s: bool(_NAME.fullmatch(s)),
    XSD + "NCName": lambda s: bool(_NCNAME.fullmatch(s)),
    XSD + "NMTOKEN": lambda s: bool(_NMTOKEN.fullmatch(s)),
    XSD + "token": _whitespace_collapsed,
    XSD + "normalizedString": lambda s: not any(c in s for c in "\t\n\r"),
    XSD + "base64Binary": lambda s: bool(_BASE64.fullmatch(s)),
    XSD + "hexBinary": lambda s: bool(_HEX.fullmatch(s)),
    XSD + "anyURI": lambda s: not _URI_BAD.search(s) and not s.startswith(":"),
    RDF + "XMLLiteral": _xml,
    RDF + "PlainLiteral": _plain,
    **{XSD + name: _integer_in(bounds) for name, bounds in _INTEGER_RANGES.items()},
}


def is_ill_typed(lit: Literal) -> bool:
    """True when the literal's lexical form is not in its (OWL 2 RL, known) datatype's lexical space."""
    check = _CHECKS.get(lit.datatype.value)
    return check is not None and not check(lit.value)


# --- data values ------------------------------------------------------------------------------------------------
# A literal's data value as a key: two literals denote the same value exactly when their keys are equal. The first
# item names the value space; OWL 2 keeps the spaces disjoint except the decimal family (integer ⊂ decimal) and the
# string family (xsd:string and its subtypes, rdf:PlainLiteral without a language tag).
_DECIMALS = frozenset({XSD + "decimal", *(XSD + name for name in _INTEGER_RANGES)})
_STRING_SUBTYPES = ("normalizedString", "token", "language", "Name", "NCName", "NMTOKEN")
_STRINGS = frozenset({XSD + "string", *(XSD + name for name in _STRING_SUBTYPES)})
_OWN_SPACE = {XSD + "boolean": "boolean", XSD + "anyURI": "anyURI", XSD + "hexBinary": "hexBinary",
              XSD + "base64Binary": "base64Binary", RDF + "XMLLiteral": "XMLLiteral"}
_LANG_STRING = RDF + "langString"


def _float_key(kind: str, lex: str) -> tuple:
    v = float(lex)  # Python reads INF, -INF and NaN as XSD writes them
    if kind == "float":
        try:
            v = struct.unpack("f", struct.pack("f", v))[0]
        except OverflowError:  # within the lexical check's rounding of the largest float
            v = math.copysign(math.inf, v)
    if math.isnan(v):
        return (kind, "NaN")  # NaN is identical to itself, unlike its numeric comparison
    return (kind, v, math.copysign(1.0, v))  # +0 and -0 are equal numbers but not the same value


def _datetime_key(lex: str) -> tuple | None:
    try:
        value = datetime.fromisoformat(lex)
    except ValueError:
        return None  # beyond Python's datetime (years past 9999, very long fractions): left unknown
    return ("dateTime", value) if value.tzinfo is not None else ("localDateTime", value)


@lru_cache(maxsize=4096)
def value_key(lit: Literal) -> tuple | None:
    """The literal's data value as a comparable key, or None when unknown (an unsupported or ill-typed literal)."""
    dt = lit.datatype.value
    lex = lit.value
    if lit.language:
        return ("lang", lex, lit.language.lower())
    if is_ill_typed(lit):
        return None
    if dt in _DECIMALS:
        return ("decimal", Decimal(lex))
    if dt in (XSD + "float", XSD + "double"):
        return _float_key(dt[len(XSD):], lex)
    if dt in _STRINGS:
        return ("string", lex)
    if dt == RDF + "PlainLiteral":
        text, _, tag = lex.rpartition("@")
        return ("lang", text, tag.lower()) if tag else ("string", text)
    if dt in (XSD + "dateTime", XSD + "dateTimeStamp"):
        return _datetime_key(lex)
    kind = _OWN_SPACE.get(dt)
    if kind == "boolean":
        return (kind, lex in ("true", "1"))
    if kind == "hexBinary":
        return (kind, bytes.fromhex(lex))
    if kind == "base64Binary":
        try:
            return (kind, base64.b64decode(lex.replace(" ", ""), validate=True))
        except binascii.Error:
            return None
    return (kind, lex) if kind else None


def values_differ(a: tuple, b: tuple) -> bool:
    """Whether two known values are certainly different: a dateTime with a time zone and one without are not
    comparable, so neither equal nor different."""
    if a == b:
        return False
    return {a[0], b[0]} != {"dateTime", "localDateTime"}


@lru_cache(maxsize=4096)
def value_datatypes(lit: Literal) -> tuple[str, ...]:
    """The OWL 2 RL datatypes whose value space holds the literal's value (dt-type2), or () when unknown."""
    key = value_key(lit)
    if key is None:
        return ()
    kind = key[0]
    out = [RDFS + "Literal"]
    if kind == "decimal":
        out.append(XSD + "decimal")
        v = key[1]
        if v == v.to_integral_value():
            out += [XSD + name for name, bounds in _INTEGER_RANGES.items() if _integer(str(int(v)), bounds)]
    elif kind == "string":
        out += [XSD + "string", RDF + "PlainLiteral"]
        out += [XSD + name for name in _STRING_SUBTYPES if _CHECKS[XSD + name](key[1])]
    elif kind == "lang":
        out += [RDF + "PlainLiteral", _LANG_STRING]
    elif kind == "dateTime":
        out += [XSD + "dateTime", XSD + "dateTimeStamp"]
    elif kind == "localDateTime":
        out.append(XSD + "dateTime")
    elif kind == "XMLLiteral":
        out.append(RDF + "XMLLiteral")
    else:  # float, double, boolean, anyURI, hexBinary, base64Binary
        out.append(XSD + kind)
    return tuple(out)


# datatypes whose value spaces value_datatypes decides, so that a node typed with one can be checked (dt-not-type)
DECIDED_DATATYPES = frozenset({RDFS + "Literal", RDF + "PlainLiteral", _LANG_STRING, RDF + "XMLLiteral", *_DECIMALS,
                               *_STRINGS, XSD + "float", XSD + "double", XSD + "dateTime", XSD + "dateTimeStamp",
                               *_OWN_SPACE})
