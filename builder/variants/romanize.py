"""Latin-script variants of a variant folder (``builder romanize``): hin_Deva -> hin_Latn.

Brahmic scripts go through :mod:`builder.variants.brahmic` (indic-transliteration,
default ISO 15919); Perso-Arabic script (Urdu) through ``uroman``, which runs
offline, leaves no Arabic letters on the shipped Urdu sample and is MIT-style
licensed (see docs/variants.md for the comparison with aksharamukha). Every
run checks that no native-script letter is left (counted), that a second pass
gives the same text, and, for Brahmic scripts, how many native runs come back
exactly from the Latin text, with the reason of each that does not.

>>> get_romanizer("hin_Deva").romanize("नमस्ते")
'namastē'
"""
from __future__ import annotations

import json
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version as _version
from pathlib import Path
from typing import Callable

import regex

from schemas.io import read_sib_tsv, require_path, sha256_file, staging_dir, write_sib_tsv
from schemas.io import write_jsonl_atomic, write_text_atomic
from schemas.errors import ScriptError, SchemaError, UsageError
from schemas.codes import check_language_code
from schemas.splits import SPLIT_ORDER
from schemas.variant import VARIANT_JSON, VariantInfo
from schemas.scripts import count_letters, script_of

from . import brahmic

#: Text fields romanized in multiple-choice (JSONL) splits.
MC_TEXT_FIELDS = ("passage", "question", "answer1", "answer2", "answer3", "answer4", "correct_answer")
URDU_SCHEME = "uroman"


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


@lru_cache(maxsize=1)
def _uroman():
    import uroman  # imported lazily: loading its tables takes seconds

    return uroman.Uroman()


def _romanize_uroman(text: str, lcode: str) -> str:
    return unicodedata.normalize("NFC", _uroman().romanize_string(text, lcode=lcode))


def get_romanizer(code: str, scheme: str | None = None) -> Romanizer:
    """The romanizer for variant ``code`` (``hin_Deva``) and ``scheme`` (None: the default)."""
    script = script_of(code)
    if script in brahmic.BRAHMIC_SCRIPTS:
        scheme = scheme or brahmic.DEFAULT_SCHEME
        if scheme not in brahmic.SCHEMES:
            raise UsageError(f"unknown scheme {scheme!r} for script {script}; allowed: {', '.join(brahmic.SCHEMES)}")
        brahmic.scheme_maps(script, scheme)  # build and cache the tables now
        cache: dict[str, str] = {}  # native run -> Latin, for this romanizer (one variant) only
        return Romanizer(script, "indic-transliteration", _version("indic-transliteration"), scheme,
                         lambda t: brahmic.romanize_runs(t, script, scheme, cache),
                         lambda t: brahmic.nativize_brahmic(t, script, scheme),
                         lossless=scheme == "iso")
    if script == "Arab":
        scheme = scheme or URDU_SCHEME
        if scheme != URDU_SCHEME:
            raise UsageError(f"unknown scheme {scheme!r} for script Arab; allowed: {URDU_SCHEME}")
        lcode = code.split("_")[0]
        return Romanizer(script, "uroman", _version("uroman"), scheme, lambda t: _romanize_uroman(t, lcode))
    allowed = sorted(brahmic.BRAHMIC_SCRIPTS) + ["Arab"]
    raise UsageError(f"no romanizer for script {script} of {code}; supported scripts: {', '.join(allowed)}")


# --- round trip ----------------------------------------------------------------------------------

def _is_sign(c: str) -> bool:
    if not c:
        return False
    return unicodedata.category(c) in ("Mn", "Mc") or "SIGN VIRAMA" in unicodedata.name(c, "") \
        or "AL-LAKUNA" in unicodedata.name(c, "")


def _is_consonant(c: str) -> bool:
    if not c:
        return False
    name = unicodedata.name(c, "")
    return unicodedata.category(c) == "Lo" and " LETTER " in name and not any(
        v in name for v in (" LETTER A", " LETTER I", " LETTER U", " LETTER E", " LETTER O", " LETTER VOCALIC",
                            " LETTER AYANNA", " LETTER AAYANNA", " LETTER AEYANNA", " LETTER AEEYANNA",
                            " LETTER IYANNA", " LETTER IIYANNA", " LETTER UYANNA", " LETTER UUYANNA",
                            " LETTER EYANNA", " LETTER EEYANNA", " LETTER AIYANNA", " LETTER OYANNA",
                            " LETTER OOYANNA", " LETTER AUYANNA", " LETTER IRUYANNA", " LETTER ILUYANNA"))


def round_trip_reason(source: str, back: str) -> str:
    """Why a native run did not come back exactly (a short stable name).

    ``khanda_ta`` (Bengali ৎ comes back as ত্), ``om`` (ओं comes back as ॐ),
    ``sign_after_vowel`` (a vowel sign or virama that follows no consonant:
    a typing slip, or Bengali অ্যা), otherwise ``other``.

    >>> round_trip_reason("আা", "আআ")
    'sign_after_vowel'
    """
    if "\u09ce" in source:
        return "khanda_ta"
    if "\u0950" in back and "\u0950" not in source:
        return "om"
    prev = ""
    for c in source:
        if _is_sign(c) and "NUKTA" not in unicodedata.name(c, ""):
            if not (_is_consonant(prev) or (prev and "NUKTA" in unicodedata.name(prev, ""))
                    or (_is_sign(prev) and unicodedata.category(c) == "Mn" and "ANUSVARA" in unicodedata.name(c))):
                return "sign_after_vowel"
        prev = c
    return "other"


