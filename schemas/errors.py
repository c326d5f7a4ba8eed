"""One error family for the whole toolkit.

Every error the toolkit raises on purpose derives from :class:`ToolkitError`.
Subclasses are grouped by phase and, where it fits, also inherit the matching
built-in (a missing source is still a :class:`FileNotFoundError`). The CLI
catches :class:`ToolkitError`, prints ``str(err)`` on one line and exits with
``err.exit_code``; only ``--traceback`` shows the stack. The exit code is a
class attribute: a command that needs another code raises another class
(``raise GateInputError(...) from err``), it never changes ``exit_code`` on an
error already raised.

Messages name the thing (file, line or record id, field), what was allowed and
what was found::

    >>> str(SchemaError("correct_answer_num must be 1-4, found 5",
    ...                 file="train.tsv", record="line 7", field="correct_answer_num"))
    'train.tsv, line 7, field correct_answer_num: correct_answer_num must be 1-4, found 5'
"""
from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """Named exit codes shared by every subcommand but the gates."""

    SUCCESS = 0
    BAD_INPUT = 1  # the input is malformed or inconsistent
    USAGE = 2  # wrong flags or arguments (click's own code), an output that cannot be written or
    # must not be replaced (OutputError), an input altered after its manifest was written (IntegrityError)
    INTERRUPTED = 130  # Ctrl-C (SIGINT): 128 + 2, as a shell reports it
    TERMINATED = 143  # SIGTERM: 128 + 15; stopped like Ctrl-C (workers ended, temporary files removed)


class GateStatus(IntEnum):
    """Exit codes of the release gates, ``builder qc`` and ``builder licenses``.

    A CI job branches on them without reading the text: the gate passed, the
    gate failed, or the gate could not look (the input or its config cannot be
    read).
    """

    PASSED = 0
    FAILED = 1  # a release gate failed
    UNREADABLE = 2  # the input or config of a gate cannot be read


#: The longest message an error prints (a value quoted from a hostile file cannot make it longer).
MAX_MESSAGE = 500


class ToolkitError(Exception):
    """Base of all toolkit errors.

    Parameters
    ----------
    message : str
        What was wrong, naming what was allowed and what was found.
    file, record, field : str, optional
        Where it was wrong. They are prefixed to the message in that order.
    """

    exit_code: int = ExitStatus.BAD_INPUT

    def __init__(self, message: str, *, file=None, record=None, field=None):
        self.message = message
        self.file = None if file is None else str(file)
        self.record = None if record is None else str(record)
        self.field = field
        super().__init__(message)

    @property
    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.record:
            parts.append(self.record)
        if self.field:
            parts.append(f"field {self.field}")
        return ", ".join(parts)

    def __str__(self) -> str:
        loc = self.location
        text = " ".join(self.message.split("\n"))  # always one line
        line = f"{loc}: {text}" if loc else text
        if len(line) > MAX_MESSAGE:  # a value quoted from a hostile file never makes a megabyte line
            keep = (MAX_MESSAGE - 30) // 2  # the start names the place, the end often what to do
            line = f"{line[:keep]} … ({len(line) - 2 * keep} characters cut) … {line[-keep:]}"
        return line


class SourceError(ToolkitError):
    """A source file or folder cannot be read or holds a malformed record."""


class SourceNotFoundError(SourceError, FileNotFoundError):
    """A source file or folder does not exist."""


class SchemaError(ToolkitError, ValueError):
    """A record does not match its schema (missing field, bad value)."""


class RecipeError(ToolkitError, ValueError):
    """A recipe or config file is malformed or names unknown things."""


class AlignmentError(ToolkitError):
    """Parallel files do not line up with the source annotation."""


class ScriptError(ToolkitError):
    """Text is not written in the script its language code declares."""


class AnnotationError(ToolkitError, ValueError):
    """Annotations are inconsistent (unknown label, duplicate rating, ...)."""


class LicenseError(ToolkitError):
    """A license id is unknown or the licenses of a split conflict."""


