"""lm-eval task files with hostile names, labels and paths (issue 26): data stays data.

Every YAML file is written by the serializer, so a value holding a newline,
``a: b #c``, ``!function x`` or a quote is read back as that one string; the
labels reach the prompt only through :func:`builder.export.lmeval.jinja_text`,
so lm-eval's Jinja renders them as written (``{{ 7*7 }}``, never ``49``). The
names themselves are refused earlier (:func:`schemas.names.check_name`); these
tests call the writers directly, as if a hostile string had got through.
"""
from __future__ import annotations

import os
from pathlib import Path

import jinja2
import jinja2.sandbox
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from builder.export.lmeval import (HEADER, HOOK, dump, group_yaml, jinja_text, task_yaml, topic_prompt,
                                   topic_settings, topic_template, write_lm_eval)
from schemas.errors import OutputError

HOSTILE = [
    "{{ 7*7 }}",
    "{% for i in range(3) %}x{% endfor %}",
    "{# c #}",
    "{% raw %}{{ 7*7 }}{% endraw %}",
    "{% endraw %}{{ 7*7 }}",
    "}}{{ 7*7 }}{{",
    "x' ~ 7*7 ~ '",
    'x" ~ 7*7 ~ "',
    "\\' ~ 7*7 ~ \\'",
    "back\\slash\\",
    "{{ '\\x41' }} \\n \\u0042 \\N{BULLET}",
    "a: b #c",
    "!function os.system",
    "&a [*a, *a]",
    "- item",
    "yes",
    "~",
    "null",
    "1.0",
    "line\ntask: evil",
    "cr\rlf\r\n",
    "tab\there",
    "\x00nul\x1b[2J\x07",
    "\u2028\u2029\x85",
    "\ufeffbom",
    "\u202eright-to-left",
    "खेल {{ 7*7 }}",
    "日本語 😀",
    "  padded  ",
    "",
    "#",
    "%",
]


def _render(source: str, doc: dict | None = None) -> str:
    """``source`` rendered by lm-eval's own Jinja environment (``lm_eval.utils.apply_template``)."""
    try:
        from lm_eval.utils import apply_template
    except ImportError as err:  # as test_export_lmeval.py: fail under CI, skip elsewhere
        if os.environ.get("CI"):
            pytest.fail(f"lm-eval is needed for this test ({err})")
        pytest.skip(f"lm-eval is needed for this test ({err}); install it with pip install -e '.[test,lmeval]'")
    return apply_template(source, doc or {})


#: Environments other consumers might render a template with (Jinja's defaults, the sandbox, line statements).
ENVIRONMENTS = [jinja2.Environment(), jinja2.Environment(keep_trailing_newline=True),
                jinja2.sandbox.SandboxedEnvironment(keep_trailing_newline=True),
                jinja2.Environment(line_statement_prefix="#", line_comment_prefix="%%", keep_trailing_newline=True)]


def _load(text: str) -> dict:
    """The YAML as lm-eval reads it (the C loader where PyYAML has it), the ``!function`` tag kept as text."""
    base = yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.SafeLoader

    class Loader(base):
        pass

    Loader.add_constructor("!function", lambda loader, node: ("!function", loader.construct_scalar(node)))
    assert text.startswith(HEADER)
    return yaml.load(text, Loader=Loader)  # noqa: S506 - a safe loader with one more tag


# -- the serializer ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", HOSTILE)
def test_dump_reads_back_the_same_string(value):
    text = dump({"task": value, "list": [value], "nested": {value: value}})
    assert yaml.safe_load(text) == {"task": value, "list": [value], "nested": {value: value}}
    assert _load(HEADER + text)["task"] == value


def test_dump_writes_no_anchor_or_tag():
    shared = {"sampler": "first_n"}
    text = dump({"a": shared, "b": shared, "c": ["!function x", "&a", "*a"]})
    assert "&id" not in text and "*id" not in text and "!!" not in text
    assert yaml.safe_load(text) == {"a": shared, "b": shared, "c": ["!function x", "&a", "*a"]}


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_dump_round_trips_any_text(value):
    assert _load(HEADER + dump({"task": value, "choices": [value, "x"]})) == {"task": value, "choices": [value, "x"]}


@pytest.mark.parametrize("value", HOSTILE)
def test_task_yaml_keeps_every_value_one_string(value):
    doc = _load(task_yaml(value, value, {value or "test": value}, hub_repo=None, data_root=None))
    assert doc == {"include": value, "task": value, "dataset_kwargs": {"data_files": {value or "test": f"../{value}"}},
                   "test_split": value or "test", "fewshot_split": value or "test"}
    doc = _load(task_yaml("t", "_t", {"test": "v/test.parquet"}, data_root=value + "/"))
    assert doc["dataset_kwargs"]["data_files"] == {"test": f"{value}/v/test.parquet"}
    assert set(doc) == {"include", "task", "dataset_path", "dataset_kwargs", "test_split", "fewshot_split"}
    doc = _load(task_yaml("t", "_t", {"test": "v/test.parquet"}, hub_repo="org/" + value, config=value))
    assert (doc["dataset_path"], doc["dataset_name"]) == ("org/" + value, value)
    assert set(doc) == {"include", "task", "dataset_path", "dataset_name", "test_split", "fewshot_split"}


