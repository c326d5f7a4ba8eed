"""Latin-script variants of a variant folder (``builder romanize``): hin_Deva -> hin_Latn.

:data:`ROMANIZATION` says, one row per script, which tool and scheme write it
in Latin letters and whether the round trip is exact: the ten Brahmic scripts
of FLORES-200 go through :mod:`builder.variants.brahmic` (indic-transliteration,
default ISO 15919, every letter and sign of their blocks covered); Tibetan and
Perso-Arabic (Urdu) through ``uroman``, which runs offline and is MIT-style
licensed (see docs/variants.md for the comparison with aksharamukha).
:data:`NOT_SUPPORTED` names the FLORES-200 scripts no installed library writes
well enough, and why; they stop with one line.

Before transliteration, :mod:`builder.variants.punctuation` writes the
script's punctuation (danda -> ".") and digits, with the stand-ins real text
types for them (:data:`brahmic.STAND_INS`: Assamese U+09F7 for the danda) and
the fractions that have a Latin form (:data:`brahmic.NUMBER_FORMS`); each mark
is counted. Every
run then checks that no native character is left (:func:`native_left`: any
code point of the script's block, or whose Script or Script_Extensions is the
source script, so a kept danda counts, but not one Latin text uses too, such as
U+02BC), that a second pass gives the same
text, and, where the scheme
has a way back, how many native runs come back exactly from the Latin text,
with the reason of each that does not.

>>> get_romanizer("hin_Deva").romanize("नमस्ते।")
'namastē.'
"""
from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

import regex

from schemas.runtime.provenance import recorded_path
from schemas.io import read_sib_tsv, read_text_utf8, require_path, sha256_file, staging_dir, write_sib_tsv
from schemas.io import write_jsonl_atomic, write_text_atomic
from schemas.tables import jsonl_lines, split_lines
from schemas.errors import ScriptError, SchemaError, UsageError
from schemas.codes import check_language_code
from schemas.splits import SPLIT_ORDER
from schemas.variant import VARIANT_JSON, VariantInfo
from schemas.runtime.provenance import package_version
from schemas.scripts import script_letters, script_of

from . import brahmic
from .brahmic_letters import BLOCKS, lossy_letters
from .credit import carried_credit
from .punctuation import MarkPolicy, policy

#: ``license_from`` of a license given to :func:`romanize_variant` by a caller that names no origin.
LICENSE_FROM_CALLER = "declared by the caller"

#: Text fields romanized in multiple-choice (JSONL) splits.
MC_TEXT_FIELDS = ("passage", "question", "answer1", "answer2", "answer3", "answer4", "correct_answer")


@dataclass(frozen=True)
class Method:
    """How one script is written in Latin letters: the tool, its schemes (default first), which are exact."""

    tool: str
    schemes: tuple[str, ...]
    lossless: tuple[str, ...] = ()  # schemes with an exact round trip (up to documented letters)


_SANSCRIPT = Method("indic-transliteration", brahmic.SCHEMES, ("iso",))
_UROMAN = Method("uroman", ("uroman",))

#: ISO 15924 script -> how ``builder romanize`` writes it, one row per script.
ROMANIZATION: dict[str, Method] = {
    "Deva": _SANSCRIPT,
    "Beng": _SANSCRIPT,
    "Guru": _SANSCRIPT,
    "Gujr": _SANSCRIPT,
    "Orya": _SANSCRIPT,
    "Taml": _SANSCRIPT,
    "Telu": _SANSCRIPT,
    "Knda": _SANSCRIPT,
    "Mlym": _SANSCRIPT,
    "Sinh": _SANSCRIPT,
    "Tibt": _UROMAN,  # a Wylie-like reading; no way back
    "Arab": _UROMAN,  # Urdu and other Arabic-script languages; no way back (no short vowels)
}

#: FLORES-200 scripts with no usable scheme in indic-transliteration or uroman: script -> why.
NOT_SUPPORTED: dict[str, str] = {
    "Olck": "uroman reads the Ol Chiki vowels as 'l' (ᱥᱟᱱᱛᱟᱲᱤ -> slntlrrl) and indic-transliteration's "
            "ol_chiki table only writes Sanskrit in Ol Chiki",
    "Mtei": "uroman spells the Meetei Mayek vowel signs by their names (ꯃꯤꯇꯩ -> minaptcheinap) and "
            "indic-transliteration's manipuri table only writes Sanskrit in Meetei Mayek (श ष स all ꯁ)",
}


