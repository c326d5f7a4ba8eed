"""Readers: one module per source corpus, each turning its native layout into :class:`RawMCItem` records.

Every reader is built the same way::

    reader = READERS["race"](root, ["train", "dev"], on_error="raise", **options)
    for rec in reader:          # RawMCItem, or BadRecord under on_error="skip"
        ...

* ``root`` is the folder the corpus was unpacked into; ``splits`` are the
  corpus's own split names (``None``: every native split whose files are
  present). An unknown split is a :class:`~schemas.errors.RecipeError` that
  lists the allowed ones; a missing file or folder is a
  :class:`~schemas.errors.SourceNotFoundError` naming the path.
* Each yielded :class:`RawMCItem` keeps the options as the corpus has them
  and lists every correct 0-based index in ``correct``; ``file`` is relative
  to ``root`` and ``record`` says where in it (``"line 12"``, ``"#3"``).
  Records of one passage come out consecutively.
* A malformed record raises :class:`~schemas.errors.SourceError` naming file,
  line or record and the reason; with ``on_error="skip"`` it is yielded as a
  :class:`BadRecord` with one of the reason names ``malformed_json``,
  ``malformed_xml``, ``malformed_tsv``, ``malformed_csv``, ``malformed_ans``,
  ``missing_field``, ``bad_value``, ``length_mismatch``, ``answer_out_of_range``,
  ``answer_not_in_options``, ``ans_count_mismatch``, ``invalid_utf8``. A
  whole-file JSON or XML document that does not parse or holds bytes that are
  not UTF-8 yields one :class:`BadRecord` (records already read from a
  streamed XML file stay); in line-based files (JSON lines, CSV/TSV, MCTest)
  only the line or row is bad. The message names the line, and under
  ``raise`` the byte offset, and the codec's reason (``invalid start byte``).
* Input is UTF-8: a byte-order mark and CRLF line ends give the same records
  as without them (``tests/readers/test_readers_encoding.py``).
* Every reader accepts the option ``license`` (overrides the class attribute
  ``default_license``; the chosen id is ``reader.license``).

Formats
-------
========  ==============================================  ==================  ==================
name      layout under ``root``                           splits              default_license
========  ==============================================  ==================  ==================
race      ``RACE/{split}/{middle,high}/<n>.txt`` (JSON)    train, dev, test    RACE-research
sciq      ``SciQ dataset-2 3/{split}.json`` (JSON array)   train, valid, test  CC-BY-NC-3.0
reclor    ``{split}.json`` (JSON array; test refused)      train, val          ReClor-research
mctest    ``MCTest/mc500.{split}.tsv`` + ``.ans``          train, dev, test    MSR-LA
mcscript  ``{split}-data.xml``                             train, dev, test    unknown
multirc   ``splitv2/{split}_*-fixedIds.json`` or           train, dev          unknown
          SuperGLUE ``{train,val}.jsonl``
jsonl     any JSON-lines files, column mapping            any                 option ``license``
csv       any CSV/TSV files with a header, column mapping any                 option ``license``
========  ==============================================  ==================  ==================

Corpus specifics:

* **race**: answer letters index the options; ``meta``: ``level``, ``id``.
* **sciq**: options are ``correct_answer, distractor1-3``, so ``correct == [0]``
  (the assembly shuffles); ``support`` is the passage and may be empty.
* **mctest**: ``\\newline``/``\\tab`` in the story are decoded; the ``one: ``/
  ``multiple: `` prefix goes to ``meta["evidence"]``; option ``subset``
  (``mc500`` default, ``mc160``).
* **mcscript**: 2 answers per question as in the file; ``meta``: ``type``,
  ``scenario``, ``instance_id``. The shipped sample is MCScript 1.0, same schema.
* **multirc**: ``<b>Sent N: </b>...<br>`` markup stripped, sentences joined
  with spaces; ``meta["sentences"]`` lists them; all answers kept, several may
  be correct. Option ``layout``: ``auto`` (default), ``splitv2``, ``superglue``.
* **jsonl** / **csv**: option ``columns`` maps ``passage``, ``question``,
  ``options`` (a list of columns, or one column holding a list) and ``answer``
  (optional ``passage_id``, ``question_id``; dotted keys reach into nested
  JSON), e.g. ``columns={"passage": "context", "question": "q",
  "options": ["a", "b", "c", "d"], "answer": "label"}``; ``answer_format`` is
  ``letter`` (default), ``index0``, ``index1`` or ``text``; ``files`` maps split
  -> path, else ``pattern`` (default ``{split}.jsonl`` / ``{split}.csv``);
  ``corpus`` names the source (default the reader name); csv also takes
  ``delimiter`` and ``encoding``.
"""
from __future__ import annotations

from schemas.errors import RecipeError

from .base import BadRecord, RawMCItem, Reader
from .generic import CsvReader, JsonlReader
from .mcscript import MCScriptReader
from .mctest import MCTestReader
from .multirc import MultiRCReader
from .race import RaceReader
from .reclor import ReClorReader
from .sciq import SciQReader

READERS: dict[str, type[Reader]] = {
    "race": RaceReader,
    "sciq": SciQReader,
    "mctest": MCTestReader,
    "reclor": ReClorReader,
    "mcscript": MCScriptReader,
    "multirc": MultiRCReader,
    "jsonl": JsonlReader,
    "csv": CsvReader,
}


def get_reader(name: str) -> type[Reader]:
    """The reader class registered under ``name``.

    >>> get_reader("race").default_license
    'RACE-research'
    >>> len(get_reader("mctest").SPLITS)
    3
    """
    try:
        return READERS[name]
    except KeyError:
        raise RecipeError(f"unknown reader {name!r}; known: {', '.join(sorted(READERS))}",
                          field="reader") from None


__all__ = ["READERS", "get_reader", "Reader", "RawMCItem", "BadRecord"]
