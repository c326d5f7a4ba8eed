"""Moses tokenization in the item's language, batched and cached.

Overlap features and the bag-of-words probe compare *words*, so every text is
punctuation-normalised and tokenised with sacremoses (the Moses rules) in its
own language: the FLORES code's ISO 639-3 part is mapped to the ISO 639-1 code
sacremoses knows (``deu_Latn`` -> ``de``); languages it does not know use the
English rules, which for space-separated scripts only differ in apostrophes
and non-breaking prefixes.

sacremoses runs some sixty regular-expression passes per call, so a call per
short option costs far more than the text itself. :func:`tokenize_many` joins
many texts with a sentinel word and tokenises them in one call (falling back to
one call per text if the sentinel does not survive), and :class:`TokenCache`
keeps each distinct text's words, so a passage shared by several questions is
tokenised once.

>>> tokenize("Alyssa's friends (Ellen, Kristin) met.", "eng_Latn")
['Alyssa', "'s", 'friends', '(', 'Ellen', ',', 'Kristin', ')', 'met', '.']
>>> words(tokenize("Alyssa's friends (Ellen, Kristin) met.", "eng_Latn"))
['alyssa', "'s", 'friends', 'ellen', 'kristin', 'met']
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

import regex

try:  # the parser of the ``re`` module (renamed in Python 3.11)
    from re import _constants as _sre, _parser as _sre_parse
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_constants as _sre
    import sre_parse as _sre_parse

#: ISO 639-3 (and FLORES macro-language members) -> ISO 639-1 codes that
#: sacremoses has non-breaking-prefix lists or special rules for.
MOSES_LANGUAGES = {
    "asm": "as", "ben": "bn", "cat": "ca", "ces": "cs", "deu": "de", "ell": "el", "eng": "en",
    "spa": "es", "est": "et", "ekk": "et", "fin": "fi", "fra": "fr", "gle": "ga", "guj": "gu",
    "hin": "hi", "hun": "hu", "isl": "is", "ita": "it", "kan": "kn", "lit": "lt", "lav": "lv",
    "lvs": "lv", "mal": "ml", "mni": "mni", "mar": "mr", "nld": "nl", "ory": "or", "ori": "or",
    "pan": "pa", "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru", "slk": "sk", "slv": "sl",
    "swe": "sv", "tam": "ta", "tel": "te", "tdt": "tdt", "yue": "yue", "zho": "zh", "cmn": "zh",
    "jpn": "ja", "kor": "ko",
}
_SENTINEL = "QQSEPQQ"
_PUNCT_ONLY = regex.compile(r"^[\p{P}\p{S}]+$")
_BATCH = 256
_DIGITS = frozenset("0123456789")
_WORD: dict[str, str | None] = {}  # token -> its word (None for punctuation), memoised


@lru_cache(maxsize=4096)
def moses_language(language: str | None) -> str:
    """The sacremoses language for a FLORES code (``eng_Latn``) or ISO 639-1 code.

    >>> moses_language("deu_Latn"), moses_language("hau_Latn"), moses_language("fr")
    ('de', 'en', 'fr')
    """
    if not language:
        return "en"
    code = str(language).split("_", 1)[0].lower()
    if code in MOSES_LANGUAGES:
        return MOSES_LANGUAGES[code]
    if code in MOSES_LANGUAGES.values():
        return code
    return "en"


@lru_cache(maxsize=None)
def _moses(lang: str):
    from sacremoses import MosesPunctNormalizer, MosesTokenizer

    tok = MosesTokenizer(lang=lang)
    # sacremoses rebuilds set(IsLower)/set(IsAlpha), thousands of characters, on every
    # token that ends in a full stop; the same tests on sets built once are ~100x faster.
    lower, alpha = frozenset(tok.IsLower), frozenset(tok.IsAlpha)
    tok.islower = lambda text: not set(text).difference(lower)
    tok.isanyalpha = lambda text: any(set(text).intersection(alpha))
    tok.handles_nonbreaking_prefixes = _nonbreaking_prefixes(tok)
    for name, value in vars(type(tok)).items():  # skip a regex pass where it cannot match
        if name.isupper() and not name.startswith("_"):
            guarded = _guard_rules(value)
            if guarded is not value:
                setattr(tok, name, guarded)
    if tok.DEDUPLICATE_SPACE[0].pattern == r"\s+" and tok.DEDUPLICATE_SPACE[1] == " ":
        # the same result without replacing every single space by a space
        tok.DEDUPLICATE_SPACE = (re.compile(r"[^\S ]\s*| \s+"), " ")
    norm = MosesPunctNormalizer(lang=lang)
    if not (norm.pre_replace_unicode_punct or norm.post_remove_control_chars):
        norm.normalize = _guarded_normalize(norm.substitutions)
    return norm, tok


def _top_level(pattern) -> list | None:
    """The top-level items of a pattern (string or compiled), or None when it cannot be read safely.

    None for patterns that ignore case or are verbose (flag or inline ``(?i)``),
    and for anything the ``re`` parser rejects: the callers then leave the
    pattern as it is.
    """
    flags = 0
    if isinstance(pattern, re.Pattern):
        flags, pattern = pattern.flags, pattern.pattern
    if not isinstance(pattern, str) or flags & (re.IGNORECASE | re.VERBOSE):
        return None
    return _parse(pattern, flags)


@lru_cache(maxsize=None)
def _parse(pattern: str, flags: int) -> list | None:
    """:func:`_top_level` of a pattern string, parsed once (the rule classes hold thousands of characters)."""
    try:
        parsed = _sre_parse.parse(pattern, flags)
    except Exception:  # noqa: BLE001 - an unparsable pattern is just left alone
        return None
    if parsed.state.flags & (re.IGNORECASE | re.VERBOSE):  # also set inline, as (?i)
        return None
    return list(parsed)


def _required_literal(pattern) -> str | None:
    """A substring every match of ``pattern`` contains, or None when none is known.

    Reads the pattern's top level: consecutive literal characters (a literal
    repeated at least once counts once) are part of every match, unless the
    pattern alternates at its top level or ignores case. Used only to skip a
    substitution on a text that cannot match, so None is always safe.

    >>> _required_literal(r"(\\d) %"), _required_literal(r"\\.' ?$"), _required_literal(r"a|b")
    (' %', ".'", None)
    """
    items = _top_level(pattern)
    if items is None:
        return None
    best, run = "", ""
    for op, arg in items:
        if op is _sre.LITERAL:
            run += chr(arg)
            continue
        if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and arg[0] >= 1 and len(arg[2]) == 1 \
                and arg[2][0][0] is _sre.LITERAL:
            run += chr(arg[2][0][1])
        best, run = max(best, run, key=len), ""
    return max(best, run, key=len) or None


class _Guarded:
    """A compiled pattern whose ``sub`` returns the text unchanged when ``need`` is not in it."""

    __slots__ = ("pattern", "need")

    def __init__(self, pattern: re.Pattern, need: str):
        self.pattern, self.need = pattern, need

    def sub(self, repl, text, count=0):
        return self.pattern.sub(repl, text, count) if self.need in text else text


_ONE_CHAR = (_sre.LITERAL, _sre.NOT_LITERAL, _sre.IN, _sre.ANY)


def _window_of(pattern) -> tuple[str, int, int] | None:
    """``(char, offset, width)`` when every match is ``width`` characters with ``char`` at ``offset``.

    That holds for a pattern made only of single-character items (literals,
    classes, groups of one such item), no anchors, repeats or alternation,
    with at least one literal; the character is the first literal that is
    neither a letter, a digit nor whitespace (those are too common for the
    windows to pay): ``([^a])'([^a])`` gives ``("'", 1, 3)``.

    >>> _window_of(r"([^a])'([^a])"), _window_of(r"[,]$"), _window_of(r"a+")
    (("'", 1, 3), None, None)
    """
    items = _top_level(pattern)
    if items is None:
        return None
    anchor = None
    for i, (op, arg) in enumerate(items):
        if op is _sre.SUBPATTERN:
            if arg[1] or arg[2] or len(arg[3]) != 1:  # flags changed inside, or more than one item
                return None
            op, arg = list(arg[3])[0]
        if op not in _ONE_CHAR:
            return None
        if op is _sre.LITERAL and anchor is None and not (chr(arg).isalnum() or chr(arg).isspace()):
            anchor = (chr(arg), i)  # punctuation: rare in text, so the windows are few
    return None if anchor is None else (anchor[0], anchor[1], len(items))


class _Windowed:
    """A fixed-width pattern applied only around each occurrence of its literal character.

    Every match is ``width`` characters with ``char`` at ``offset``, so a match
    lies inside the window ``[p - offset, p - offset + width)`` of the
    occurrence ``p`` it contains. Overlapping windows are merged; text between
    windows cannot match, and a scan of a window sees exactly what the scan of
    the whole text sees there. ``sub`` therefore gives ``pattern.sub``'s result
    while the regex engine only visits the windows.
    """

    __slots__ = ("pattern", "char", "offset", "width")

    def __init__(self, pattern: re.Pattern, window: tuple[str, int, int]):
        self.pattern = pattern
        self.char, self.offset, self.width = window

    def sub(self, repl, text, count=0):
        if count:
            return self.pattern.sub(repl, text, count)
        char, k, w = self.char, self.offset, self.width
        p = text.find(char)
        if p < 0:
            return text
        n, done, parts, sub = len(text), 0, [], self.pattern.sub
        while p >= 0:
            a, b = max(p - k, 0), min(p - k + w, n)
            q = text.find(char, p + 1)
            while q >= 0 and q - k < b:  # the next window overlaps: merge
                b = min(q - k + w, n)
                q = text.find(char, q + 1)
            parts.append(text[done:a])
            parts.append(sub(repl, text[a:b]))
            done, p = b, q
        parts.append(text[done:])
        return "".join(parts)


def _guard_rules(value):
    """sacremoses' rule attributes (a pattern, a (pattern, repl) pair or a list of pairs), guarded."""
    if isinstance(value, re.Pattern):
        window = _window_of(value)
        if window is not None:
            return _Windowed(value, window)
        need = _required_literal(value)
        return _Guarded(value, need) if need else value
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], re.Pattern):
        guarded = _guard_rules(value[0])
        return value if guarded is value[0] else (guarded, value[1])
    if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
        out = [_guard_rules(v) for v in value]
        return out if any(a is not b for a, b in zip(out, value)) else value
    return value


