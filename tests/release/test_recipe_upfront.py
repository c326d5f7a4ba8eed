"""Issue 26, "recipe errors found late": every value of a release recipe, and every file it points to, is
validated before the first stage runs, with one error naming the recipe file and the key path.

The accepted values come from the owner each stage asks (the split-ratio rule, the adjudication
policies, the romanization table, the baseline and n-gram-unit registries, the license registry), so
these tests also check that the recipe accepts exactly what the stage does. The hostile-input corpus
(``tests/data/hostile/recipe_*``) runs the same mistakes through the CLI.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from builder.cli.main import cli
from builder.release.plan import make_plan
from builder.release.recipe import load_release_recipe, release_from_dict, unknown_value
from schemas.errors import RecipeError, ToolkitError

ROOT = Path(__file__).resolve().parents[2]
MINI = ROOT / "tests" / "data" / "release" / "mini-release.yaml"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def mini() -> dict:
    return yaml.safe_load(MINI.read_text(encoding="utf-8"))


def _with(data: dict, path: str, value) -> dict:
    """A deep copy of ``data`` with the value at the dotted ``path`` (``variants.0.annotation.policy``) set."""
    out = copy.deepcopy(data)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = out
    for p in parents:
        node = node[p]
    node[last] = value
    return out


def _romanized(data: dict, entry: dict) -> dict:
    out = copy.deepcopy(data)
    out["variants"].append({"romanize": entry})
    return out


def _error(data: dict, file: Path = MINI) -> ToolkitError:
    with pytest.raises(ToolkitError) as info:
        release_from_dict(data, file=file)
    return info.value


# -- each value against what its stage accepts ----------------------------------------------------------------

@pytest.mark.parametrize("path, value, field, message", [
    ("variants.0.annotation.split.ratios", [float("inf"), 0, 0], "variants[0].annotation.split.ratios",
     "summing to 1, found inf, 0, 0"),
    ("variants.0.annotation.split.ratios", [0.5, 0.5, 0.5], "variants[0].annotation.split.ratios", "summing to 1"),
    ("variants.0.annotation.split.ratios", [-0.2, 0.6, 0.6], "variants[0].annotation.split.ratios",
     "non-negative"),
    ("variants.0.annotation.split.ratios", [float("nan"), 0.5, 0.5], "variants[0].annotation.split.ratios",
     "ratios must be three non-negative numbers (train, dev, test) summing to 1, found nan"),
    ("variants.0.annotation.split.ratios", ["0.7", 0.1, 0.2], "variants[0].annotation.split.ratios",
     "expected three shares"),
    ("variants.0.annotation.policy", "consensus", "variants[0].annotation.policy",
     "unknown adjudication policy 'consensus'; known: sib200, plurality, absolute, unanimous"),
    ("variants.0.annotation.format", "tall", "variants[0].annotation.format", "unknown format 'tall'; known: auto"),
    ("variants.0.annotation.license", "CC-BY", "variants[0].annotation.license", "unknown license id 'CC-BY'"),
    ("variants.1.extend.license", "GPL-3.0", "variants[1].extend.license", "unknown license id 'GPL-3.0'"),
    ("variants.1.extend.from", "../eng_Latn", "variants[1].extend.from", ""),
    ("license", "CC-BY-SA", "license", "unknown license id 'CC-BY-SA'; known: CC-BY-SA-4.0"),
    ("export.license", "CC-BY-SA-5.0", "export.license", "unknown license id 'CC-BY-SA-5.0'"),
    ("baselines.names", ["majority", "char_tfidif"], "baselines.names[1]", "unknown baseline 'char_tfidif'"),
    ("baselines.ngram_unit", "byte", "baselines.ngram_unit", "unknown n-gram unit 'byte'; known: char, word"),
    ("name", "../escaped", "name", "release name '../escaped' cannot be a file name"),
    ("name", "a\u202eb", "name", "control or format character U+202E"),
    ("name", "release name", "name", "cannot be a file name: it contains ' '"),
])
def test_a_value_its_stage_refuses_is_one_error_naming_the_file_and_key(mini, path, value, field, message):
    err = _error(_with(mini, path, value))
    assert err.file == str(MINI) and err.field == field, str(err)
    assert message in err.message
    assert "\n" not in str(err) and len(str(err)) < 300


def test_the_known_values_come_from_the_stages_own_owners():
    from annotation.adjudicate import POLICIES
    from builder.evaluation.topic_baselines import NGRAM_UNITS
    from schemas.license_registry import known_ids

    data = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    for policy in POLICIES:  # every policy the adjudication accepts, the recipe accepts
        assert release_from_dict(_with(data, "variants.0.annotation.policy", policy), file=MINI)
    for unit in NGRAM_UNITS:
        assert release_from_dict(_with(data, "baselines.ngram_unit", unit), file=MINI).baselines.ngram_unit == unit
    for lic in known_ids():
        assert release_from_dict(_with(data, "export.license", lic), file=MINI).export.license == lic


@pytest.mark.parametrize("entry, field, message", [
    ({"from": "hin_Deva", "scheme": "iast2"}, "variants[3].romanize.scheme",
     "unknown scheme 'iast2' for script Deva; known: iso, iast, hk, itrans"),
    ({"from": "hin_Deva", "scheme": "uroman"}, "variants[3].romanize.scheme", "unknown scheme 'uroman'"),
    ({"from": "nqo_Nkoo"}, "variants[3].romanize.from", "unknown script to romanize 'Nkoo' (nqo_Nkoo)"),
])
def test_a_romanization_the_stage_cannot_do_is_refused_up_front(mini, entry, field, message):
    err = _error(_romanized(mini, entry))
    assert err.field == field and message in err.message, str(err)


def test_every_scheme_of_the_script_is_accepted(mini):
    from builder.variants.romanize import ROMANIZATION

    for scheme in ROMANIZATION["Deva"].schemes:
        recipe = release_from_dict(_romanized(mini, {"from": "hin_Deva", "scheme": scheme}), file=MINI)
        assert recipe.variants[-1].scheme == scheme


def test_a_baseline_of_the_other_kind_is_refused_when_the_plan_knows_the_kind(mini, tmp_path):
    recipe = release_from_dict(_with(mini, "baselines.names", ["majority", "bow_lr"]), file=MINI)
    with pytest.raises(RecipeError) as info:
        make_plan(recipe, tmp_path / "out", jobs=1)
    assert info.value.field == "baselines.names[1]" and info.value.file == str(MINI)
    assert "'bow_lr' is for multiple-choice data, this release holds topic data" in info.value.message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("recipe, before, after, field, code, first", [
    # a dataset entry listing a variant that an earlier entry aligned
    (MINI, [], [{"dataset": "../sib200/annotated", "only": ["hin_Deva", "eng_Latn"]}], "variants[3].dataset",
     "hin_Deva", "aligned to eng_Latn (hin_Deva)"),
    # an extension into a variant that an earlier entry made
    (MINI, [], [{"extend": {"variant": "hin_Deva", "from": "eng_Latn", "parallel": [
        "../sib200/flores-raw/nqo_Nkoo.dev", "../sib200/flores-raw/nqo_Nkoo.devtest"]}}], "variants[3].extend",
     "hin_Deva", "aligned to eng_Latn (hin_Deva)"),
    # a romanization into a variant that a dataset entry already gave
    (MINI, [], [{"dataset": "../export/sib_small", "only": ["hin_Latn"]}, {"romanize": {"from": "hin_Deva"}}],
     "variants[4].romanize.from", "hin_Latn", "dataset folder hin_Latn"),
    # the same entry twice, whose stages would have the same name: refused at the second, not at its stage
    (MINI, [], [{"romanize": {"from": "hin_Deva"}}, {"romanize": {"from": "hin_Deva"}}],
     "variants[4].romanize.from", "hin_Latn", "romanized from hin_Deva"),
    (MINI, [], [{"extend": {"variant": "nqo_Nkoo", "from": "eng_Latn", "parallel": [
        "../sib200/flores-raw/nqo_Nkoo.dev", "../sib200/flores-raw/nqo_Nkoo.devtest"]}}], "variants[3].extend",
     "nqo_Nkoo", "projected from eng_Latn"),
    (MINI, [], [{"dataset": "../sib200/annotated", "only": ["hin_Deva"], "align": "pivot"}], "variants[3].dataset",
     "hin_Deva", "aligned to eng_Latn (hin_Deva)"),
    (MINI, [], [{"annotation": {"variant": "eng_Latn", "labelled": "../sib200/eng_14",
                                "curation": "../../../examples/sib200-curation.yaml"}}], "variants[3].annotation",
     "eng_Latn", "annotation (curated and split)"),
    # an assembly whose recipe's language a dataset entry before it already gave (the assembly is the second)
    (EXAMPLES / "belebele-train-release.yaml", [{"dataset": "../tests/data/sib200/annotated", "only": ["eng_Latn"]}],
     [], "variants[1].assemble", "eng_Latn", "dataset folder eng_Latn"),
])
def test_a_variant_made_twice_is_refused_naming_the_second_entry_and_the_first_maker(recipe, before, after, field,
                                                                                     code, first, tmp_path):
    data = yaml.safe_load(recipe.read_text(encoding="utf-8"))
    data["variants"] = before + data["variants"] + after
    with pytest.raises(RecipeError) as info:
        make_plan(release_from_dict(data, file=recipe), tmp_path / "out", jobs=1)
    assert (info.value.field, info.value.file) == (field, str(recipe))
    assert info.value.message == f"variant {code} is made twice (first by {first})"
    assert not (tmp_path / "out").exists()


# -- the files the recipe points to, read by their own loaders ------------------------------------------------

def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _absolute(text: str) -> str:
    """The mini recipe's text with its relative paths made absolute, so a copy works from any folder."""
    return re.sub(r"\.\./[^\s,\]]+", lambda m: str((MINI.parent / m.group(0)).resolve()), text)