@dataclass(frozen=True)
class Romanizer:
    """One way to write a script in Latin letters."""

    script: str
    tool: str
    version: str
    scheme: str
    romanize: Callable[[str], str]
    back: Callable[[str], str] | None = None  # Latin -> native, where the scheme defines it
    lossless: bool = False  # exact round trip claimed (up to the documented exceptions)
    marks: MarkPolicy = field(default_factory=lambda: policy(""))  # punctuation and digits, applied first


_INFO: list = []  # where _uroman says that it builds the tables (romanize_variant's ``info``)


@lru_cache(maxsize=1)
def _uroman():
    """uroman's tables, once per process (:func:`.romanize_uroman.tables`: from the user's cache when built before)."""
    from .romanize_uroman import tables  # imported lazily: uroman and its tables take seconds

    return tables(_INFO[-1] if _INFO else None)


def get_romanizer(code: str, scheme: str | None = None, *, where=None) -> Romanizer:
    """The romanizer for variant ``code`` (``hin_Deva``) and ``scheme`` (None: the script's default).

    A script with no row in :data:`ROMANIZATION` is a :class:`UsageError` naming
    the script, the variant (and ``where``, the folder) and why.
    """
    script = script_of(code)
    method = ROMANIZATION.get(script)
    if method is None:
        why = f" (not supported: {NOT_SUPPORTED[script]})" if script in NOT_SUPPORTED else ""
        raise UsageError(f"no romanizer for script {script} of {code}{why}; supported scripts: "
                         f"{', '.join(sorted(ROMANIZATION))}", file=where)
    scheme = scheme or method.schemes[0]
    if scheme not in method.schemes:
        raise UsageError(f"unknown scheme {scheme!r} for script {script}; allowed: {', '.join(method.schemes)}",
                         file=where)
    marks = _policy(script)
    if method.tool == "uroman":
        lcode = code.split("_")[0]
        from .romanize_uroman import TokenRomanizer

        tokens = TokenRomanizer(_uroman, lcode)  # each distinct token once, for this romanizer (one variant)
        return Romanizer(script, "uroman", package_version("uroman"), scheme,
                         lambda t: tokens(marks.translate(t)), marks=marks)
    brahmic.scheme_maps(script, scheme)  # build and cache the tables now
    cache: dict[str, str] = {}  # native run -> Latin, for this romanizer (one variant) only
    return Romanizer(script, "indic-transliteration", package_version("indic-transliteration"), scheme,
                     lambda t: brahmic.romanize_runs(marks.translate(t), script, scheme, cache),
                     lambda t: brahmic.nativize_brahmic(t, script, scheme),
                     lossless=scheme in method.lossless, marks=marks)


@lru_cache(maxsize=None)
def _policy(script: str) -> MarkPolicy:
    """The script's :func:`~builder.variants.punctuation.policy` with the stand-ins real text types for
    its marks (:data:`brahmic.STAND_INS`, counted) and the number signs with a Latin form
    (:data:`brahmic.NUMBER_FORMS`, not counted)."""
    base = policy(script)
    stand_ins = tuple(brahmic.STAND_INS.get(script, {}).items())
    forms = tuple(brahmic.NUMBER_FORMS.get(script, {}).items())
    if not stand_ins and not forms:
        return base
    return MarkPolicy(script, base.marks + stand_ins, base.readings + forms)


# --- what is left ----------------------------------------------------------------------------------

_KINDS: dict[str, dict[str, int]] = {}  # script -> character -> 0 other, 1 native, 2 native symbol
_LATIN_TOO = regex.compile(r"\p{scx=Latn}")


def _kind(char: str, script: str) -> int:
    """0: not native (or also Latin), 1: a native character left, 2: a native symbol (kept)."""
    first, last = BLOCKS.get(script, (-1, -1))
    if not first <= ord(char) <= last:
        # the Script property (schemas.scripts); a code Unicode does not know is its ValueError, naming it
        own = bool(script_letters(script).match(char))
        # a shared mark (danda: Script=Common, Script_Extensions Beng Deva ...) counts, unless Latin text
        # uses it too: U+02BC MODIFIER LETTER APOSTROPHE (Assamese ভাৰতʼৰ) is Latin as much as Bengali,
        # and the Latin output keeps it as it is
        shared = not own and bool(regex.match(rf"\p{{scx={script}}}", char)) and not _LATIN_TOO.match(char)
        if not (own or shared):
            return 0
    return 2 if unicodedata.category(char).startswith("S") else 1