def _guarded_normalize(substitutions):
    """``MosesPunctNormalizer.normalize`` (no pre/post options) with the same output, fewer passes.

    sacremoses applies each ``(pattern, replacement)`` with ``re.sub`` to the
    whole text. Here a pass is skipped when the text lacks a substring every
    match needs, and ``" +" -> " "`` only rewrites runs of two or more spaces
    (a single space would be replaced by itself).
    """
    rules = []
    for pattern, repl in substitutions:
        if pattern == " +" and repl == " ":
            rules.append((re.compile("  +"), repl, "  "))
        else:
            rules.append((re.compile(pattern), repl, _required_literal(pattern)))

    def normalize(text):
        text = str(text)
        for regexp, repl, need in rules:
            if need is None or need in text:
                text = regexp.sub(repl, text)
        return text.strip()

    return normalize


def _nonbreaking_prefixes(tok):
    """sacremoses' ``handles_nonbreaking_prefixes`` with the same result, without a regex per token.

    The original tests every token with ``re.search(r"^(\\S+)\\.$", token)``
    (tokens of ``str.split`` hold no whitespace, so this is "ends in a full stop
    after at least one character") and looks prefixes up in lists; here the
    lists are sets and the test is a string method. The lists stay as they are.
    """
    prefixes, numeric = frozenset(tok.NONBREAKING_PREFIXES), frozenset(tok.NUMERIC_ONLY_PREFIXES)
    islower, isanyalpha = tok.islower, tok.isanyalpha

    def handles_nonbreaking_prefixes(text):
        tokens = text.split()
        last = len(tokens) - 1
        for i, token in enumerate(tokens):
            if len(token) < 2 or token[-1] != ".":
                continue
            prefix = token[:-1]
            if (("." in prefix and isanyalpha(prefix)) or (prefix in prefixes and prefix not in numeric)
                    or (i != last and islower(tokens[i + 1][0]))):
                continue
            if prefix in numeric and i < last and tokens[i + 1][:1] in _DIGITS:
                continue
            tokens[i] = prefix + " ."
        return " ".join(tokens)

    return handles_nonbreaking_prefixes