def test_a_bad_curation_recipe_is_found_before_any_stage(mini, tmp_path):
    bad = _write(tmp_path, "curation.yaml", "steps:\n  - min_count: -1\n")
    err = _error(_with(mini, "variants.0.annotation.curation", str(bad)))
    assert err.file == str(bad) and err.field == "steps[0].min_count"


def test_a_bad_qc_config_is_found_before_any_stage(mini, tmp_path):
    bad = _write(tmp_path, "qc.yaml", "version: 2\nchekcs: {}\n")
    err = _error(_with(mini, "qc", {"config": str(bad)}))
    assert err.file == str(bad) and "chekcs" in str(err)


def test_a_bad_extend_checks_config_is_found_before_any_stage(mini, tmp_path):
    bad = _write(tmp_path, "checks.yaml", "colour: red\n")
    data = _with(mini, "variants.1.extend.config", str(bad))
    err = _error(data)
    assert err.file == str(bad) and "colour" in str(err)


def _assembly(tmp_path: Path, name: str) -> Path:
    data = yaml.safe_load((EXAMPLES / "belebele-train.yaml").read_text(encoding="utf-8"))
    data["name"] = name
    for source in data["sources"]:
        source["path"] = str((EXAMPLES / source["path"]).resolve())
    return _write(tmp_path, "assembly.yaml", yaml.safe_dump(data))


