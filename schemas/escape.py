"""Data-derived text made inert for each place it is written: terminal, GitHub Actions, XML, Markdown, HTML.

Variant names, labels, annotator names, licenses and citations come from
files that strangers wrote. Whatever reaches a format another program reads
passes the one function for that format here, so the hostile string arrives
as the same text and never as syntax. (YAML is written with ``yaml.safe_dump``
and JSON with :func:`json.dumps`; both serializers quote what they must.)

>>> for_terminal("nqo\\x1b]0;owned\\x07_Nkoo")
'nqo\\\\x1b]0;owned\\\\x07_Nkoo'
>>> for_actions("50% done\\n::warning::x")
'50%25 done%0A::warning::x'
>>> md_inline("<script>x</script> [a](javascript:b)")
'&lt;script&gt;x&lt;/script&gt; \\\\[a\\\\](javascript:b)'
"""
from __future__ import annotations

import html
import re
import unicodedata

#: Unicode categories that move the cursor, change the terminal or the direction of text, or end a line;
#: and lone surrogates (``Cs``: a file name of undecodable bytes), which no UTF-8 stream can even write.
_CONTROL = ("Cc", "Cf", "Cs", "Zl", "Zp")
#: The legacy workflow command ``##[command]``: GitHub's runner finds it anywhere in a line, not only at its start.
_ACTIONS_V1 = re.compile(r"##\[")
#: A line that starts (after blanks, which the runner trims) with ``::`` is a workflow command.
_ACTIONS_V2 = re.compile(r"^(\s*):(?=:)")
_XML_OK = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _visible(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text, *, keep_newlines: bool = False) -> str:
    """``text`` with every control, format and line-separator character written as a visible escape.

    An escape sequence (window title, clear screen, colours), a CR that hides
    what came before, a bidi override that reorders what is shown or a newline
    that starts a forged line: all become ``\\xNN`` / ``\\uNNNN``. A tab stays;
    with ``keep_newlines`` so does ``\\n`` (for a multi-line report).
    """
    text = str(text)
    # isprintable() is False for every category of _CONTROL (and a few more: Zs but space, Co, Cn), so a
    # printable text is returned at C speed; the rest is scanned character by character
    if text.isprintable() or not any(unicodedata.category(ch) in _CONTROL for ch in text):
        return text
    return "".join(ch if ch == "\t" or (keep_newlines and ch == "\n")
                   or unicodedata.category(ch) not in _CONTROL else _visible(ch) for ch in text)


def for_actions(text) -> str:
    """A GitHub Actions workflow-command value: ``%``, CR and LF escaped as the runner unescapes them.

    Also what every line the tool prints in CI passes (:func:`printed_line`),
    so data cannot start a line that Actions executes as ``::command::``.
    """
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def for_actions_property(text) -> str:
    """A workflow-command property value (``file=``, ``title=``): also ``:`` and ``,``."""
    return for_actions(text).replace(":", "%3A").replace(",", "%2C")


def printed_line(text, *, ci: bool = False) -> str:
    """One line as the tool prints it: under GitHub Actions (``ci``) ``%``/CR/LF escaped first, then every
    control character made visible. A line printed by the tool can never be two lines.

    Under ``ci`` the line is never a workflow command either: a leading ``::`` and a ``##[`` anywhere (the
    runner's legacy form) get their first ``:`` or ``[`` written as a visible escape. The tool's own
    commands (the qc annotations) are escaped by their writer and printed without this function.

    >>> printed_line("::warning::x", ci=True), printed_line("see ##[error]x", ci=True)
    ('\\\\x3a:warning::x', 'see ##\\\\x5berror]x')
    """
    text = str(text)
    if ci:
        text = for_actions(text)
    text = for_terminal(text)
    if ci:
        text = _ACTIONS_V2.sub(lambda m: m.group(1) + "\\x3a", _ACTIONS_V1.sub(lambda m: "##\\x5b", text))
    return text


def for_xml(text) -> str:
    """``text`` without the characters XML 1.0 cannot hold (ESC, BEL, NUL, lone surrogates...), each written
    as a visible escape. ``<`` and ``&`` are left to the XML serializer, which escapes them.

    >>> for_xml("ok\\x1b[2J\\x07")
    'ok\\\\x1b[2J\\\\x07'
    """
    return _XML_OK.sub(lambda m: _visible(m.group()), str(text))


#: Escaped anywhere: what opens code, links, images, raw HTML, entities and table cells. Emphasis
#: (``*``, ``_``, ``~``) is no injection and stays, so ``eng_Latn`` reads the same raw and rendered.
_MD_SPECIAL = re.compile(r"([\\`\[\]|<>&!])")
#: Escaped at the start: what starts a heading, quote, list, thematic break, setext underline or fence.
#: An ordered-list marker (up to 9 digits, then ``.`` or ``)`` and a space or the end) gets its backslash
#: before the ``.``/``)``: a backslash before a digit is no escape in CommonMark.
_MD_LINE_START = re.compile(r"^(\s*)(?:([#>+=*_~-])|(\d{1,9})([.)])(?=\s|$))")


def md_inline(text) -> str:
    """``text`` as literal text inside one Markdown line (a paragraph, a list item, a table cell).

    Line ends become spaces (a field cannot start a heading on the next line),
    ``<``, ``>``, ``&`` become entities (no raw HTML), and the characters that
    open links, images, code and table cells are backslash-escaped; a leading
    ``#``, ``>``, ``-``, ``+``, ``=``, ``*``, ``_``, ``~`` or ``1.`` is escaped
    too. Emphasis characters elsewhere are left as they are (``eng_Latn``).
    Rendered by any CommonMark renderer the text reads as it was written.

    >>> md_inline("1. x"), md_inline("2.3.82"), md_inline("* a_b"), md_inline("# h\\n- i")
    ('1\\\\. x', '2.3.82', '\\\\* a_b', '\\\\# h - i')
    """
    text = for_terminal(" ".join(str(text).splitlines()))

    def one(match: re.Match) -> str:
        ch = match.group(1)
        return {"<": "&lt;", ">": "&gt;", "&": "&amp;"}.get(ch, "\\" + ch)

    text = _MD_SPECIAL.sub(one, text)
    return _MD_LINE_START.sub(lambda m: m.group(1) + (
        "\\" + m.group(2) if m.group(2) else m.group(3) + "\\" + m.group(4)), text)


def md_code(value) -> str:
    """``value`` as a Markdown code span where :func:`md_inline` would leave it as it is (``hin_Deva``),
    else as :func:`md_inline`'s escaped text: inside a code span a backslash is no escape, so a value with
    a backtick, ``|``, ``<`` or a line break cannot be one.

    >>> print(md_code("hin_Deva"), md_code("a`b"))
    `hin_Deva` a\\`b
    """
    text = md_inline(value)
    return f"`{text}`" if text and text == str(value) else text


def md_block(text) -> str:
    """Multi-line ``text`` (a citation, a notice) as literal Markdown: each line escaped as :func:`md_inline`."""
    return "\n".join(md_inline(line) for line in str(text).splitlines())


def for_html(text) -> str:
    """``text`` as HTML text or an attribute value: ``& < > " '`` as entities, control characters visible."""
    return html.escape(for_terminal(text, keep_newlines=True), quote=True)
