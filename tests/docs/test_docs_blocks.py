"""Every shell block of README.md and docs/*.md runs as written from a fresh clone (issue 24).

Each page gets its own copy of the repository's files (`git ls-files`: tracked files and new files
git does not ignore, as they are in the working tree now, so the test sees uncommitted edits), and
its blocks run in order in that copy with bash (`set -e -o pipefail`), sharing it as a reader
following the page would. A command's expected non-zero exit is written in the docs (`# exit N`
as its comment, or `<!-- docs-test: exit N -->` before the block); what the test cannot do
(install packages, reach a cluster, run the whole suite) is marked `<!-- docs-test: skip ... -->`
in the page and must be one of SKIPPED below. See tests/docs/docs_blocks.py for the grammar.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from docs_blocks import Block, commands, fenced_blocks, page_blocks, pages, script, shell_blocks, unlabelled_command_blocks

ROOT = Path(__file__).resolve().parents[2]
PAGES = pages(ROOT)

# Everything the docs tell this test not to run: (page, command or the block's first line, reason).
# A new skip in the docs fails test_skips_are_the_expected_few until it is listed here.
SKIPPED = {
    ("README.md", "pip install -e '.[test]'", "installs packages"),
    ("README.md", "python -m pytest -q", "runs the whole test suite, this test included"),
    ("README.md", "pip install -e '.[test,lmeval]'", "installs packages, runs the whole suite and a mutation run of hours"),
    ("docs/export.md", "pip install torch==2.13.0", "installs packages"),
    ("docs/export.md", "pip install -e '.[lmeval]'", "installs packages"),
    ("docs/evaluate.md", "builder evaluate lm out/sib200-release/export --model SmolLM2-135M-Instruct.Q4_1.gguf "
     "--limit 20 --out out/lm/smollm2",
     "loads a language model: minutes on 2 cores"),
    ("docs/qc.md", "python benchmarks/qc_calibration.py --releases 40 --jobs 2", "a calibration benchmark: many minutes of CPU"),
    ("docs/scale.md", "pip install 'mc-dataset-builder[ray]'", "installs packages"),
    ("docs/scale.md", "ray start --head --port=6379 --num-cpus=16", "needs a cluster of several machines"),
    ("docs/scale.md", "kubectl exec -it release-head-XXXXX -- builder qc /data/release --out /data/qc --backend ray --address auto",
     "needs a Kubernetes cluster"),
    ("docs/scale.md", "kubectl port-forward svc/release-head-svc 10001:10001 &", "needs a Kubernetes cluster"),
    ("docs/scale.md", "python benchmarks/qc.py --runs 3 --jobs 2 --variants 205", "benchmarks at full scale: many minutes of CPU"),
    ("docs/testing.md", "pip install -e '.[test,lmeval]'", "installs packages, runs the whole suite and a mutation run of hours"),
    ("docs/testing.md", "mutmut run --max-children 1", "a mutation run: hours"),
    ("docs/testing.md", "mkdir /tmp/mutrun && git archive 2041c07 | tar -xf - -C /tmp/mutrun && cd /tmp/mutrun",
     "a mutation run: many hours, resumed session after session"),
    ("docs/testing.md", "CHECKOUT=$PWD", "a mutation run: hours, carried from session to session through the ledger"),
    ("docs/testing.md", 'cd mutants && MUTANT_UNDER_TEST="<mutant name>" python -m pytest -x -q -p no:cacheprovider \\',
     "needs a mutmut run's mutants/ folder"),
    ("docs/testing.md", "mkdir /tmp/mut && tar --exclude=./.git --exclude=./mutants --exclude=./out -cf - . | tar -xf - -C /tmp/mut",
     "a mutation run: hours"),
    ("docs/testing.md", 'cd /tmp/mut5 && nice -n 15 mutmut run --max-children 1 "qc.script_consistency.*"', "a mutation run: hours"),
    ("docs/testing.md", "mkdir /tmp/m28 && git archive 0f265fe | tar -xf - -C /tmp/m28 && cd /tmp/m28",
     "a mutation run: an hour"),
    ("docs/testing.md", "mkdir /tmp/mut2 && git archive f240352 | tar -xf - -C /tmp/mut2 && cd /tmp/mut2",
     "a mutation run: minutes"),
    ("docs/testing.md", "mkdir /tmp/mutall && git archive f5058b8 | tar -xf - -C /tmp/mutall && cd /tmp/mutall",
     "a mutation run: hours"),
}


def all_skips(root: Path) -> set[tuple[str, str, str]]:
    found = set()
    for page in pages(root):
        for block in page_blocks(root, page):
            if block.skip_reason:
                found.add((page, block.first, block.skip_reason))
                continue
            script(block)
            found.update((page, text, reason) for _, text, reason in block.skipped)
    return found


def runnable_pages(root: Path) -> list[str]:
    return [p for p in pages(root) if any(not b.skip_reason for b in page_blocks(root, p))]


def fresh_clone(dest: Path) -> dict[str, str]:
    """Copy the files a clone would have, as they are in the working tree (tracked and new).

    Returns each copied file's sha256, to check afterwards that the docs changed none of them.
    """
    copied = {}
    for name in _listed():
        src = ROOT / name
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            os.symlink(os.readlink(src), target)
            continue
        shutil.copy2(src, target)
        copied[name] = _sha256(target)
    return copied


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _listed() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode("utf-8")
    # a file deleted in the working tree is not in the clone either
    return [n for n in out.split("\0") if n and ((ROOT / n).exists() or (ROOT / n).is_symlink())]


def _changed_outside_out(clone: Path, copied: dict[str, str]) -> list[str]:
    """Files the blocks wrote, changed or removed anywhere but under out/ (git-ignored)."""
    problems = []
    for path in sorted(clone.rglob("*")):
        rel = path.relative_to(clone).as_posix()
        if rel == "out" or rel.startswith("out/") or "__pycache__" in path.parts or path.is_dir():
            continue
        if rel not in copied:
            if not path.is_symlink():
                problems.append(f"new: {rel}")
        elif _sha256(path) != copied[rel]:
            problems.append(f"changed: {rel}")
    problems += [f"removed: {rel}" for rel in copied if not (clone / rel).exists()]
    return problems


def _env(clone: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BUILDER_", "PYTEST_", "COV_"))}
    env.update(
        PYTHONPATH=str(clone) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
        PYTHONDONTWRITEBYTECODE="1",
        HF_HOME=str(home / "hf"),  # the export's load_dataset checks and lm-eval cache here, not in ~/.cache
        HF_DATASETS_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        MPLBACKEND="Agg",
        NO_COLOR="1",
        COLUMNS="120",
    )
    return env


def _report(block: Block, proc: subprocess.CompletedProcess, expect: int) -> str:
    failing = [l for l in proc.stderr.splitlines() if l.startswith("__docs_test__:")]
    where = failing[-1].split(":", 1)[1].strip() if failing else f"block exited {proc.returncode}"
    body = "\n".join(f"{block.body_line + n:5d}  {line}" for n, line in enumerate(block.body))
    stderr = "\n".join(l for l in proc.stderr.splitlines() if not l.startswith("__docs_test__:"))
    return (
        f"{block.page}:{block.line}: the block exited {proc.returncode}, the docs say {expect} ({where})\n"
        f"--- the block\n{body}\n--- stderr (last 6000 characters)\n{stderr[-6000:]}\n"
        f"--- stdout (last 2000 characters)\n{proc.stdout[-2000:]}"
    )


@pytest.mark.slow
@pytest.mark.docs_blocks  # only with --docs (tests/conftest.py); .ci/run passes it
@pytest.mark.parametrize("page", runnable_pages(ROOT))
def test_page_shell_blocks_run_as_written(page, tmp_path):
    clone = tmp_path / "clone"
    copied = fresh_clone(clone)
    env = _env(clone, tmp_path)
    missing = []
    for block in page_blocks(clone, page):
        if block.skip_reason:
            continue
        absent = [m for m in block.needs if importlib.util.find_spec(m) is None]
        if absent:
            missing.append(f"{block.where} needs {', '.join(absent)}")
            continue
        text, _ = script(block)
        path = tmp_path / f"block-{block.line}.sh"
        path.write_text(text, encoding="utf-8")
        proc = subprocess.run(
            ["bash", str(path)], cwd=clone, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        if proc.returncode != block.expect:
            pytest.fail(_report(block, proc, block.expect), pytrace=False)
    # the docs write their outputs under out/ (git-ignored), never beside the sources or into them
    changed = _changed_outside_out(clone, copied)
    assert not changed, f"{page}: the blocks wrote outside out/: {changed}"
    if missing:
        pytest.skip(f"the other blocks ran; not installed here: {'; '.join(missing)}")


def test_skips_are_the_expected_few():
    found = all_skips(ROOT)
    assert found == SKIPPED, (
        f"skipped in the docs but not listed: {sorted(found - SKIPPED)}; "
        f"listed but no longer skipped: {sorted(SKIPPED - found)}"
    )
    print(f"{len(found)} skipped command(s) or block(s):")
    for page, text, reason in sorted(found):
        print(f"  {page}: {text[:80]} ({reason})")


@pytest.mark.parametrize("page", PAGES)
def test_command_blocks_say_they_are_shell(page):
    """A fenced block that starts commands is labelled bash (run) or text (a synopsis): none hides."""
    hidden = unlabelled_command_blocks((ROOT / page).read_text(encoding="utf-8"), page)
    assert not hidden, f"label these blocks ```bash (run by this test) or ```text: {[b.where for b in hidden]}"


def test_out_is_git_ignored():
    """out/ holds what the docs' commands write; git ignores it, so a clone never ships it."""
    assert subprocess.run(["git", "check-ignore", "-q", "out/x"], cwd=ROOT).returncode == 0


