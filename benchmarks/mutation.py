"""A whole ``mutmut run``: what it will cost, where it stands, and its survivors rechecked in a fresh process.

mutmut 3 links each mutant to every test that called its function during its stats run and, for each
mutant, runs those tests fastest first until one fails (``-x``). A killed mutant costs its first failing
test; a surviving one costs every linked test. This script sums the linked test time per mutant (the
cost of the mutant if it survives) and says which tests carry that cost, so a test that is slow and
linked to most mutants can be seen before hours are spent on it.

Run it in the folder that holds ``mutants/`` once mutmut has printed "Running clean tests"::

    python benchmarks/mutation.py cost [--exclude REGEX] [--top 25]
    python benchmarks/mutation.py verdicts [--add FILE] [--reasons FILE]
    python benchmarks/mutation.py recheck [PATTERN]
    python benchmarks/mutation.py save [--ledger FILE]
    python benchmarks/mutation.py restore [--ledger FILE] [--add FILE] [--rerun-survivors PATTERN]
    python benchmarks/mutation.py run [--max-children 2] [MUTANT ...]
    python benchmarks/mutation.py fast --tree DIR [--pattern PAT]... [--record FILE] FILE ... -- PYTEST_ARGS

``cost --exclude`` drops the tests whose node id matches, as a ``-k`` expression in ``[tool.mutmut]``
would, and reports how many mutants would be left with no test.

``verdicts`` prints mutmut's verdicts so far per mutated module as a Markdown table (run, killed,
survived, timeouts, no test, not yet checked, and the wall seconds mutmut recorded for them), the table
docs/testing.md gives for a whole run. ``--reasons docs/mutation-survivors.tsv`` adds the reviewed
survivors per category (equivalent, unobservable, out of run, killable) and lists on stderr each survivor
with no reason at its function's present hash (a function edited since its review is reviewed again);
it then exits 1.

``recheck`` runs each surviving mutant (those whose name matches the ``fnmatch`` pattern) against its
linked tests again, in a fresh pytest process instead of a process forked from mutmut's. mutmut forks
every mutant from a process that has run the whole selection, so a value cached there (a
``functools.cache``, a module-level table) is inherited and the mutated code that would compute it again
never runs; a survivor this kills was killed by the tests all along. It prints ``killed`` or
``survived`` per mutant, with the first failing test.

``save`` and ``restore`` carry a run from one machine to the next. A whole run takes longer than a
session, and a session's machine keeps neither its processes nor ``/tmp``: ``save`` writes every decided
verdict, with the hash mutmut keeps of each mutated function, to a text ledger in the repository
(``docs/mutation-run.tsv``); ``restore`` writes them back as mutmut's ``.meta`` files into a ``mutants/``
folder that holds no mutated copy yet. mutmut then generates the mutants again and keeps a verdict only
where the function's hash is unchanged (a function edited since is checked again), so the run goes on
where the ledger left it.

``fast`` checks one module's mutants in minutes instead of hours, before the whole run reaches it: in
``--tree`` (a ``git archive`` of the commit, never a checkout: the mutated module replaces its source
there), mutmut generates the mutants of each FILE; the given tests run once unmutated, which imports
what they import, then once per mutant whose name matches a ``--pattern`` (``-x``; repeatable), each in a process
forked from that one, selecting the mutant as mutmut does (by ``MUTANT_UNDER_TEST``, which the generated
code reads at each call). As with mutmut's own runner, no state of one mutant reaches the next. It
prints the mutants no given test kills as it finds them, and its progress every 50 mutants on stderr.
Only the tests given run, so a survivor here may be killed by another test in the whole run; a kill here
is a kill there too (mutmut stops at the first failing test as well). ``--record FILE`` lays the kills,
with the hash of each mutated function, over a ledger of the same format, and ``restore --add FILE``
lays that over the run's ledger: mutmut then keeps those kills where the function is unchanged and runs
only the rest. The kills are laid over every 50 mutants and when the pass ends, also when it is stopped
(Ctrl-C, SIGTERM: one line says how far it got, the running mutant's process is ended, exit 130 or 143), so a
pass cut short keeps what it found. A timeout (``--timeout``) or a pytest that
stops without a verdict is reported on stderr and recorded as nothing.

``run`` is ``mutmut run`` with two work-arounds applied in its own process (mutmut 3.8.1): its fork
runner reaped a child it had not forked (a process a test started that ended later) and stopped with
``KeyError``; and it recounted all 24,273 verdicts after every mutant (90 ms a call), now at most once a
second.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from fnmatch import fnmatch
from pathlib import Path
from statistics import median


def metas(root: Path):
    """``(module, meta)`` for every mutated module: the ``.meta`` file mutmut writes beside it, read.

    A ``.meta`` file mutmut is writing at that moment cannot be read: the error names it.
    """
    for path in sorted(root.rglob("*.py.meta")):
        try:
            meta = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}: not JSON ({exc}); mutmut may be writing it, run this again") from None
        yield path.relative_to(root).as_posix().removesuffix(".meta"), meta


def mutant_names(root: Path) -> list[str]:
    """Every mutant's name."""
    return [name for _, meta in metas(root) for name in meta["exit_code_by_key"]]