def native_left(text: str, script: str) -> tuple[int, int]:
    """``(left, symbols)``: characters of ``script`` in ``text`` that are not symbols, and those that are.

    Native means in the script's Unicode block, or of the script by the
    Unicode Script property (:func:`schemas.scripts.script_letters`), or a
    shared mark whose Script_Extensions name the script (the danda U+0964
    counts for Deva, Beng and the other scripts that use it) but not Latin
    too: U+02BC MODIFIER LETTER APOSTROPHE, which Assamese text uses and the
    Latin output keeps, is no Bengali character left (nor is anything the
    romanizer writes: Latin letters and Common punctuation). Symbols
    (general category S: ৳ ௹ ༕) have no Latin letters and are kept, like €
    in Latin text; they are counted apart. Characters are classified once
    per script, so a text costs one Counter pass.

    >>> native_left("namastē। ৳5", "Beng")
    (1, 1)
    >>> native_left("bhāratʼr", "Beng")
    (0, 0)
    """
    table = _KINDS.setdefault(script, {})
    left = symbols = 0
    for char, n in Counter(text).items():
        k = table.get(char)
        if k is None:
            k = table[char] = _kind(char, script)
        if k == 1:
            left += n
        elif k == 2:
            symbols += n
    return left, symbols


def _describe(chars: str) -> str:
    """``'ൻ' (U+0D7B MALAYALAM LETTER CHILLU N)`` for the first few distinct characters."""
    seen = list(dict.fromkeys(chars))[:3]
    return ", ".join(f"{c!r} (U+{ord(c):04X} {unicodedata.name(c, '?')})" for c in seen)


# --- round trip ----------------------------------------------------------------------------------

def _is_sign(c: str) -> bool:
    if not c:
        return False
    return unicodedata.category(c) in ("Mn", "Mc") or "SIGN VIRAMA" in unicodedata.name(c, "") \
        or "AL-LAKUNA" in unicodedata.name(c, "")


#: A letter that carries vowel signs, by Unicode's Indic_Syllabic_Category (UAX #44), for every script the round
#: trip reads: names misled (Devanagari's CANDRA O and SHORT E are vowels, Sinhala's ALPAPRAANA KAYANNA a consonant).
_CONSONANT = regex.compile(r"[\p{InSC=Consonant}\p{InSC=Consonant_Dead}]")


def _is_consonant(c: str) -> bool:
    return len(c) == 1 and _CONSONANT.match(c) is not None


def round_trip_reason(source: str, back: str, script: str | None = None) -> str:
    """Why a native run did not come back exactly (a short stable name).

    ``khanda_ta`` (Bengali ৎ comes back as ত্), ``om`` (ओं comes back as ॐ),
    then, given ``script``, the reason :func:`brahmic_letters.lossy_letters`
    gives a letter of the run that has no way back (``chillu``: Malayalam ൻ
    comes back as ന്; ``addak``, ``length_mark``, ``accent``, ``vowel_bearer``,
    ``same_reading``), then ``sign_after_vowel`` (a vowel sign or virama that
    follows no consonant: a typing slip, or Bengali অ্যা), otherwise ``other``.

    >>> round_trip_reason("আা", "আআ")
    'sign_after_vowel'
    >>> round_trip_reason("അവൻ", "അവന്", "Mlym")
    'chillu'
    """
    if "\u09ce" in source:
        return "khanda_ta"
    if "\u0950" in back and "\u0950" not in source:
        return "om"
    if script is not None:
        lossy = lossy_letters(script)
        for c in source:
            if c in lossy:
                return lossy[c]
    prev = ""
    for c in source:
        if _is_sign(c) and "NUKTA" not in unicodedata.name(c, ""):
            if not (_is_consonant(prev) or (prev and "NUKTA" in unicodedata.name(prev, ""))
                    or (_is_sign(prev) and unicodedata.category(c) == "Mn" and "ANUSVARA" in unicodedata.name(c))):
                return "sign_after_vowel"
        prev = c
    return "other"


def round_trip(texts, romanizer: Romanizer) -> dict:
    """Round trip of every native run of ``texts``: counts of exact runs and of failures by reason.

    Runs are cut after the punctuation policy, so a danda (written ".") is no part of any run.
    """
    if romanizer.back is None:
        return {"checked": False, "reason": f"{romanizer.tool} defines no way back to the native script"}
    run = brahmic.native_run(romanizer.script)
    joiners = regex.compile("[\u200c\u200d]")
    runs = exact = 0
    reasons: Counter = Counter()
    examples: dict[str, list] = {}
    seen: dict[str, str | None] = {}  # run -> failure reason (None: exact); words repeat a lot
    for text in texts:
        for m in run.finditer(romanizer.marks.translate(text)):
            word = m.group()
            if word not in seen:
                src = joiners.sub("", brahmic.normalize_native(word))
                latin = romanizer.romanize(word)
                back = romanizer.back(latin) if src else src
                seen[word] = None if back == src else round_trip_reason(src, back, romanizer.script)
                if seen[word] and len(examples.setdefault(seen[word], [])) < 3:
                    examples[seen[word]].append([src, latin, back])
                if not src:
                    seen[word] = ""
            reason = seen[word]
            if reason == "":
                continue
            runs += 1
            if reason is None:
                exact += 1
            else:
                reasons[reason] += 1
    return {"checked": True, "runs": runs, "exact": exact, "failures": dict(sorted(reasons.items())),
            "examples": examples, "lossless_scheme": romanizer.lossless}