def round_trip(texts, romanizer: Romanizer) -> dict:
    """Round trip of every native run of ``texts``: counts of exact runs and of failures by reason."""
    if romanizer.back is None:
        return {"checked": False, "reason": f"{romanizer.tool} defines no way back to the native script"}
    run = brahmic.native_run(romanizer.script)
    joiners = regex.compile("[\u200c\u200d]")
    runs = exact = 0
    reasons: Counter = Counter()
    examples: dict[str, list] = {}
    seen: dict[str, str | None] = {}  # run -> failure reason (None: exact); words repeat a lot
    for text in texts:
        for m in run.finditer(text):
            word = m.group()
            if word not in seen:
                src = joiners.sub("", brahmic.normalize_native(word))
                latin = romanizer.romanize(word)
                back = romanizer.back(latin) if src else src
                seen[word] = None if back == src else round_trip_reason(src, back)
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


def _variant_code(folder: Path, info: VariantInfo | None) -> str:
    if info is not None and info.variant:
        return info.variant  # checked as a FLORES-200 code when read
    return check_language_code(folder.name, file=folder, field="variant folder name")


def _source_license(info: VariantInfo | None) -> tuple[str, str]:
    if info is not None and info.license:
        return info.license, "source variant.json"
    return "CC-BY-SA-4.0", "default (SIB-200/FLORES-200 are CC BY-SA 4.0)"


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise SchemaError(f"malformed JSON: {err.msg}", file=path, record=f"line {n}") from None
    return rows


def read_variant_texts(folder: Path) -> dict[str, tuple[str, list[dict]]]:
    """``split -> (kind, rows)`` of a variant folder (``tsv`` topic rows or ``jsonl`` MC rows)."""
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
                     allow_leftover: bool = False, check_round_trip: bool = True) -> RomanizeResult:
    """Write ``out/<lang>_Latn/`` from the variant folder ``variant_dir``.

    Raises :class:`ScriptError` when native-script letters are left and
    ``allow_leftover`` is false; nothing is written then.
    """
    folder = require_path(variant_dir, what="variant folder", kind="dir")
    info = VariantInfo.read(folder)
    code = _variant_code(folder, info)
    romanizer = get_romanizer(code, scheme)
    if romanizer.tool == "uroman":
        _uroman().reset_cache(65536)  # uroman's token cache, fresh for every variant
    splits = read_variant_texts(folder)
    new_code = code.split("_")[0] + "_Latn"
    out_rows: dict[str, list[dict]] = {}
    leftover: dict[str, int] = {}
    first_left = None
    natives = []
    for split, (kind, rows) in splits.items():
        new_rows, left = [], 0
        for n, row in enumerate(rows):
            new = dict(row)
            for f in _fields(kind):
                if isinstance(row.get(f), str):
                    natives.append(row[f])
                    new[f] = romanizer.romanize(row[f])
                    k = count_letters(new[f], romanizer.script)[1]
                    if k and first_left is None:
                        first_left = (split, n, f, new[f])
                    left += k
            if kind == "jsonl" and "language" in new:
                new["language"] = new_code
            new_rows.append(new)
        out_rows[split] = new_rows
        leftover[split] = left
    total_left = sum(leftover.values())
    if total_left and not allow_leftover:
        split, n, f, text = first_left
        kind = splits[split][0]
        where = f"line {n + 2}" if kind == "tsv" else f"line {n + 1}"
        letters = "".join(c for c in text if count_letters(c, romanizer.script)[1])
        raise ScriptError(f"{total_left} {romanizer.script} letters left after romanizing with {romanizer.tool} "
                          f"(scheme {romanizer.scheme}), expected none; first: {letters[:10]!r} in field {f} "
                          "(use --allow-leftover to write it anyway)", file=folder / f"{split}.{kind}",
                          record=where)
    sample = natives[:50]
    if romanizer.tool == "uroman":
        _uroman().reset_cache(0)
    fresh = get_romanizer(code, scheme)  # a second romanizer with its own (empty) cache
    deterministic = [romanizer.romanize(t) for t in sample] == [fresh.romanize(t) for t in sample]
    rt = round_trip(natives, romanizer) if check_round_trip else {"checked": False, "reason": "skipped"}
    license_id, license_from = _source_license(info)
    report = {
        "variant": new_code,
        "source_variant": code,
        "source": str(variant_dir),
        "source_files": {s: sha256_file(folder / f"{s}.{k}") for s, (k, _) in splits.items()},
        "method": "romanization",
        "tool": romanizer.tool,
        "version": romanizer.version,
        "scheme": romanizer.scheme,
        "native_letters_left": total_left,
        "native_letters_left_by_split": leftover,
        "deterministic": deterministic,
        "round_trip": rt,
        "rows": {s: len(r) for s, r in out_rows.items()},
        "license": license_id,
        "license_from": license_from,
    }
    target = Path(out) / new_code
    with staging_dir(target, marker=VARIANT_JSON, what="variant") as stage:
        for split, rows in out_rows.items():
            if splits[split][0] == "tsv":
                write_sib_tsv(stage / f"{split}.tsv", rows)
            else:
                write_jsonl_atomic(stage / f"{split}.jsonl", rows)
        if (folder / "labels.txt").is_file():
            write_text_atomic(stage / "labels.txt", (folder / "labels.txt").read_text(encoding="utf-8"))
        VariantInfo.from_dict(report).write(stage)
    return RomanizeResult(target, sum(len(r) for r in out_rows.values()), romanizer.tool, romanizer.version,
                          romanizer.scheme, total_left, report)