def function_of(mutant: str) -> str:
    """The key of a mutant's function in mutmut's stats (``x_f__mutmut_12`` -> ``x_f``), looked up as mutmut does."""
    from mutmut.utils.format_utils import mangled_name_from_mutant_name

    return mangled_name_from_mutant_name(mutant.replace("__init__.", ""))


def verdicts(root: Path, added: tuple[Path, ...] = ()) -> list[dict]:
    """Per mutated module: mutmut's verdict counts and the wall seconds its checked mutants took.

    Each ledger of ``added`` (a fast pass's, ``fast --record``) is laid over the run's verdicts where the
    function's hash is the run's: the figures ``restore --add`` would give the run.
    """
    from mutmut.stats import status_by_exit_code  # the exit code -> verdict table mutmut itself reports with

    over: dict[str, dict] = {}
    for extra in added:
        over = laid_over(over, read_ledger(extra))
    rows = []
    for module, data in metas(root):
        top, hashes = over.get(module), data.get("hash_by_function_name", {})
        if top:
            data["exit_code_by_key"].update(
                {name: code for name, code in top["exit_code_by_key"].items() if name in data["exit_code_by_key"]
                 and hashes.get(_function_key(name)) == top["hash_by_function_name"].get(_function_key(name))})
        count = Counter(status_by_exit_code[code] for code in data["exit_code_by_key"].values())
        run = sum(n for verdict, n in count.items() if verdict not in ("not checked", "no tests"))
        rows.append({
            "survivors": {name: hashes.get(_function_key(name)) for name, code in data["exit_code_by_key"].items()
                          if status_by_exit_code[code] == "survived"},
            "module": module,
            "mutants": sum(count.values()), "run": run, "killed": count["killed"],
            "survived": count["survived"], "timeout": count["timeout"], "no tests": count["no tests"],
            "not checked": count["not checked"], "other": run - count["killed"] - count["survived"] - count["timeout"],
            "seconds": sum(data.get("durations_by_key", {}).values()),
        })
    return rows


#: why a survivor is not a missed bug (or that it is one), the first word of a reason in the reasons file
CATEGORIES = ("equivalent", "unobservable", "out of run", "killable")


def read_reasons(path: Path) -> dict[str, tuple[str, str, str]]:
    """The reviewed survivors: mutant -> (its function's hash when reviewed, category, reason).

    One line a survivor, tab-separated: module, mutant, hash, category (one of :data:`CATEGORIES`), reason;
    ``#`` lines are comments. A malformed line names its number.
    """
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise SystemExit(f"{path}: cannot read the reasons ({exc.strerror})") from None
    reasons = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 or fields[3] not in CATEGORIES or not fields[4].strip():
            raise SystemExit(f"{path}:{number}: not a reason line (module, mutant, hash, one of "
                             f"{', '.join(CATEGORIES)}, reason): {line[:80]!r}")
        reasons[fields[1]] = (fields[2], fields[3], fields[4])
    return reasons


def unreviewed(rows: list[dict], reasons: dict[str, tuple[str, str, str]]) -> list[str]:
    """The survivors of ``rows`` with no reason given at their function's present hash (edited since: again)."""
    return [name for row in rows for name, digest in sorted(row["survivors"].items())
            if reasons.get(name, (None,))[0] != digest]


