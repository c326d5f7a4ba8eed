"""Shell blocks of README.md and docs/*.md, read the way a user reads them (issue 24).

A page's runnable blocks are its fenced ``bash``, ``sh``, ``shell`` and ``console`` blocks. In a
``console`` block (or any block that uses ``$ `` prompts) only the prompted lines and their
continuations are commands; the rest is output. Elsewhere every line is a command, ``\\`` joins
physical lines into one logical command, and ``#`` starts a comment as in bash.

What the docs say to the test, visibly, in the Markdown source:

* ``# exit N`` as the trailing comment of a command (e.g. ``builder qc out/train  # exit 1: ...``):
  that command exits with N, not 0.
* ``<!-- docs-test: exit N -->`` right before a block: the block as a whole exits with N.
* ``<!-- docs-test: skip (REASON) -->`` right before a block: the block is not run.
* ``<!-- docs-test: skip "PREFIX" (REASON) -->`` right before a block: the commands (or ``&&``
  parts of a command) that start with PREFIX are not run; the rest of the block is.
* ``<!-- docs-test: needs MODULE (EXTRA) -->`` right before a block: it runs a tool of an optional
  extra (``lm_eval``); where MODULE is not installed the block is left out and the page's test
  ends as skipped, naming it, after the page's other blocks ran.

Everything skipped is listed with its reason (``Block.skipped``), so nothing is skipped silently.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

SHELL_LANGS = {"bash", "sh", "shell", "console", "shell-session", "zsh"}
# words that start a command in a block; an unlabelled block that starts a line with one of them is
# a shell block missing its label (the test asks for ```bash, or ```text for a synopsis)
COMMAND_WORDS = ("builder ", "python ", "pip ", "mutmut ", "lm_eval ", "ray ", "kubectl ", "cd ", "mkdir ")

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<body>.*?)\s*-->\s*$")
_SKIP = re.compile(r'^skip\s*(?:"(?P<prefix>[^"]+)"\s*)?\((?P<reason>[^)]+)\)$')
_EXIT = re.compile(r"^exit\s+(?P<code>\d+)$")
_NEEDS = re.compile(r"^needs\s+(?P<module>[A-Za-z_][\w.]*)(?:\s*\((?P<why>[^)]+)\))?$")
_EXIT_COMMENT = re.compile(r"(?:^|\s)#\s*exit\s+(?P<code>\d+)\b")


@dataclass
class Command:
    line: int  # 1-based line in the page of the command's first physical line
    lines: list[str]  # its physical lines, as written (prompt removed)
    expect: int = 0

    @property
    def text(self) -> str:
        return " ".join(part.rstrip("\\").strip() for part in self.lines)


@dataclass
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    body: list[str]
    body_line: int  # 1-based line of the body's first line
    expect: int = 0
    skip_reason: str | None = None
    skip_prefixes: list[tuple[str, str]] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)  # Python modules of an optional extra the block runs
    skipped: list[tuple[int, str, str]] = field(default_factory=list)  # (line, command, reason)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def first(self) -> str:
        """The block's first command line, without its comment (how the test names a skipped block)."""
        return next((c for c in (strip_comment(l) for l in self.body) if c), "")


def fenced_blocks(text: str, page: str) -> list[Block]:
    """Every fenced block of the page (any language), with the docs-test directives before it."""
    lines = text.split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent").expandtabs())
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = lines[i].strip()
            if close.startswith(fence[0] * len(fence)) and close.strip(fence[0]) == "":
                break
            line = lines[i]
            # strip the fence's indentation (a block inside a list item)
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            i += 1
        block = Block(page, start + 1, m.group("info").lower(), body, start + 2)
        # directives: the HTML comments right before the fence (blank lines between are allowed)
        j = start - 1
        while j >= 0 and (not lines[j].strip() or _DIRECTIVE.match(lines[j])):
            d = _DIRECTIVE.match(lines[j])
            if d:
                _apply(block, d.group("body"), j + 1)
            j -= 1
        blocks.append(block)
        i += 1
    return blocks


def _apply(block: Block, body: str, line: int) -> None:
    if m := _SKIP.match(body):
        if m.group("prefix"):
            block.skip_prefixes.append((m.group("prefix"), m.group("reason").strip()))
        else:
            block.skip_reason = m.group("reason").strip()
        return
    if m := _EXIT.match(body):
        block.expect = int(m.group("code"))
        return
    if m := _NEEDS.match(body):
        block.needs.append(m.group("module"))
        return
    raise ValueError(f"{block.page}:{line}: unknown docs-test directive {body!r}")


def shell_blocks(text: str, page: str) -> list[Block]:
    return [b for b in fenced_blocks(text, page) if b.lang in SHELL_LANGS]