# the parser itself, on small pages


def test_continuations_comments_and_expected_exits():
    page = "\n".join([
        "text",
        "```bash",
        "builder qc out/train --out out/qc   # exit 1: fails gates",
        "builder extend --source a \\",
        "  --out out/v     # equals b",
        "echo '# exit 3 is quoted'",
        "```",
    ])
    (block,) = shell_blocks(page, "p.md")
    cmds = commands(block)
    assert [(c.line, c.expect) for c in cmds] == [(3, 1), (4, 0), (6, 0)]
    assert cmds[1].text == "builder extend --source a --out out/v     # equals b"
    text, prelude = script(block)
    lines = text.splitlines()
    assert lines[prelude].startswith("__rc=0; builder qc out/train --out out/qc || __rc=$?; __docs_expect 1 $__rc 3")


def test_console_prompts_and_directives():
    page = "\n".join([
        "<!-- docs-test: exit 2 -->",
        "```console",
        "$ builder evaluate prompts x \\",
        "    --out out/p",
        "error: something",
        "```",
        "",
        '<!-- docs-test: skip "pip install" (installs packages) -->',
        "```sh",
        "pip install -e . && builder --help",
        "```",
        "<!-- docs-test: skip (needs a cluster) -->",
        "```shell",
        "ray start --head",
        "```",
        "```",
        "builder qc DATASET [--config FILE]",
        "```",
    ])
    blocks = fenced_blocks(page, "p.md")
    assert [b.lang for b in blocks] == ["console", "sh", "shell", ""]
    first, second, third, _ = blocks
    assert first.expect == 2 and [c.line for c in commands(first)] == [3]
    text, prelude = script(second)
    assert text.splitlines()[prelude] == "builder --help"
    assert second.skipped == [(10, "pip install -e .", "installs packages")]
    assert third.skip_reason == "needs a cluster"
    assert [b.where for b in unlabelled_command_blocks(page, "p.md")] == ["p.md:16"]