def _one(text: str, lang: str) -> list[str]:
    norm, tok = _moses(lang)
    return tok.tokenize(norm.normalize(text), escape=False)


def _batch(texts: list[str], lang: str) -> list[list[str]] | None:
    """Tokenise ``texts`` in one call, each between two sentinel words; None if a sentinel broke."""
    joined = f"{_SENTINEL} " + f" {_SENTINEL} ".join(texts) + f" {_SENTINEL}"
    toks = _one(joined, lang)
    cuts, at = [], -1
    while True:  # positions of the sentinel tokens (list.index searches in C)
        try:
            at = toks.index(_SENTINEL, at + 1)
        except ValueError:
            break
        cuts.append(at)
    # tokens hold no spaces, so any sentinel glued to a word shows up as an extra occurrence here
    if " ".join(toks).count(_SENTINEL) != len(cuts) or len(cuts) != len(texts) + 1:
        return None
    if cuts[0] != 0 or cuts[-1] != len(toks) - 1:
        return None
    return [toks[a + 1:b] for a, b in zip(cuts[:-1], cuts[1:])]


def tokenize(text: str, language: str | None = "eng_Latn") -> list[str]:
    """Moses tokens of ``text`` after punctuation normalisation in ``language``.

    ``language`` is a FLORES code (``hin_Deva``) or an ISO 639-1 code. Case and
    punctuation tokens are kept; :func:`words` drops them. The text is
    tokenised between two sentinel words (as :func:`tokenize_many` does for
    many texts at once), so a final full stop or quote splits the same way
    whether a text is tokenised alone or in a batch.

    >>> tokenize("Il l'a vu, n'est-ce pas ?", "fra_Latn")
    ['Il', "l'", 'a', 'vu', ',', "n'", 'est-ce', 'pas', '?']
    """
    return tokenize_many([text], language)[0]