def print_verdicts(rows: list[dict], reasons: dict[str, tuple[str, str, str]] | None = None) -> None:
    cols = ["mutants", "run", "killed", "survived", "timeout", "other", "no tests", "not checked"]
    extra = [] if reasons is None else list(CATEGORIES) + ["no reason"]
    print("| module | " + " | ".join(cols) + " | killed of run | wall s |" + "".join(f" {c} |" for c in extra))
    print("| --- | " + " | ".join("---:" for _ in cols) + " | ---: | ---: |" + " ---: |" * len(extra))
    total = Counter()
    for row in rows + [None]:
        if row is None:
            row = {"module": "**all**", **total}
        else:
            if reasons is not None:
                missing = unreviewed([row], reasons)
                row = {**row, "no reason": len(missing), **Counter(
                    reasons[name][1] for name in row["survivors"] if name not in missing)}
            total.update({k: row.get(k, 0) for k in cols + extra + ["seconds"]})
        share = f"{row['killed'] / row['run']:.1%}" if row["run"] else "-"
        print(f"| {row['module']} | " + " | ".join(f"{row[k]:,}" for k in cols)
              + f" | {share} | {row['seconds']:,.0f} |" + "".join(f" {row.get(c, 0):,} |" for c in extra))


def survivors(root: Path, pattern: str = "*") -> list[str]:
    """The surviving mutants (mutmut's exit code 0) whose name matches ``pattern``."""
    return [name for _, meta in metas(root) for name, code in meta["exit_code_by_key"].items()
            if code == 0 and fnmatch(name, pattern)]


def recheck(root: Path, pattern: str, timeout: float) -> int:
    """Each survivor against its linked tests in a fresh pytest process, with mutmut's own pytest options."""
    import os
    import subprocess
    import tomllib

    cfg = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["mutmut"]
    stats = json.loads((root / "mutmut-stats.json").read_text("utf-8"))
    duration = stats["duration_by_test"]
    killed = 0
    names = survivors(root, pattern)
    for name in names:
        tests = sorted(stats["tests_by_mangled_function_name"].get(function_of(name), []), key=duration.get)
        if not tests:  # pytest given no test id would run the whole selection
            print(f"no tests\t{name}\tno linked test", flush=True)
            continue
        cmd = [sys.executable, "-m", "pytest", "--rootdir=.", "-x", "-q", "--tb=line",
               *cfg.get("pytest_add_cli_args", []), *tests]
        env = dict(os.environ, MUTANT_UNDER_TEST=name)
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
            failed = [line for line in proc.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))]
            verdict = "killed" if proc.returncode not in (0, 5) else "survived"
            detail = failed[0] if failed else f"{len(tests)} tests passed"
        except subprocess.TimeoutExpired:
            verdict, detail = "timeout", f"over {timeout:.0f} s"
        killed += verdict != "survived"
        print(f"{verdict}\t{name}\t{detail}", flush=True)
    print(f"{killed} of {len(names)} survivors killed in a fresh process")
    return 0


LEDGER = Path("docs/mutation-run.tsv")


def save(root: Path, ledger: Path) -> int:
    """Every decided verdict and every mutated function's hash, from mutmut's ``.meta`` files, to ``ledger``.

    The ledger is written whole or not at all (a ``.meta`` file being written stops it, see :func:`metas`).
    """
    modules = dict(metas(root))
    if not modules:
        raise SystemExit(f"{root}: no mutmut .meta file; nothing to save")
    decided = write_ledger(ledger, modules, f"from {root.resolve()}")
    print(f"{decided:,} verdicts saved to {ledger}")
    return 0


def write_ledger(ledger: Path, modules: dict[str, dict], origin: str) -> int:
    """``modules`` (module path -> mutmut's ``.meta`` content) as the text ledger, replacing ``ledger`` whole;
    returns the number of decided verdicts written."""
    import os
    import subprocess
    from datetime import datetime, timezone

    lines, decided = [], 0
    for module, meta in sorted(modules.items()):
        for function, digest in sorted(meta.get("hash_by_function_name", {}).items()):
            lines.append(f"#hash\t{module}\t{function}\t{digest}")
        durations = meta.get("durations_by_key", {})
        for name, code in sorted(meta["exit_code_by_key"].items()):
            if code is not None:
                lines.append(f"{module}\t{name}\t{code}\t{durations.get(name, 0.0):.3f}")
                decided += 1
    # the commit the run's tree is: a checkout's HEAD, or a `git archive`'s SNAPSHOT_COMMIT file
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    if not commit and Path("SNAPSHOT_COMMIT").is_file():
        commit = Path("SNAPSHOT_COMMIT").read_text("utf-8").strip()
    head = [f"# mutmut verdicts ({decided:,} decided), saved {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC "
            f"{origin} at {commit or 'an unknown commit'}",
            "# columns: module, mutant, mutmut's exit code, seconds; "
            "'#hash' rows: module, function, mutmut's hash of it"]
    tmp = ledger.with_name(ledger.name + ".tmp")
    tmp.write_text("\n".join(head + lines) + "\n", "utf-8")
    os.replace(tmp, ledger)
    return decided