def test_a_variant_with_a_newline_injects_no_key():
    variant = "hin_Deva\ntask: evil\ndataset_kwargs:\n  data_files: {test: /etc/passwd}"
    doc = _load(task_yaml(f"demo_{variant}", "_demo_template_yaml", {"test": f"{variant}/test.parquet"}))
    assert doc["task"] == f"demo_{variant}"
    assert doc["dataset_kwargs"] == {"data_files": {"test": f"../{variant}/test.parquet"}}
    comment = _load(task_yaml("demo_a: b #c", "_t", {"test": "a: b #c/test.parquet"}))
    assert comment["task"] == "demo_a: b #c"
    assert comment["dataset_kwargs"]["data_files"]["test"] == "../a: b #c/test.parquet"


@pytest.mark.parametrize("value", HOSTILE)
def test_group_yaml_keeps_every_value_one_string(value):
    doc = _load(group_yaml(value, [value, f"{value}_2"]))
    assert doc["group"] == value and doc["task"] == [value, f"{value}_2"]
    assert set(doc) == {"group", "task", "aggregate_metric_list", "metadata"}


# -- the prompt -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", HOSTILE)
def test_jinja_text_renders_as_written(value):
    assert _render(jinja_text(value)) == value
    assert _render("a " + jinja_text(value) + " b {{text}}", {"text": "T"}) == f"a {value} b T"


@pytest.mark.parametrize("env", ENVIRONMENTS, ids=["default", "trailing-newline", "sandbox", "line-statements"])
@pytest.mark.parametrize("value", HOSTILE)
def test_jinja_text_is_inert_in_other_environments(env, value):
    rendered = env.from_string("<" + jinja_text(value) + ">").render()
    assert rendered == f"<{value}>"


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_jinja_text_renders_any_text(value):
    assert _render(jinja_text(value)) == value


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("{}%#'\"\\ ~7*x\n\r-+()[]"), max_size=40))
def test_jinja_text_renders_jinja_syntax(value):
    assert _render("{{a}}" + jinja_text(value) + "{{a}}", {"a": "|"}) == f"|{value}|"


def test_plain_labels_stand_as_themselves():
    assert topic_prompt(["science/technology", "travel"]) == (
        "Is this a piece of news regarding science/technology, or travel?\n{{text}}\nAnswer:")
    assert topic_prompt(["sports"]) == "Is this a piece of news regarding sports?\n{{text}}\nAnswer:"
    prompt = topic_prompt(["राजनीति", "खेल"])
    assert prompt.startswith("Is this a piece of news regarding राजनीति, or खेल?")


def _expected(labels: list[str], text: str) -> str:
    listed = ", ".join(labels[:-1]) + f", or {labels[-1]}" if len(labels) > 1 else "".join(labels)
    return f"Is this a piece of news regarding {listed}?\n{text}\nAnswer:"


@pytest.mark.parametrize("value", HOSTILE)
def test_topic_template_keeps_a_hostile_label_data(value):
    labels = ["travel", value, "sports"]
    tmpl = _load(HEADER + topic_template(labels))
    assert tmpl["doc_to_choice"] == labels and all(type(x) is str for x in tmpl["doc_to_choice"])
    assert tmpl["doc_to_target"] == "category" and "custom_dataset" not in tmpl
    doc = {"text": "{{ 6*7 }} in the text", "category": 1}
    assert _render(tmpl["doc_to_text"], doc) == _expected(labels, doc["text"])
    assert tmpl == {**topic_settings(labels)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1), min_size=1, max_size=6))
def test_topic_prompt_renders_any_labels(labels):
    tmpl = _load(HEADER + topic_template(labels))
    assert tmpl["doc_to_choice"] == labels
    assert _render(tmpl["doc_to_text"], {"text": "T"}) == _expected(labels, "T")


def test_no_labels_is_no_crash():
    assert _render(topic_prompt([]), {"text": "T"}) == _expected([], "T")


# -- the files --------------------------------------------------------------------------------------------

def _topic_split(path: Path, labels: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"index_id": [1, 2, 3], "category": [0, 1, len(labels) - 1],
                  "text": ["one {{ 7*7 }}", "two", "three"]}).to_parquet(path)