def tokenize_many(texts: Sequence[str], language: str | None = "eng_Latn") -> list[list[str]]:
    """Tokenise many texts with few sacremoses calls; the same result as :func:`tokenize` on each.

    >>> tokenize_many(["One fish.", "Two: fish!"], "eng_Latn")
    [['One', 'fish', '.'], ['Two', ':', 'fish', '!']]
    """
    lang = moses_language(language)
    out: list[list[str]] = []
    for start in range(0, len(texts), _BATCH):
        chunk = [str(t) for t in texts[start:start + _BATCH]]
        risky = [i for i, t in enumerate(chunk) if _SENTINEL in t]
        safe = [t for i, t in enumerate(chunk) if i not in set(risky)]
        parts = _batch(safe, lang) if safe else []
        if parts is None:  # a text glued to a sentinel: tokenise each text alone
            parts = [(_batch([t], lang) or [_one(t, lang)])[0] for t in safe]
        it = iter(parts)
        out.extend(_one(t, lang) if i in set(risky) else next(it) for i, t in enumerate(chunk))
    return out


def words(tokens: Iterable[str]) -> list[str]:
    """Lower-cased tokens without the ones made only of punctuation or symbols.

    >>> words(["The", "cat", ",", "sat", "."])
    ['the', 'cat', 'sat']
    """
    out = []
    for t in tokens:
        w = _WORD.get(t, False)
        if w is False:
            w = _WORD[t] = None if _PUNCT_ONLY.match(t) else t.lower()
            if len(_WORD) > 1 << 20:  # bounded memo
                _WORD.clear()
        if w is not None:
            out.append(w)
    return out


class TokenCache:
    """Words of each distinct text, per language, tokenised once.

    >>> cache = TokenCache()
    >>> cache.fill(["A cat.", "A cat."], "eng_Latn")
    >>> cache.get("A cat.", "eng_Latn"), cache.size
    (['a', 'cat'], 1)
    """

    def __init__(self) -> None:
        self._store: dict[tuple[str, str], list[str]] = {}

    @property
    def size(self) -> int:
        return len(self._store)

    def fill(self, texts: Iterable[str], language: str | None) -> None:
        """Tokenise every text of ``texts`` not yet cached (in batches)."""
        lang = moses_language(language)
        todo = list(dict.fromkeys(t for t in map(str, texts) if (lang, t) not in self._store))
        for text, toks in zip(todo, tokenize_many(todo, lang)):
            self._store[(lang, text)] = words(toks)

    def get(self, text: str, language: str | None) -> list[str]:
        """Words of ``text`` (tokenised now if it was not cached)."""
        key = (moses_language(language), str(text))
        if key not in self._store:
            self.fill([key[1]], key[0])
        return self._store[key]