def laid_over(base: dict[str, dict], top: dict[str, dict]) -> dict[str, dict]:
    """Ledger ``top``'s verdicts laid over ``base``'s (both as :func:`read_ledger` gives them), in place of
    ``base``.

    A function whose hash differs between the two was edited between them: ``base``'s verdicts of it are
    dropped and ``top``'s hash kept (``top`` is the later ledger). A mutant in both takes ``top``'s verdict:
    a fast pass's kill of a mutant ``base`` holds as a survivor is a test, written since, that kills it.
    """
    for module, meta in top.items():
        under = base.setdefault(module, {key: {} for key in meta})
        for function, digest in meta["hash_by_function_name"].items():
            if under["hash_by_function_name"].get(function, digest) != digest:
                for name in [n for n in under["exit_code_by_key"] if _function_key(n) == function]:
                    del under["exit_code_by_key"][name]
                    under["durations_by_key"].pop(name, None)
            under["hash_by_function_name"][function] = digest
        under["exit_code_by_key"].update(meta["exit_code_by_key"])
        under["durations_by_key"].update(meta["durations_by_key"])
    return base


def _function_key(mutant: str) -> str:
    """The key of a mutant's function in a ``.meta`` file's hashes (``pkg.mod.x_f__mutmut_3`` -> ``x_f``)."""
    return mutant.rpartition("__mutmut_")[0].rpartition(".")[2]


def read_ledger(ledger: Path) -> dict[str, dict]:
    """The ledger as mutmut's ``.meta`` content, per module path; a malformed line names its number."""
    modules: dict[str, dict] = {}

    def meta_of(module: str) -> dict:
        return modules.setdefault(module, {"exit_code_by_key": {}, "hash_by_function_name": {},
                                           "type_check_error_by_key": {}, "durations_by_key": {},
                                           "estimated_durations_by_key": {}})

    try:
        text = ledger.read_text("utf-8")
    except OSError as exc:
        raise SystemExit(f"{ledger}: cannot read the ledger ({exc.strerror})") from None
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("\t")
        try:
            if line.startswith("#hash\t"):
                _, module, function, digest = fields
                meta_of(module)["hash_by_function_name"][function] = digest
            elif line and not line.startswith("#"):
                module, name, code, seconds = fields
                meta = meta_of(module)
                meta["exit_code_by_key"][name] = int(code)
                meta["durations_by_key"][name] = float(seconds)
        except ValueError:
            raise SystemExit(f"{ledger}:{number}: not a ledger line: {line[:80]!r}") from None
    return modules


def restore(root: Path, ledger: Path, rerun: tuple[str, ...] = (), added: tuple[Path, ...] = ()) -> int:
    """The ledger's verdicts as ``.meta`` files in ``root``, before mutmut generates the mutants again.

    A survivor whose name matches one of the ``rerun`` patterns (fnmatch) is left out, so that mutmut runs
    it again: mutmut keeps a verdict while its function is unchanged, and cannot see a test written since.
    Each ledger of ``added`` (a fast pass's kills, ``fast --record``) is laid over it first (:func:`laid_over`).
    """
    import fnmatch

    modules = read_ledger(ledger)
    for extra in added:
        modules = laid_over(modules, read_ledger(extra))
    again = 0
    for meta in modules.values():
        for name in [n for n, code in meta["exit_code_by_key"].items()
                     if code == 0 and any(fnmatch.fnmatchcase(n, p) for p in rerun)]:
            del meta["exit_code_by_key"][name], meta["durations_by_key"][name]
            again += 1
    present = [m for m in modules if (root / m).exists() or (root / (m + ".meta")).exists()]
    if present:
        raise SystemExit(f"{root}: already holds {present[0]} (and {len(present) - 1} more); restore into a "
                         "mutants/ folder mutmut has not generated yet")
    for module, meta in modules.items():
        unknown = [n for n in meta["exit_code_by_key"] if _function_key(n) not in meta["hash_by_function_name"]]
        if unknown:
            raise SystemExit(f"{ledger}: {unknown[0]} has no '#hash' row for its function in {module}")
    for module, meta in modules.items():
        path = root / (module + ".meta")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(meta, indent=4), "utf-8")
    print(f"{sum(len(m['exit_code_by_key']) for m in modules.values()):,} verdicts of {len(modules)} modules "
          f"restored into {root}; `mutmut run` keeps those whose function is unchanged"
          + (f" ({again:,} survivors left out to run again)" if rerun else ""))
    return 0


