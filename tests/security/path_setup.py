"""Setup steps of the ``path_`` cases: inputs whose names or values would become paths outside ``--out``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

DATA = Path(__file__).parents[1] / "data"


def _mc_with_language(work: Path, language: str) -> Path:
    """A copy of the exported MC sample (its manifest left out: the change is the attack, not an alteration)
    whose first dev record claims the variant ``language``."""
    folder = work / "mc"
    folder.mkdir()
    for name in ("train.jsonl", "dev.jsonl"):
        rows = [json.loads(line) for line in (DATA / "export" / "mc_small" / name).read_text().splitlines()]
        if name == "dev.jsonl":
            rows[0]["language"] = language
        (folder / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return folder


def language_dotdot(work: Path, subs) -> None:
    _mc_with_language(work, "../escaped")


def language_deep_dotdot(work: Path, subs) -> None:
    _mc_with_language(work, "../../../x")


def language_absolute(work: Path, subs) -> None:
    _mc_with_language(work, str(work.parent / "absolute-escape"))


def variant_folder_dotdot_link(work: Path, subs) -> None:
    """A topic dataset one of whose variant folders is a symbolic link to a folder outside it."""
    root = work / "sib"
    shutil.copytree(DATA / "export" / "sib_small", root, symlinks=True)
    (root / "manifest.json").unlink(missing_ok=True)
    outside = work / "outside"
    shutil.move(str(root / "hin_Latn"), outside)
    (root / "hin_Latn").symlink_to(outside, target_is_directory=True)


def release_assembly_name(work: Path, subs) -> None:
    """A release over an assembly recipe whose name is a path up out of the release folder."""
    src = DATA / "sources"
    recipe = {"name": "x/../../../../escaped", "seed": 0,
              "sources": [{"name": "SciQ", "reader": "sciq", "path": str(src / "sciq"),
                           "splits": {"train": "train", "valid": "dev"}}]}
    (work / "assembly.json").write_text(json.dumps(recipe))  # JSON is YAML
    release = {"version": 1, "name": "escape", "license": "CC-BY-SA-4.0", "pivot": "eng_Latn",
               "variants": [{"assemble": "assembly.json"}]}
    (work / "release.yaml").write_text(json.dumps(release))


def release_out_inside_dataset(work: Path, subs) -> None:
    """A release whose ``dataset:`` entry is a folder that ``--out`` lies inside."""
    shutil.copytree(DATA / "sib200" / "annotated", work / "annotated")
    release = {"version": 1, "name": "inside", "license": "CC-BY-SA-4.0", "pivot": "hin_Deva",
               "variants": [{"dataset": "annotated", "only": ["hin_Deva"]}]}
    (work / "release.yaml").write_text(json.dumps(release))


def _sib_with_folder_name(work: Path, name: str) -> None:
    root = work / "sib"
    shutil.copytree(DATA / "export" / "sib_small", root)
    (root / "manifest.json").unlink(missing_ok=True)
    (root / "hin_Latn").rename(root / name)


def folder_name_yaml_keys(work: Path, subs) -> None:
    """A variant folder whose name carries a newline and YAML keys (it would inject ``task:`` and
    ``dataset_kwargs`` into an lm-eval task file written by string formatting)."""
    _sib_with_folder_name(work, "v\ntask: owned\ndataset_path: x")


def folder_name_yaml_comment(work: Path, subs) -> None:
    """A variant folder named ``a: b #c`` (it broke the task YAML)."""
    _sib_with_folder_name(work, "a: b #c")