# --- variant folders -----------------------------------------------------------------------------

@dataclass
class RomanizeResult:
    out_dir: Path
    rows: int
    tool: str
    version: str
    scheme: str
    leftover: int
    report: dict

    def summary(self) -> str:
        """One line for the CLI: rows, tool, what is left, which punctuation became what."""
        parts = [f"{self.rows} rows; tool {self.tool} {self.version}, scheme {self.scheme}; "
                 f"native letters left {self.leftover}"]
        kept = self.report.get("native_symbols_kept", 0)
        if kept:
            parts.append(f"native symbols kept {kept}")
        for key, label in (("punctuation_mapped", "punctuation mapped"), ("signs_removed", "signs removed")):
            seen = self.report.get(key) or {}
            if seen:
                parts.append(f"{label}: " + ", ".join(f"{name} {e['count']}" for name, e in seen.items()))
        return "; ".join(parts)


def _variant_code(folder: Path, info: VariantInfo | None) -> str:
    if info is not None and info.variant:
        return info.variant  # checked as a FLORES-200 code when read
    return check_language_code(folder.name, file=folder, field="variant folder name")


def _read_jsonl(path: Path) -> list[dict]:
    """The rows of a JSON-lines split; a BOM and CRLF are harmless, a bad byte or line is one error naming it."""
    rows = []
    for n, line in jsonl_lines(read_text_utf8(path)):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {n}") from None
    return rows


def read_variant_texts(folder: Path) -> dict[str, tuple[str, list[dict]]]:
    """``split -> (kind, rows)`` of a variant folder (``tsv`` topic rows or ``jsonl`` MC rows), checked
    against the folder's ``manifest.json`` first (:func:`schemas.manifest.verify_against_manifest`)."""
    from schemas.manifest import verify_against_manifest

    verify_against_manifest(folder)
    splits = {}
    for split in SPLIT_ORDER:
        if (folder / f"{split}.tsv").is_file():
            splits[split] = ("tsv", read_sib_tsv(folder / f"{split}.tsv"))
        elif (folder / f"{split}.jsonl").is_file():
            splits[split] = ("jsonl", _read_jsonl(folder / f"{split}.jsonl"))
    if not splits:
        raise SchemaError("no split file (train/dev/test/... .tsv or .jsonl) in the variant folder", file=folder)
    return splits


def _fields(kind: str) -> tuple[str, ...]:
    return ("text",) if kind == "tsv" else MC_TEXT_FIELDS


def romanize_variant(variant_dir: str | Path, out: str | Path, *, scheme: str | None = None,
                     allow_leftover: bool = False, check_round_trip: bool = True, license: str | None = None,
                     license_from: str | None = None, progress: Callable[[str, int, int], None] | None = None,
                     info: Callable[[str], None] | None = None) -> RomanizeResult:
    """Write ``out/<lang>_Latn/`` from the variant folder ``variant_dir``.

    Raises :class:`ScriptError` when native-script characters other than
    symbols are left (:func:`native_left`) and ``allow_leftover`` is false;
    nothing is written then. ``variant.json`` counts them per split, the
    symbols kept, and every punctuation mark mapped or sign removed by the
    script's :class:`~builder.variants.punctuation.MarkPolicy`. It also
    carries the source's credit as ``builder extend`` does
    (:func:`~builder.variants.credit.carried_credit`): ``source_name``,
    ``citation``, and ``license`` with ``license_from`` (default CC-BY-SA-4.0).
    ``license``, when given, is the fallback for a source whose ``variant.json``
    declares none (the one rule of :mod:`schemas.licensing`: a fallback never
    replaces what the source declares), recorded with ``license_from`` (who
    gave it, e.g. ``release recipe``; default :data:`LICENSE_FROM_CALLER`).
    ``progress(split, rows done, rows)`` is called after every row (a
    :meth:`builder.tasks.base.Reporter.progress` callback, which limits the
    lines it prints); ``info`` receives a line when uroman's tables are built.
    """
    _INFO.append(info)
    try:
        return _romanize_variant(variant_dir, out, scheme=scheme, allow_leftover=allow_leftover,
                                 check_round_trip=check_round_trip, license=license, license_from=license_from,
                                 progress=progress)
    finally:
        _INFO.pop()