def run_mutmut(args: list[str]) -> int:
    """``mutmut run`` with the two work-arounds of the module docstring, patched in this process."""
    import os
    import time
    from datetime import datetime

    # Run as a script, this file's folder is sys.path[0], and its benchmarks/evaluate.py would shadow
    # Hugging Face's `evaluate` in every test mutmut runs in this process and its forks.
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if str(Path(p or ".").resolve()) != here]

    import mutmut.__main__ as mutmut_main
    import mutmut.stats
    from mutmut.workers.isolation import ForkRunner, MutantResult

    def wait_for_result(self, timeout=None):
        if self._no_tests_results:
            return self._no_tests_results.pop(0)
        while True:
            pid, status = os.wait()
            if pid in self._running:
                break
            print(f"\nmutmut: reaped pid {pid}, not a mutant process (exit {os.waitstatus_to_exitcode(status)})")
        worker = self._running.pop(pid)
        duration = (datetime.now() - worker.start_time).total_seconds()
        return MutantResult(mutant_name=worker.mutant_name, exit_code=os.waitstatus_to_exitcode(status),
                            duration=duration)

    counted = mutmut.stats.print_stats
    last = [0.0]

    def print_stats(data, force_output=False):
        if force_output or time.monotonic() - last[0] >= 1.0:
            last[0] = time.monotonic()
            counted(data, force_output=force_output)

    ForkRunner.wait_for_result = wait_for_result
    mutmut_main.print_stats = mutmut.stats.print_stats = print_stats
    return mutmut_main.cli(["run", *args], standalone_mode=True)