def test_a_failing_command_names_its_page_line(tmp_path):
    page = "\n".join(["# t", "", "```bash", "true", "false  # not expected", "```"])
    (block,) = shell_blocks(page, "p.md")
    text, _ = script(block)
    (tmp_path / "b.sh").write_text(text)
    proc = subprocess.run(["bash", str(tmp_path / "b.sh")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "__docs_test__: line 5 exited 1" in proc.stderr


def test_writes_outside_out_are_caught(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "a.tsv").write_text("x\n")
    (tmp_path / "README.md").write_text("r\n")
    copied = {"tests/a.tsv": _sha256(tmp_path / "tests" / "a.tsv"), "README.md": _sha256(tmp_path / "README.md")}
    (tmp_path / "out" / "train").mkdir(parents=True)
    (tmp_path / "out" / "train" / "train.jsonl").write_text("{}\n")  # where the docs write: fine
    assert _changed_outside_out(tmp_path, copied) == []
    (tmp_path / "tests" / "a.tsv").write_text("y\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "r.csv").write_text("1\n")
    (tmp_path / "README.md").unlink()
    assert _changed_outside_out(tmp_path, copied) == ["new: results/r.csv", "changed: tests/a.tsv", "removed: README.md"]


def test_needs_and_unknown_directives():
    (block,) = shell_blocks("<!-- docs-test: needs lm_eval (the lmeval extra) -->\n```bash\nlm_eval run\n```\n", "p.md")
    assert block.needs == ["lm_eval"]
    with pytest.raises(ValueError, match="p.md:1: unknown docs-test directive"):
        shell_blocks("<!-- docs-test: skipp (typo) -->\n```bash\ntrue\n```\n", "p.md")