def test_a_bad_assembly_recipe_is_found_before_any_stage(tmp_path):
    bad = _write(tmp_path, "assembly.yaml", "name: x\nsources: []\nsede: 1\n")
    err = _error({"version": 1, "name": "r", "pivot": "eng_Latn", "variants": [{"assemble": str(bad)}]})
    assert err.file == str(bad) and "sede" in str(err)


def test_an_assembly_recipe_name_that_is_a_path_is_refused_naming_that_file(tmp_path):
    recipe = _assembly(tmp_path, "../../escaped")
    err = _error({"version": 1, "name": "r", "pivot": "eng_Latn", "variants": [{"assemble": str(recipe)}]})
    assert err.file == str(recipe) and err.field == "name"
    assert "recipe name '../../escaped' cannot be a file name" in err.message


def test_a_good_assembly_recipe_still_plans(tmp_path):
    recipe = _assembly(tmp_path, "belebele-train")
    spec = release_from_dict({"version": 1, "name": "r", "pivot": "eng_Latn", "variants": [{"assemble": str(recipe)}]},
                             file=tmp_path / "release.yaml")
    plan = make_plan(spec, tmp_path / "out", jobs=1)
    assert plan.stages[0].name == "assemble-belebele-train"


# -- duplicate keys, and the order: nothing is written before everything is checked ---------------------------

def test_a_second_variants_key_is_refused(tmp_path):
    text = MINI.read_text(encoding="utf-8") + "variants:\n  - dataset: ../sib200/annotated\n"
    bad = _write(tmp_path, "r.yaml", _absolute(text))
    with pytest.raises(ToolkitError) as info:
        load_release_recipe(bad)
    assert info.value.file == str(bad) and info.value.field == "variants"
    assert "duplicate key 'variants'" in info.value.message


def test_a_merged_key_is_overridden_by_the_explicit_one_as_yaml_defines(tmp_path):
    """A merge key (``<<``) gives defaults, and a key written in the mapping overrides them: that is what
    YAML's merge means, not a repeated key (two explicit ``variants:`` are refused, above)."""
    text = MINI.read_text(encoding="utf-8").replace("variants:", "<<: {variants: [{dataset: x}]}\nvariants:", 1)
    spec = load_release_recipe(_write(tmp_path, "r.yaml", _absolute(text)))
    assert [src.kind for src in spec.variants] == ["annotation", "extend", "dataset"]