def fast(tree: Path, files: list[str], patterns: tuple[str, ...], pytest_args: list[str],
         record: Path | None = None, timeout: float = 300.0) -> int:
    """The mutants of ``files`` matching one of ``patterns`` that ``pytest_args`` do not kill, each in a process forked
    from one that has run the tests once (``fast``); with ``record``, the kills laid over that ledger."""
    import contextlib
    import importlib.util
    import io
    import os
    import signal
    import time

    tree = tree.resolve()
    if not tree.is_dir():
        raise SystemExit(f"error: {tree}: no such folder (give a git archive of the commit)")
    if (tree / ".git").exists():
        raise SystemExit(f"error: {tree} is a git checkout; fast replaces its sources with mutated ones, so give it "
                         "a copy (git archive HEAD | tar -x -C DIR)")
    missing = [name for name in files if not (tree / name).is_file()]
    if missing:
        raise SystemExit(f"error: {tree / missing[0]}: module not found in the tree")
    record = record.resolve() if record else None
    os.chdir(tree)
    import mutmut.__main__ as mutmut_main
    import pytest

    names, hashes = [], {}
    for name in files:
        if not (Path("mutants") / name).is_file():  # generated once; the source is the mutated copy after
            mutmut_main.create_file_mutants(Path(name))
            (tree / name).write_bytes((Path("mutants") / name).read_bytes())
        meta = json.loads((Path("mutants") / (name + ".meta")).read_text("utf-8"))
        hashes[name] = meta["hash_by_function_name"]
        names += [(name, m) for m in meta["exit_code_by_key"] if any(fnmatch(m, p) for p in patterns)]
    sys.path.insert(0, str(tree))
    # in this process: the project's addopts spread tests over xdist workers, which would start afresh per mutant
    xdist = ["-n", "0"] if importlib.util.find_spec("xdist") else []
    args = ["-x", "-q", "-p", "no:cacheprovider", "--tb=no", *xdist, *pytest_args]

    def exit_code(mutant: str) -> int | None:
        """pytest's exit code under ``mutant``, in a forked process (no state of one mutant reaches the next,
        as with mutmut's own runner); None past ``timeout`` seconds. The process leads a group of its own,
        which goes with it, so a worker it forked (a pool a mutant hangs) does not outlive it."""
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the pass's handler, which saves its kills
            code = 3
            try:
                os.environ["MUTANT_UNDER_TEST"] = mutant
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = int(pytest.main(args))
            finally:
                os._exit(code)
        with contextlib.suppress(OSError):  # here too, so that no kill below can come before the child's own call
            os.setpgid(pid, pid)
        deadline, running = time.monotonic() + timeout, True
        try:
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    running = False
                    return os.waitstatus_to_exitcode(status)
                if time.monotonic() > deadline:
                    return None
                time.sleep(0.02)
        finally:  # past its deadline, or the pass is stopped: the mutant's process goes; its group always does
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            if running:
                os.waitpid(pid, 0)

    os.environ["MUTANT_UNDER_TEST"] = ""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        clean = pytest.main(args)  # here: the modules the tests import are imported once, for every fork
    if clean != 0:
        raise SystemExit("error: the tests fail with no mutant; run them in the tree to see why")
    survivors, killed, other = [], {}, []

    def save() -> None:
        """Lay the kills found so far over ``record`` (laying the same kill again changes nothing)."""
        if record and killed:
            top = {module: {"exit_code_by_key": dict.fromkeys(ms, 1), "durations_by_key": ms,
                            "hash_by_function_name": hashes[module], "type_check_error_by_key": {},
                            "estimated_durations_by_key": {}} for module, ms in killed.items()}
            modules = laid_over(read_ledger(record) if record.exists() else {}, top)
            write_ledger(record, modules, f"by benchmarks/mutation.py fast ({' '.join(pytest_args)})")

    # a pass stopped part way (Ctrl-C, SIGTERM) keeps the kills it found: saved every 50 mutants and on the way out
    stopped = 0

    def on_term(signum, frame):
        nonlocal stopped
        stopped = 128 + signum
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        for done, (module, m) in enumerate(names, 1):  # a survivor is printed when found: a pass can take an hour
            started = time.monotonic()
            code = exit_code(m)
            if code == 0:
                survivors.append(m)
                print(m, flush=True)
            elif code == 1:
                killed.setdefault(module, {})[m] = time.monotonic() - started
            else:  # a timeout, or pytest stopped (no test collected, an internal error): not a verdict
                other.append(m)
                print(f"{m}\t{'timeout' if code is None else f'pytest exit {code}'}", file=sys.stderr, flush=True)
            if done % 50 == 0:
                save()
                print(f"{done} of {len(names)} mutants run, {len(survivors)} survived", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        stopped = stopped or 130
    finally:
        save()
    if stopped:  # one line: how far it got, and what it kept
        ran = len(survivors) + sum(map(len, killed.values())) + len(other)
        print(f"stopped after {ran} of {len(names)} mutants, {len(survivors)} survived"
              + (f"; {sum(map(len, killed.values())):,} kills laid over {record}" if record else ""), file=sys.stderr)
        return stopped
    print(f"{len(survivors)} of {len(names)} mutants survived the tests given"
          + (f"; {len(other)} gave no verdict" if other else ""))
    if record:
        print(f"{sum(map(len, killed.values())):,} kills laid over {record}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mutants", type=Path, default=Path("mutants"), help="mutmut's folder (default: mutants)")
    sub = ap.add_subparsers(dest="command", required=True)
    cost = sub.add_parser("cost", help="the linked test time per mutant, from mutmut's stats")
    cost.add_argument("--exclude", default=None, help="drop the tests whose node id matches this regular expression")
    cost.add_argument("--top", type=int, default=25, help="list this many of the costliest tests")
    tally = sub.add_parser("verdicts", help="mutmut's verdicts so far, per module")
    tally.add_argument(
        "--add", metavar="LEDGER", type=Path, action="append", default=[],
        help="a fast pass's ledger laid over the run's verdicts where the function is unchanged (repeatable)")
    tally.add_argument(
        "--reasons", type=Path, default=None,
        help="the reviewed survivors (docs/mutation-survivors.tsv): count them per category, list the survivors "
             "without a reason at their function's hash, and exit 1 if there is one")
    again = sub.add_parser("recheck", help="the survivors against their linked tests in a fresh process")
    again.add_argument("pattern", nargs="?", default="*", help="fnmatch pattern over mutant names (default: all)")
    again.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant (default: 600)")
    for name, text in (("save", "the decided verdicts to the ledger"), ("restore", "the ledger into mutants/")):
        sub.add_parser(name, help=text).add_argument("--ledger", type=Path, default=LEDGER,
                                                     help=f"the ledger (default: {LEDGER})")
    sub.choices["restore"].add_argument(
        "--add", metavar="LEDGER", type=Path, action="append", default=[],
        help="a ledger laid over the first, later verdicts winning (a fast pass's kills; repeatable)")
    sub.choices["restore"].add_argument(
        "--rerun-survivors", metavar="PATTERN", action="append", default=[],
        help="leave out the survivors whose name matches this fnmatch pattern, to run them again against tests "
             "written since (repeatable; '*' for every survivor)")
    quick = sub.add_parser("fast", help="one module's mutants against the tests given, in one process")
    quick.add_argument("--tree", type=Path, required=True, help="a git archive of the commit (changed in place)")
    quick.add_argument("--pattern", action="append", default=[],
                       help="fnmatch pattern over mutant names (repeatable: a mutant matching any; default: all)")
    quick.add_argument("--record", type=Path, default=None,
                       help="lay the kills over this ledger (created if missing), for restore --add")
    quick.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant (default: 300)")
    quick.add_argument("files", nargs="+", help="the modules to mutate, relative to the tree")
    go = sub.add_parser("run", help="mutmut run, with the work-arounds")
    go.add_argument("mutmut_args", nargs=argparse.REMAINDER, help="passed to mutmut run (e.g. --max-children 2)")
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv and "fast" in argv[:argv.index("--")] else len(argv)
    tail = argv[cut + 1:]  # fast: the tests, as pytest takes them (run passes its own arguments on whole)
    args, rest = ap.parse_known_args(argv[:cut])
    if args.command == "run":  # mutmut's own options (--max-children 2) are not this parser's
        return run_mutmut(rest + args.mutmut_args)
    if args.command == "fast":
        if rest or not tail:
            ap.error("fast: give the tests after --, as pytest takes them")
        return fast(args.tree, args.files, tuple(args.pattern or ["*"]), tail, args.record, args.timeout)
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "restore":
        return restore(args.mutants, args.ledger, tuple(args.rerun_survivors), tuple(args.add))
    if args.command == "save":
        return save(args.mutants, args.ledger)
    if not (args.mutants / "mutmut-stats.json").is_file():
        ap.error(f"{args.mutants}: no mutmut-stats.json; run this where mutmut's mutants/ folder is, "
                 "once mutmut has printed 'Running clean tests'")
    if args.command == "verdicts":
        rows = verdicts(args.mutants, tuple(args.add))
        reasons = None if args.reasons is None else read_reasons(args.reasons)
        print_verdicts(rows, reasons)
        missing = [] if reasons is None else unreviewed(rows, reasons)
        for name in missing:
            print(f"no reason: {name}", file=sys.stderr)
        if missing:
            print(f"{len(missing):,} survivors have no reason in {args.reasons} at their function's present hash",
                  file=sys.stderr)
        return 1 if missing else 0
    if args.command == "recheck":
        return recheck(args.mutants, args.pattern, args.timeout)

    stats = json.loads((args.mutants / "mutmut-stats.json").read_text("utf-8"))
    tests_of, duration = stats["tests_by_mangled_function_name"], stats["duration_by_test"]
    drop = re.compile(args.exclude) if args.exclude else None
    excluded = {t for t in duration if drop and drop.search(t)}

    names = mutant_names(args.mutants)
    cost: list[float] = []
    weight: Counter = Counter()
    no_test = lost = 0
    for name in names:
        linked = tests_of.get(function_of(name), [])
        kept = [t for t in linked if t not in excluded]
        if not linked:
            no_test += 1
        elif not kept:
            lost += 1
        else:
            cost.append(sum(duration[t] for t in kept))
            for t in kept:
                weight[t] += duration[t]

    print(f"{len(names):,} mutants; {no_test:,} with no test"
          + (f"; {lost:,} more with no test once {len(excluded)} tests "
             f"({sum(duration[t] for t in excluded):.0f} s) are excluded" if drop else ""))
    if cost:
        print(f"linked test time if every mutant survived: {sum(cost) / 3600:,.1f} h "
              f"(median {median(cost):.1f} s a mutant, max {max(cost):.1f} s)")
    total = sum(weight.values()) or 1.0
    for test, hours in weight.most_common(args.top):
        print(f"{hours / 3600:7.1f} h  {hours / total:5.1%}  {duration[test]:6.2f} s  {test}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