class GateFailed(ToolkitError):
    """A release gate failed (exit code 1, :attr:`GateStatus.FAILED`)."""

    exit_code = GateStatus.FAILED


class QCGateFailed(GateFailed):
    """A quality-control gate failed."""


class GateInputError(ToolkitError):
    """A gate cannot read its input or config (exit code 2, :attr:`GateStatus.UNREADABLE`).

    A gate converts the read error it caught, keeping its message and location::

        >>> try:
        ...     try:
        ...         raise SchemaError("malformed JSON", file="test.jsonl", record="line 3")
        ...     except SchemaError as err:
        ...         raise GateInputError.from_error(err) from err
        ... except GateInputError as gate_err:
        ...     (str(gate_err), int(gate_err.exit_code))
        ('test.jsonl, line 3: malformed JSON', 2)
    """

    exit_code = GateStatus.UNREADABLE

    @classmethod
    def from_error(cls, err: ToolkitError) -> "GateInputError":
        """The same message and location (file, record, field) as ``err``."""
        return cls(err.message, file=err.file, record=err.record, field=err.field)


class UsageError(ToolkitError):
    """The command was called wrongly (maps to exit code 2)."""

    exit_code = ExitStatus.USAGE


class OutputError(ToolkitError):
    """An output cannot be written where it was asked for (exit code 2).

    The message is ``cannot write PATH: REASON``, naming the output the user
    asked for (not a temporary name). Exit code 2 is
    :attr:`ExitStatus.USAGE` for every command, which for the gates is
    :attr:`GateStatus.UNREADABLE` ("could not look"), never ``FAILED``: CI must
    not read "cannot write the report" as "the gate failed"::

        >>> err = OutputError.from_os_error(PermissionError(13, "Permission denied", "/srv/x"), "/srv/x/out")
        >>> str(err), int(err.exit_code) == GateStatus.UNREADABLE
        ('cannot write /srv/x/out: permission denied', True)
    """

    exit_code = ExitStatus.USAGE

    def __init__(self, reason: str, *, file):
        super().__init__(reason, file=file)

    def __str__(self) -> str:
        text = " ".join(self.message.split("\n"))
        return f"cannot write {self.file}: {text}"

    @classmethod
    def from_os_error(cls, err: OSError, target) -> "OutputError":
        """The error for ``target`` from the :class:`OSError` that writing it raised."""
        return cls(os_reason(err, target), file=target)


def row_at(index: int) -> str:
    """How an error names the record at ``index`` (counted from 0) of a table: ``row N``, counted from one, so
    that ``row 1`` is the first record whatever the file or the error.

    >>> row_at(0)
    'row 1'
    """
    return f"row {int(index) + 1}"


def os_reason(err: OSError, target=None) -> str:
    """Why an :class:`OSError` happened, in a few words (``permission denied``).

    A file in the way (``ENOTDIR``, ``EEXIST``) is named: the first part of
    ``target``'s path that exists and is not a folder.
    """
    import errno
    import os
    from pathlib import Path

    code = err.errno
    if code in (errno.ENOTDIR, errno.EEXIST) and target is not None:
        p = Path(target)
        for part in (p, *p.parents):
            if os.path.lexists(part):
                if part.is_dir():
                    break
                return "a file of that name exists; expected a folder" if part == p else \
                    f"{part} is a file, not a folder"
    if code is None:
        return str(err)
    reason = os.strerror(code)
    reason = reason[:1].lower() + reason[1:]
    if err.filename is not None and target is not None and str(err.filename) != str(target) \
            and code not in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT):
        reason += f" ({err.filename})"
    return reason


class IntegrityError(SourceError):
    """A file of a dataset folder no longer matches the sha256 its ``manifest.json`` recorded.

    Exit code 2 (:attr:`ExitStatus.USAGE`, for the gates
    :attr:`GateStatus.UNREADABLE`): the folder was altered after it was
    written, so no stage may use it as it is. ``builder --no-verify`` reads it anyway.
    """

    exit_code = ExitStatus.USAGE