def _romanize_variant(variant_dir, out, *, scheme, allow_leftover, check_round_trip, license, license_from,
                      progress) -> RomanizeResult:
    folder = require_path(variant_dir, what="variant folder", kind="dir")
    info = VariantInfo.read(folder)
    code = _variant_code(folder, info)
    romanizer = get_romanizer(code, scheme, where=folder)
    if romanizer.tool == "uroman":
        _uroman().reset_cache(65536)  # uroman's token cache, fresh for every variant
    splits = read_variant_texts(folder)
    new_code = code.split("_")[0] + "_Latn"
    script = romanizer.script
    out_rows: dict[str, list[dict]] = {}
    leftover: dict[str, int] = {}
    symbols = 0
    marks: Counter = Counter()
    first_left = None
    natives = []
    total, done = sum(len(rows) for _kind, rows in splits.values()), 0
    for split, (kind, rows) in splits.items():
        new_rows, left = [], 0
        for n, row in enumerate(rows):
            done += 1
            new = dict(row)
            for f in _fields(kind):
                if isinstance(row.get(f), str):
                    natives.append(row[f])
                    romanizer.marks.count(row[f], marks)
                    new[f] = romanizer.romanize(row[f])
                    k, sym = native_left(new[f], script)
                    if k and first_left is None:
                        first_left = (split, n, f, new[f])
                    left += k
                    symbols += sym
            if kind == "jsonl" and "language" in new:
                new["language"] = new_code
            new_rows.append(new)
            if progress is not None:
                progress(split, done, total)
        out_rows[split] = new_rows
        leftover[split] = left
    total_left = sum(leftover.values())
    if total_left and not allow_leftover:
        split, n, f, text = first_left
        kind = splits[split][0]
        where = f"line {n + 2}" if kind == "tsv" else f"line {n + 1}"
        left_chars = "".join(c for c in text if native_left(c, script)[0])
        raise ScriptError(f"{total_left} {script} letters left after romanizing with {romanizer.tool} "
                          f"(scheme {romanizer.scheme}), expected none; first: {_describe(left_chars)} in field "
                          f"{f} (use --allow-leftover to write it anyway)", file=folder / f"{split}.{kind}",
                          record=where)
    sample = natives[:50]
    if romanizer.tool == "uroman":
        _uroman().reset_cache(0)
    fresh = get_romanizer(code, scheme)  # a second romanizer with its own (empty) cache
    deterministic = [romanizer.romanize(t) for t in sample] == [fresh.romanize(t) for t in sample]
    rt = round_trip(natives, romanizer) if check_round_trip else {"checked": False, "reason": "skipped"}
    # source name, citation, license and license_from, as extend
    credit = carried_credit(folder, license, license_from=license_from or LICENSE_FROM_CALLER)
    report = {
        "variant": new_code,
        "source_variant": code,
        "source": recorded_path(variant_dir),
        "source_files": {s: sha256_file(folder / f"{s}.{k}") for s, (k, _) in splits.items()},
        "method": "romanization",
        "tool": romanizer.tool,
        "version": romanizer.version,
        "scheme": romanizer.scheme,
        "native_letters_left": total_left,
        "native_letters_left_by_split": leftover,
        "native_symbols_kept": symbols,
        **romanizer.marks.report(marks),
        "deterministic": deterministic,
        "round_trip": rt,
        "rows": {s: len(r) for s, r in out_rows.items()},
        **{k: v for k, v in credit.to_dict().items() if k != "source_variant"},
    }
    target = Path(out) / new_code
    with staging_dir(target, marker=VARIANT_JSON, what="variant") as stage:
        for split, rows in out_rows.items():
            if splits[split][0] == "tsv":
                write_sib_tsv(stage / f"{split}.tsv", rows)
            else:
                write_jsonl_atomic(stage / f"{split}.jsonl", rows)
        if (folder / "labels.txt").is_file():
            labels = split_lines(read_text_utf8(folder / "labels.txt"))  # a BOM or CRLF is not copied
            write_text_atomic(stage / "labels.txt", "".join(f"{label}\n" for label in labels))
        VariantInfo.from_dict(report).write(stage)
    return RomanizeResult(target, sum(len(r) for r in out_rows.values()), romanizer.tool, romanizer.version,
                          romanizer.scheme, total_left, report)