@pytest.mark.parametrize("variant", ["hin_Deva", "a: b #c", "x\ntask: evil", "{{ 7*7 }}", "'q' \"q\" ~"])
def test_write_lm_eval_keeps_names_and_labels_data(tmp_path, variant):
    labels = ["{{ 7*7 }}", "!function os.system", "x' ~ 7*7 ~ '", "a: b #c\nnext: line"]
    files = {variant: {"test": f"{variant}/test.parquet", "dev": f"{variant}/dev.parquet"}}
    written, tasks = write_lm_eval(tmp_path / "lm_eval", name="demo", kind="topic", files=files, labels=labels)
    assert tasks == [f"demo_{variant}"]
    assert sorted(p.name for p in (tmp_path / "lm_eval").iterdir()) == written
    tmpl_text = (tmp_path / "lm_eval" / "_demo_template_yaml").read_text(encoding="utf-8")
    assert tmpl_text.startswith(HEADER + HOOK)  # the one constant line, right after the header
    tmpl = _load(tmpl_text)
    assert tmpl["custom_dataset"] == ("!function", "_builder_data.load") and tmpl["doc_to_choice"] == labels
    assert [key for key, value in tmpl.items() if isinstance(value, tuple)] == ["custom_dataset"]  # the one tag
    assert _render(tmpl["doc_to_text"], {"text": "T"}) == _expected(labels, "T")
    task = _load((tmp_path / "lm_eval" / f"demo_{variant}.yaml").read_text(encoding="utf-8"))
    assert task == {"include": "_demo_template_yaml", "task": f"demo_{variant}",
                    "dataset_kwargs": {"data_files": {s: f"../{variant}/{s}.parquet" for s in ("test", "dev")}},
                    "test_split": "test", "fewshot_split": "dev"}
    group = _load((tmp_path / "lm_eval" / "_demo.yaml").read_text(encoding="utf-8"))
    assert group["group"] == "demo" and group["task"] == [f"demo_{variant}"]


def test_lm_eval_loads_hostile_variants_and_renders_the_labels(tmp_path):
    """The whole way: lm-eval's TaskManager reads the files, loads the Parquet through the hook and renders."""
    try:
        from lm_eval.tasks import TaskManager
    except ImportError as err:
        if os.environ.get("CI"):
            pytest.fail(f"lm-eval is needed for this test ({err})")
        pytest.skip(f"lm-eval is needed for this test ({err})")
    labels = ["{{ 7*7 }}", "{% for i in range(3) %}x{% endfor %}", "x' ~ 7*7 ~ '", "}}{% raw %}\\{{ 7*7 }}"]
    variants = ["a: b #c", "hin_Deva"]
    files = {}
    for variant in variants:
        files[variant] = {s: f"{variant}/{s}.parquet" for s in ("test", "dev")}
        for split in ("test", "dev"):
            _topic_split(tmp_path / variant / f"{split}.parquet", labels)
    _, tasks = write_lm_eval(tmp_path / "lm_eval", name="demo", kind="topic", files=files, labels=labels)
    tm = TaskManager(include_path=str(tmp_path / "lm_eval"), include_defaults=False)
    loaded = tm.load(["demo"])["tasks"] if hasattr(tm, "load") else __import__(
        "lm_eval.tasks", fromlist=["get_task_dict"]).get_task_dict(["demo"], tm)
    assert sorted(loaded) == sorted(tasks) == [f"demo_{v}" for v in sorted(variants)]
    for task in loaded.values():
        for doc in task.test_docs():
            assert task.doc_to_text(doc) == _expected(labels, doc["text"])
            assert task.doc_to_choice(doc) == labels
        assert "49" not in task.fewshot_context(task.test_docs()[1], num_fewshot=1)


@pytest.mark.parametrize("name", ["../escaped", "a/b", "x\\y", "nul\x00"])
def test_a_name_that_would_leave_the_folder_is_refused(tmp_path, name):
    with pytest.raises(OutputError, match="one file name"):
        write_lm_eval(tmp_path / "lm_eval", name=name, kind="mc", files={"v": {"test": "v/test.parquet"}})
    assert not (tmp_path / "escaped").exists() and not list((tmp_path / "lm_eval").iterdir())
    with pytest.raises(OutputError, match="one file name"):
        write_lm_eval(tmp_path / "lm_eval", name="ok", kind="mc", files={name: {"test": "v/test.parquet"}})
    assert not list((tmp_path / "lm_eval").iterdir())


@pytest.mark.parametrize("value, source", [
    # letters of any script stay themselves inside the literal; what is escaped takes the shortest escape
    ("é{हि\x1b\x7f\x85\xadÿ", "{{ 'é{हि\\x1b\\x7f\\x85\\xadÿ' }}"),
    ("\u200b\u2028\ue000%", "{{ '\\u200b\\u2028\\ue000%' }}"),
    ("\U000f0000\U000e0001#\U00010000", "{{ '\\U000f0000\\U000e0001#\U00010000' }}"),
    ("a'b\\c", "{{ 'a\\'b\\\\c' }}"),
    ("हिन्दी é ÿ", "हिन्दी é ÿ"),  # nothing to escape: the text itself
])
def test_jinja_text_escapes_only_what_it_must_and_reads_as_the_text(value, source):
    """The task YAML is read by people: a label in Devanagari stays Devanagari, a control, format or
    separator character becomes ``\\xHH`` below U+0100, ``\\uHHHH`` below U+10000, ``\\UHHHHHHHH`` above
    (issue 27: the whole mutation run left the choice free; every choice renders the same)."""
    assert jinja_text(value) == source
    assert _render(source) == value