def test_a_bad_recipe_leaves_no_release_folder_through_the_cli(mini, tmp_path):
    bad = _write(tmp_path, "r.yaml", yaml.safe_dump(_romanized(mini, {"from": "hin_Deva", "scheme": "iast2"})))
    bad.write_text(_absolute(bad.read_text(encoding="utf-8")), encoding="utf-8")
    res = CliRunner().invoke(cli, ["-q", "release", str(bad), "--out", str(tmp_path / "out")])
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 1 and len(lines) == 1, res.stderr
    assert lines[0].startswith(f"error: {bad}, field variants[3].romanize.scheme: unknown scheme 'iast2'")
    assert not (tmp_path / "out").exists()


def test_a_bad_from_stage_stops_before_the_release_folder_is_made(tmp_path):
    res = CliRunner().invoke(cli, ["-q", "release", str(MINI), "--out", str(tmp_path / "out"), "--from", "nosuch"])
    assert res.exit_code == 2 and "--from nosuch: no such stage" in res.stderr
    assert not (tmp_path / "out").exists()


def test_the_example_recipes_pass_every_check(tmp_path):
    for name in ("sib200-release.yaml", "belebele-train-release.yaml"):
        plan = make_plan(load_release_recipe(EXAMPLES / name), tmp_path / name, jobs=1)
        assert plan.stages and not (tmp_path / name).exists()


def test_an_unknown_value_message_stays_short():
    from schemas.license_registry import known_ids

    text = unknown_value("license id", "x" * 500, known_ids())
    assert len(text) < 200 and text.endswith(f"({len(known_ids())} in all)")


@pytest.mark.parametrize("seed", [None, 7])
def test_the_assemble_stage_records_its_recipe_sources_and_seed_and_runs_the_assembly_with_them(
        tmp_path, monkeypatch, seed):
    """The skip check compares a stage's inputs and options: the assembly recipe, each source's folder and
    the seed must be among them, or a changed seed or source would be skipped as up to date (issue 27:
    the whole mutation run left them free to change). The action runs the assembly with that seed, the
    release's workers, and errors raised (a release never skips bad records silently)."""
    from builder.tasks import assemble as task
    from builder.tasks.base import QUIET, TaskResult

    recipe = _assembly(tmp_path, "belebele-train")
    entry = {"assemble": str(recipe)} if seed is None else {"assemble": str(recipe), "seed": seed}
    spec = release_from_dict({"version": 1, "name": "r", "pivot": "eng_Latn", "variants": [entry]},
                             file=tmp_path / "release.yaml")
    plan = make_plan(spec, tmp_path / "out", jobs=3)
    [st] = [s for s in plan.stages if s.name.startswith("assemble-")]
    sources = yaml.safe_load(recipe.read_text(encoding="utf-8"))["sources"]
    assert st.inputs == {"recipe": recipe, **{f"source:{s['name']}": Path(s["path"]) for s in sources}}
    assert st.options == {"seed": seed}
    v = plan.variants["eng_Latn"]
    assert (v.folder, v.origin, v.assembled, v.kind) == (st.output, "assembled (belebele-train)", True, "mc")

    seen = {}

    def fake(options, report):
        seen.update(options=options, report=report)
        return TaskResult(lines=["assembled 3 rows"])

    monkeypatch.setattr(task, "run_assemble", fake)
    facts = st.action(tmp_path / "o")
    o = seen["options"]
    assert (o.recipe, o.out, o.on_error, o.seed, o.jobs) == (recipe, tmp_path / "o", "raise", seed, 3)
    assert seen["report"] is not QUIET  # the release's reporter (stderr lines), not a silent default
    assert facts == {"drops": [], "warnings": []}


@pytest.mark.parametrize("at, made", [(0, "none yet"), (1, "eng_Latn"), (2, "eng_Latn, nqo_Nkoo")])
def test_an_entry_that_uses_a_variant_no_earlier_entry_makes_names_those_made_so_far(at, made, tmp_path):
    data = yaml.safe_load(MINI.read_text(encoding="utf-8"))
    data["variants"].insert(at, {"romanize": {"from": "hin_Deva"}})
    with pytest.raises(RecipeError) as info:
        make_plan(release_from_dict(data, file=MINI), tmp_path / "out", jobs=1)
    assert (info.value.field, info.value.file) == (f"variants[{at}].romanize.from", str(MINI))
    assert info.value.message == f"variant hin_Deva is not made by an earlier entry (made so far: {made})"