def unlabelled_command_blocks(text: str, page: str) -> list[Block]:
    """Fenced blocks without a language whose lines start commands: shell blocks that hide."""
    return [
        b
        for b in fenced_blocks(text, page)
        if b.lang == "" and any(l.lstrip().startswith(COMMAND_WORDS) for l in b.body)
    ]


def strip_comment(line: str) -> str:
    cut = _comment_start(line)
    return (line if cut is None else line[:cut]).strip()


def _comment_start(line: str) -> int | None:
    """Index of the '#' that starts a bash comment on the line, or None (quotes respected)."""
    quote = None
    prev = " "
    k = 0
    while k < len(line):
        c = line[k]
        if quote:
            if c == "\\" and quote == '"':
                k += 2
                prev = "x"
                continue
            if c == quote:
                quote = None
        elif c == "\\":
            k += 2
            prev = "x"
            continue
        elif c in "'\"":
            quote = c
        elif c == "#" and prev in " \t;|&(":
            return k
        prev = c
        k += 1
    return None


def commands(block: Block) -> list[Command]:
    """The block's logical commands (prompted lines in a console block)."""
    prompted = block.lang in {"console", "shell-session"} or any(l.startswith("$ ") for l in block.body)
    out: list[Command] = []
    k = 0
    while k < len(block.body):
        raw = block.body[k]
        if prompted:
            if not raw.startswith("$ "):
                k += 1
                continue
            raw = raw[2:]
        cmd = Command(block.body_line + k, [raw])
        while _continues(cmd.lines[-1]) and k + 1 < len(block.body):
            k += 1
            cmd.lines.append(block.body[k])
        last = cmd.lines[-1]
        cut = _comment_start(last)
        if cut and last[:cut].strip() and (m := _EXIT_COMMENT.match(last[cut - 1 :])):
            cmd.expect = int(m.group("code"))
        out.append(cmd)
        k += 1
    return out


def _continues(line: str) -> bool:
    cut = _comment_start(line)
    code = line if cut is None else line[:cut]
    return code.rstrip().endswith("\\") and cut is None


def script(block: Block) -> tuple[str, int]:
    """The block as a bash script, and the number of prelude lines before the block's own.

    Script line ``prelude + n`` is the block's command line ``n``, so bash's $LINENO names the
    page's line. Skipped commands become ':' lines (the line numbers stay); a command with
    ``# exit N`` runs as ``rc=0; CMD || rc=$?; expect N rc``.
    """
    prelude = [
        "set -eo pipefail",
        "__docs_expect() {",
        '  if [ "$2" -ne "$1" ]; then echo "__docs_test__: line $3: expected exit $1, got $2" >&2; exit 97; fi',
        "}",
        "trap '__rc=$?; echo \"__docs_test__: line $(( LINENO + __docs_base )) exited $__rc\" >&2' ERR",
    ]
    prelude.insert(0, f"__docs_base={block.body_line - 1 - (len(prelude) + 1)}")
    body = [""] * len(block.body)
    for cmd in commands(block):
        first = cmd.line - block.body_line
        lines = list(cmd.lines)
        lines = _drop_skipped(block, cmd, lines)
        if lines is None:
            for n in range(len(cmd.lines)):
                body[first + n] = ":"
            continue
        if cmd.expect:
            lines[0] = "__rc=0; " + lines[0]
            cut = _comment_start(lines[-1])
            code = lines[-1] if cut is None else lines[-1][:cut]
            lines[-1] = code.rstrip() + f" || __rc=$?; __docs_expect {cmd.expect} $__rc {cmd.line}"
        for n, line in enumerate(lines):
            body[first + n] = line
    return "\n".join(prelude + body) + "\n", len(prelude)


def _drop_skipped(block: Block, cmd: Command, lines: list[str]) -> list[str] | None:
    """Remove the `&&` parts of a command that the block's skip prefixes name; None: all of it."""
    if not block.skip_prefixes:
        return lines
    text = cmd.text
    for prefix, reason in block.skip_prefixes:
        if text.startswith(prefix):
            if len(lines) == 1 and " && " in lines[0]:
                parts = lines[0].split(" && ")
                kept = [p for p in parts if not p.strip().startswith(prefix)]
                for p in parts:
                    if p.strip().startswith(prefix):
                        block.skipped.append((cmd.line, strip_comment(p), reason))
                if kept:
                    # keep the column positions readable; the line number is what matters
                    return [" && ".join(kept)]
                return None
            block.skipped.append((cmd.line, strip_comment(text), reason))
            return None
    return lines


def page_blocks(root: Path, page: str) -> list[Block]:
    return shell_blocks((root / page).read_text(encoding="utf-8"), page)


def pages(root: Path) -> list[str]:
    return ["README.md"] + sorted(p.relative_to(root).as_posix() for p in (root / "docs").glob("*.md"))


def split_words(command: str) -> list[str]:
    return shlex.split(command, comments=True)
