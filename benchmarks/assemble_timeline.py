"""Where the main process of `builder assemble` spends its wall time: timestamps of the streaming assembly.

Runs ``builder -q assemble RECIPE --out OUT -j JOBS`` in this process, with the
streaming assembly's steps wrapped to note the time (seconds since this script
started, imports included) when the main process takes the first result of
each task, starts and ends the finish of each split (spill, shuffle, encoding,
writes) and takes each whole-source task's counts, and when the command ends.

Usage (the corpus of ``benchmarks/assemble_vs_belebele.py --keep DIR``)::

    python benchmarks/assemble_timeline.py /tmp/asmc/recipe.yaml [--out /tmp/asm_o] [-j 2]

It writes OUT (removed first). The wrappers cost a few milliseconds; the
figures are for reading where the time goes, not for comparing runs.
"""
from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipe", type=Path)
    ap.add_argument("--out", type=Path, default=Path("/tmp/asm_o"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()

    from builder.assemble import stream
    from builder.cli.main import main as builder_main

    log: list[tuple[float, str]] = []

    def note(what: str) -> None:
        log.append((time.perf_counter() - T0, what))

    finish = stream._SplitRun.finish

    def timed_finish(self):
        note(f"finish of {self.spec.name} {self.native} starts")
        yield from finish(self)
        note(f"finish of {self.spec.name} {self.native} ends")

    written = stream._written

    def timed_written(result, outputs, message, source=""):
        written(result, outputs, message, source)
        if message[0] == "counts":
            note("a whole-source task written")

    ordered_map = stream.ordered_map

    def timed_map(*a, **k):
        last = None
        for task, payloads in ordered_map(*a, **k):
            key = (task.source, getattr(task, "native", None))
            if key != last:
                note(f"first result of {type(task).__name__} {task.source} {key[1] or ''}".rstrip())
                last = key
            yield task, payloads

    stream._SplitRun.finish, stream._written, stream.ordered_map = timed_finish, timed_written, timed_map
    shutil.rmtree(args.out, ignore_errors=True)
    note("imports done")
    code = builder_main(["-q", "assemble", str(args.recipe), "--out", str(args.out), "-j", str(args.jobs)])
    if code:  # builder printed the error line
        raise SystemExit(code)
    note("end")
    for at, what in log:
        print(f"{at:6.2f} s  {what}")


if __name__ == "__main__":
    main()
