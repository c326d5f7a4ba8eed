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
#: Guards for sacremoses rules, written by hand for sacremoses 0.2.x (pinned in pyproject.toml):
#: a guard skips a regex pass on text where the rule cannot match. TOKENIZER_GUARDS maps the
#: MosesTokenizer rules that ``tokenize(text, escape=False)`` applies on every call to
#: [(pattern, guard)], the pattern with {alpha}/{isn} standing for MosesTokenizer.IsAlpha/IsN and
#: the guard a literal every match contains or (char, offset, width): every match is ``width``
#: characters with ``char`` at ``offset``. NORMALIZER_GUARDS maps MosesPunctNormalizer
#: substitution patterns to a literal every match contains. A rule is guarded only where the
#: installed pattern is exactly the one here; any other runs unguarded (the same output, slower).
#: To update for a new sacremoses: copy each changed pattern here, work out by reading it what
#: every match must contain, and run tests/qc/test_qc_token_guards.py (it fails on a pattern
#: that is not installed and checks every guard on generated text); then move the pin.
TOKENIZER_GUARDS = {
    "MULTIDOT_RUN": [(r"\.{2,}", ".")],
    "COMMA_SEPARATE_1": [(r"([^{isn}])[,]", (",", 1, 2))],
    "COMMA_SEPARATE_2": [(r"[,]([^{isn}])", (",", 0, 2))],
    "COMMA_SEPARATE_3": [(r"([{isn}])[,]$", ",")],
    "ENGLISH_SPECIFIC_APOSTROPHE": [
        (r"([^{alpha}])[']([^{alpha}])", ("'", 1, 3)),
        (r"([^{alpha}{isn}])[']([{alpha}])", ("'", 1, 3)),
        (r"([{alpha}])[']([^{alpha}])", ("'", 1, 3)),
        (r"([{alpha}])[']([{alpha}])", ("'", 1, 3)),
        (r"([{isn}])[']([s])", ("'", 1, 3)),
    ],
    "FR_IT_SPECIFIC_APOSTROPHE": [
        (r"([^{alpha}])[']([^{alpha}])", ("'", 1, 3)),
        (r"([^{alpha}])[']([{alpha}])", ("'", 1, 3)),
        (r"([{alpha}])[']([^{alpha}])", ("'", 1, 3)),
        (r"([{alpha}])[']([{alpha}])", ("'", 1, 3)),
    ],
    "NON_SPECIFIC_APOSTROPHE": [(r"\'", ("'", 0, 1))],
    "TRAILING_DOT_APOSTROPHE": [(r"\.' ?$", ".'")],
    "MULTIDOT_MARKER": [(r"(?:DOT)+MULTI", "MULTI")],
}
NORMALIZER_GUARDS = {
    "\\r": "\r", "\\(": "(", "\\)": ")", " +": " ", "\\) ([.!:?;,])": ") ", "\\( ": "( ", " \\)": " )",
    "(\\d) %": " %", " :": " :", " ;": " ;", "`": "`", "''": "''", "„": "„", "“": "“", "”": "”",
    "–": "–", "—": "—", "´": "´", "([a-zA-Z])‘([a-zA-Z])": "‘", "([a-zA-Z])’([a-zA-Z])": "’",
    "‘": "‘", "‚": "‚", "’": "’", "´´": "´´", "…": "…", "\xa0«\xa0": "\xa0«\xa0", "«\xa0": "«\xa0",
    "«": "«", "\xa0»\xa0": "\xa0»\xa0", "\xa0»": "\xa0»", "»": "»", "\xa0%": "\xa0%", "nº\xa0": "nº\xa0",
    "\xa0:": "\xa0:", "\xa0ºC": "\xa0ºC", "\xa0cm": "\xa0cm", "\xa0\\?": "\xa0?", "\xa0\\!": "\xa0!",
    "\xa0;": "\xa0;", ",\xa0": ",\xa0", "(\\d)\xa0(\\d)": "\xa0", ',"': ',"', '(\\.+)"(\\s*[^<])': '"',
    '"([,.]+)': '"',
}


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
    for name, table in TOKENIZER_GUARDS.items():  # skip a regex pass where it cannot match
        if hasattr(tok, name):  # the class's IsAlpha: the CJK languages extend only the instance's
            guards = {t.replace("{alpha}", MosesTokenizer.IsAlpha).replace("{isn}", MosesTokenizer.IsN): g
                      for t, g in table}
            setattr(tok, name, _guard_rules(getattr(tok, name), guards))
    if tok.DEDUPLICATE_SPACE[0].pattern == r"\s+" and tok.DEDUPLICATE_SPACE[1] == " ":
        # the same result without replacing every single space by a space
        tok.DEDUPLICATE_SPACE = (re.compile(r"[^\S ]\s*| \s+"), " ")
    norm = MosesPunctNormalizer(lang=lang)
    if not (norm.pre_replace_unicode_punct or norm.post_remove_control_chars):
        norm.normalize = _guarded_normalize(norm.substitutions)
    return norm, tok


class _Guarded:
    """A compiled pattern whose ``sub`` returns the text unchanged when ``need`` is not in it."""

    __slots__ = ("pattern", "need")

    def __init__(self, pattern: re.Pattern, need: str):
        self.pattern, self.need = pattern, need

    def sub(self, repl, text, count=0):
        return self.pattern.sub(repl, text, count) if self.need in text else text


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


def _guard_rules(value, guards: dict):
    """A MosesTokenizer rule attribute (a pattern, a (pattern, repl) pair or a list of pairs), guarded.

    ``guards`` maps pattern texts to their guard; a pattern not in it, or
    compiled with flags beyond the default ``re.UNICODE``, is left as it is.
    """
    if isinstance(value, list):
        return [_guard_rules(v, guards) for v in value]
    if isinstance(value, tuple) and len(value) == 2:
        return (_guard_rules(value[0], guards), value[1])
    guard = guards.get(value.pattern) if isinstance(value, re.Pattern) and value.flags == re.UNICODE else None
    if guard is None:
        return value
    return _Windowed(value, guard) if isinstance(guard, tuple) else _Guarded(value, guard)


def _guarded_normalize(substitutions):
    """``MosesPunctNormalizer.normalize`` (no pre/post options) with the same output, fewer passes.

    sacremoses applies each ``(pattern, replacement)`` with ``re.sub`` to the
    whole text. Here a pass is skipped when the text lacks the literal
    :data:`NORMALIZER_GUARDS` gives for its pattern, and ``" +" -> " "`` only
    rewrites runs of two or more spaces (a single space would be replaced by
    itself). ``normalize.rules`` holds ``(pattern, replacement, literal or None)``.
    """
    rules = []
    for pattern, repl in substitutions:
        if pattern == " +" and repl == " ":
            rules.append((re.compile("  +"), repl, "  "))
        else:
            rules.append((re.compile(pattern), repl, NORMALIZER_GUARDS.get(pattern)))

    def normalize(text):
        text = str(text)
        for regexp, repl, need in rules:
            if need is None or need in text:
                text = regexp.sub(repl, text)
        return text.strip()

    normalize.rules = rules
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


def prepare(language: str | None) -> None:
    """Build the tokenizer of ``language`` now: its regexes take seconds to compile, once per process (a
    parent builds them before forking workers, which inherit them)."""
    _moses(moses_language(language))


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
