"""The count tables of a data card, checked cell by cell (survivors of issue 27's mutation run).

``data_cards.sections`` turns a manifest's read, kept and dropped counts into the Markdown tables that
people read in the card. The section tests check that the tables are there; these check what each cell
holds: the path of a nested count, the "all" row, a bare count, a record without one of the columns, and
the header a section asks for.
"""
from __future__ import annotations

from types import SimpleNamespace

from data_cards.card import (CardContext, SplitTerms, _citation, _description, _fence, _languages, _licenses,
                             _members, _references_cited, _source_references, _structure, _usage,
                             declared_references, front_matter, license_slug, references, render_card, tags)
from data_cards.citations import Reference, cite
from data_cards.sections import (_counts_block, _flatten, _records_table, _skipped, _status, agreement_section,
                                 baselines_section, filters_section, intended_use_section, leftover_lines,
                                 models_section, qc_section, romanization_section, warnings_section)
from qc.result import CheckResult, skipped
from schemas.licensing import LicenseOverride, combine


def test_only_numbers_are_counts_and_a_bool_is_not_one():
    assert list(_flatten({"note": "text", "n": 1, "flag": True, "by": {"split": 2.5}})) == [
        (("n",), 1), (("by", "split"), 2.5)]


def test_a_nested_count_names_its_whole_path_and_a_top_level_one_is_all():
    table = _counts_block({"race": {"train": {"too long": 3}}, "too short": 1234}, ("where", "reason", "records"))
    assert table.splitlines() == [
        "| where | reason | records |",
        "| --- | --- | --- |",
        "| race / train | too long | 3 |",
        "| all | too short | 1,234 |",
    ]


def test_a_bare_count_is_one_row_for_all_under_the_sections_own_header():
    assert _counts_block(5, ("source", "why", "rows")).splitlines() == [
        "| source | why | rows |", "| --- | --- | --- |", "| all |  | 5 |"]
    assert _counts_block({}, ("source", "why", "rows")) is None


def test_records_put_known_columns_first_format_numbers_and_leave_a_missing_cell_empty():
    table = _records_table([{"language": "hin", "variant": "hin_Deva", "kept": 1234},
                            {"variant": "x|y", "kept": None, "dropped": 0.5}])
    assert table.splitlines() == [
        "| variant | language | kept | dropped |",
        "| --- | --- | ---: | ---: |",
        "| hin_Deva | hin | 1,234 |  |",
        "| x\\|y |  |  | 0.500 |",
    ]


def test_a_license_slug_has_no_dash_at_either_end_and_falls_back_to_other():
    assert license_slug("(CC-BY 4.0)") == "cc-by-4.0"
    assert license_slug("§ §") == "other"


# --- the quality-check section: every check counted in one column, or listed as unread -------------------------

def _gate_report():
    """Checks as the gate writes them (:meth:`qc.result.CheckResult.to_dict`): a pass, a failure that gates,
    one that warns, and one skipped on two variants."""
    results = [CheckResult("hin_Deva", "leakage", True, gate=True),
               CheckResult("eng_Latn", "leakage", False, gate=True, reason="12 test items in train"),
               CheckResult("hin_Deva", "balance", False, gate=False, detail="label 3 is 40%"),
               skipped("hin_Deva", "ttest", "needs a pivot"), skipped("urd_Arab", "ttest", "needs a pivot")]
    return {"passed": False, "checks": [r.to_dict() for r in results]}


def test_the_gates_own_report_is_counted_check_by_check():
    assert qc_section(_gate_report()).splitlines() == [
        "Gate: **FAILED**.",
        "",
        "| check | pass | FAIL | WARN | skip |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| leakage | 1 | 1 | 0 | 0 |",
        "| balance | 0 | 0 | 1 | 0 |",
        "| ttest | 0 | 0 | 0 | 2 |",
        "",
        "Failed checks:",
        "",
        "- FAIL `leakage` on `eng_Latn`: 12 test items in train",
        "- WARN `balance` on `hin_Deva`: label 3 is 40%",
        "",
        "Skipped checks (they could not run, so they neither pass nor fail the data):",
        "",
        "- `ttest` on `hin_Deva`, `urd_Arab`: needs a pivot.",
    ]


def test_a_failed_gate_that_was_allowed_says_so():
    lines = qc_section(_gate_report(), failing_allowed=True).splitlines()
    assert lines[:5] == ["Gate: **FAILED**.", "", "This release was exported although the gate failed (`builder "
                         "release --allow-failing-gate`); read the failed checks below before using it.", "",
                         "| check | pass | FAIL | WARN | skip |"]
    assert "This release was exported" not in qc_section({"passed": True, "checks": []}, failing_allowed=True)


def test_reports_of_other_tools_are_read_by_any_of_the_usual_keys():
    # qc_report.json beside the data may come from another tool: checks as a mapping, outcomes as words

    assert [_status(c) for c in (
        {"ok": True}, {"ok": False}, {"ok": False, "gate": False}, {"status": "Passed"}, {"status": " warning "},
        {"status": "FAILED", "gate": True}, {"result": "skip"}, {"result": "error", "gate": 0},
        {"passed": True, "skipped": True}, {"status": "unclear"}, {"gate": True}, {"passed": None})] == [
        "pass", "FAIL", "WARN", "pass", "WARN", "FAIL", "skip", "WARN", "skip", None, None, None]
    text = qc_section({"checks": {"leakage": True, "balance": {"status": "fail", "detail": "skewed"},
                                  "size": {"result": "fine"}}})
    assert text.splitlines()[:5] == [
        "| check | pass | FAIL | WARN | skip |", "| --- | ---: | ---: | ---: | ---: |",
        "| leakage | 1 | 0 | 0 | 0 |", "| balance | 0 | 1 | 0 | 0 |", "| size | 0 | 0 | 0 | 0 |"]
    assert "- FAIL `balance` on `?`: skewed" in text
    assert qc_section({"checks": [{"check": "size", "variant": "v", "passed": False}]}).splitlines()[-1] == \
        "- FAIL `size` on `v`"  # no reason given: none made up


def test_a_check_whose_outcome_cannot_be_read_is_listed_not_dropped():
    text = qc_section({"checks": ["not a check", {"name": "length", "variant": "tha_Thai", "status": "maybe"},
                                  {"id": "script"}, {"passed": True}]})
    assert text.splitlines() == [
        "| check | pass | FAIL | WARN | skip |", "| --- | ---: | ---: | ---: | ---: |",
        "| length | 0 | 0 | 0 | 0 |", "| script | 0 | 0 | 0 | 0 |", "| ? | 1 | 0 | 0 | 0 |", "",
        "Checks whose report gives no outcome this card can read (counted in no column):", "",
        "- `not a check`", "- `length` on `tha_Thai`", "- `script` on `?`"]


def test_a_skipped_check_is_named_by_any_of_its_keys_and_gives_its_reason():
    assert _skipped([{"skipped": True, "name": "a", "reason": "no  pivot\n given", "variant": "x"},
                     {"skipped": True, "id": "b"}, {"skipped": False, "check": "c"}, "text",
                     {"skipped": True, "check": "d", "name": "ignored", "variant": "y", "detail": "why"},
                     {"skipped": True, "variant": "z", "detail": "e"}]) == [
        "- `?` on `z`: e.", "- `a` on `x`: no pivot given.", "- `b` on `?`: no reason given.", "- `d` on `y`: why."]
    many = [{"skipped": True, "check": "t", "variant": f"v{i}", "detail": "d"} for i in range(8)]
    assert _skipped(many) == ["- `t` on `v0`, `v1`, `v2`, `v3`, `v4`, `v5` and 2 more: d."]


# --- the warnings of the variants' own checks ------------------------------------------------------------------

def test_each_warning_is_one_line_with_its_records_and_nothing_else_is_listed():
    eleven = [{"index_id": i} for i in range(11)]
    infos = {
        "zul_Latn": {"checks": {"a_ok": {"status": "ok", "items": [{"index_id": 1}]},
                                "b_dupes": {"status": "warning", "count": 11, "items": eleven}}},
        "amh_Ethi": {"checks": {"length": {"status": "warning", "message": "2 lines\n flagged",
                                           "items": [{"index_id": 5, "z": -3.5, "score": 0.25}, "not a record"]},
                                "script": {"status": "warning"}, "odd": "not a check"}},
        "eng_Latn": "not an info", "fra_Latn": {"checks": ["not", "a", "mapping"]},
        "hin_Deva": {"checks": {"x": {"status": "warning", "items": eleven[:10]}}},
    }
    assert warnings_section(infos).splitlines() == [
        "- `amh_Ethi`, `length`: 2 lines flagged (index_id 5, z = -3.5, score = 0.25).",
        "- `amh_Ethi`, `script`: ? flagged.",
        "- `hin_Deva`, `x`: ? flagged (" + "; ".join(f"index_id {i}" for i in range(10)) + ").",
        "- `zul_Latn`, `b_dupes`: 11 flagged (" + "; ".join(f"index_id {i}" for i in range(10)) + " and 1 more).",
    ]
    assert warnings_section({"eng_Latn": {"checks": {"a": {"status": "ok"}}}}) is None
    assert warnings_section(None) is None


# --- code fences and BibTeX keys -------------------------------------------------------------------------------

def test_a_fence_is_longer_than_any_run_of_backticks_and_at_least_three():
    assert [_fence(t) for t in ("plain", "a `b` c", "``` x", "x ````` y `` z")] == ["```", "```", "````", "``````"]


def test_a_bibtex_key_is_the_first_authors_letters_the_year_and_the_name():
    def key(authors):
        return Reference("demo", authors, 2020, "A title").bibtex().split("{", 1)[1].split(",", 1)[0]

    assert key("O'Brien-Smith, Lee and Wu") == "obriensmith2020demo"
    assert key("NLLB Team") == "nllb2020demo"
    assert key("") == "anon2020demo"
    entry = Reference("demo", "Ng et al.", 2021, "T", venue="ACL 2021").bibtex()
    assert entry.splitlines() == ["@inproceedings{ng2021demo,", "  title = {{T}},", "  author = {Ng and others},",
                                  "  year = {2021},", "  booktitle = {ACL 2021}", "}"]


# --- the assembly's counts, agreement and romanization sections, from every shape they read --------------------

def test_the_filters_section_gives_its_own_headers_and_says_when_nothing_was_dropped():
    assert filters_section({"counts": {"race": {"read": 10}}, "dropped": {}}).splitlines() == [
        "Records per source and stage:", "", "| where | count | records |", "| --- | --- | --- |",
        "| race | read | 10 |", "", "No record was dropped."]
    assert filters_section({"seed": 3, "dropped": []}) == "Seed: 3.\n\nNo record was dropped."
    assert filters_section({"counts": {"race": {"read": 10}}}).splitlines()[-1] == "| race | read | 10 |"
    flat = [{"source": "race", "split": "train", "read": 10, "kept": 8, "dropped": 2}]  # as builder assemble writes
    assert filters_section({"counts": flat}).splitlines()[2:] == [
        "| source | split | read | kept | dropped |", "| --- | --- | ---: | ---: | ---: |",
        "| race | train | 10 | 8 | 2 |"]
    assert [filters_section(m) for m in ({"seed": 1}, {}, None)] == [None, None, None]


def test_the_agreement_section_without_annotators_without_a_value_and_with_an_interval():
    assert agreement_section({"n_items": 1200, "fleiss_kappa": None, "krippendorff_alpha": 0.5,
                              "ci": {"krippendorff_alpha": [0.4, 0.61], "fleiss_kappa": [0.1]}}).splitlines() == [
        "Measured on 1,200 items, ? annotators.", "", "| measure | value | 95% interval |", "| --- | ---: | --- |",
        "| Fleiss' kappa | n/a |  |", "| Krippendorff's alpha (nominal) | 0.500 | [0.400, 0.610] |"]
    # every judged item exported: not a sample; no known measure: the numbers the report has, by key
    assert agreement_section({"n_items": 12, "n_annotators": 3, "note": "x"}, rows=12).splitlines() == [
        "Measured on 12 items, 3 annotators.", "", "| measure | value | 95% interval |", "| --- | ---: | --- |",
        "| n_items | 12 |  |", "| n_annotators | 3 |  |"]
    assert agreement_section({"note": "x"}) is None and agreement_section({}) is None
    assert agreement_section({"n_items": 12, "fleiss_kappa": 0.5}, rows=1004).splitlines()[1:3] == [
        "", "| measure | value | 95% interval |"]


def test_the_romanization_section_reads_each_name_of_the_source_and_lists_leftovers():
    infos = {"a_Latn": {"scheme": "iso", "from": "a_Deva", "native_letters_left": 2},
             "b_Latn": {"tool": "uroman", "parent": "b_Arab", "version": "1.3"},
             "c_Latn": {"tool": "t", "source_language": "c"}, "d_Latn": {"x": 1}, "e_Latn": {"scheme": "s"}}
    assert romanization_section(infos).splitlines() == [
        "| config | from | tool | version | scheme |", "| --- | --- | --- | --- | --- |",
        "| `a_Latn` | `a_Deva` |  |  | iso |", "| `b_Latn` | `b_Arab` | uroman | 1.3 |  |",
        "| `c_Latn` | `c` | t |  |  |", "| `e_Latn` |  |  |  | s |", "",
        "- `a_Latn` was exported with 2 native-script characters left un-romanized (allowed by `allow_leftover`)."]
    assert romanization_section({"d_Latn": {"x": 1}}) is None and romanization_section(None) is None
    assert leftover_lines({"x": {"native_letters_left": True}, "y": {"native_letters_left": 0}, "z": "text",
                           "v": {"native_letters_left": "3"}}) == []
    assert leftover_lines({"w": {"native_letters_left": 1}})[1].startswith("- `w` was exported with 1 native")


# --- how to load the export, and the split lists of the license table --------------------------------------------

def _usage_of(**given):
    return _usage(SimpleNamespace(**{"variants": [], "hub_repo": None, "lm_eval_groups": [],
                                     "lm_eval_data_root": None, **given})).splitlines()


def test_the_usage_loads_the_first_config_from_the_hub_or_the_folder_and_names_where_lm_eval_reads():
    assert _usage_of(variants=["x"]) == [
        'Load one configuration with `datasets.load_dataset("<path to this folder>", "<config>")`:', "",
        "```python", "from datasets import load_dataset", "", 'ds = load_dataset("<path to this folder>", "x")', "```"]
    groups = _usage_of(variants=["hin_Deva", "eng_Latn"], lm_eval_groups=["sib_a", "sib_b"])
    assert groups[5] == 'ds = load_dataset("<path to this folder>", "hin_Deva")'
    assert groups[7:] == [
        "", "The `lm_eval/` folder holds lm-evaluation-harness tasks, one per configuration, in the groups `sib_a`, "
        "`sib_b`; they read the Parquet files of this folder, wherever it is copied:", "", "```bash",
        "lm_eval --model hf --model_args pretrained=<model> --include_path lm_eval --tasks sib_a", "```"]
    hub = _usage_of(hub_repo="org/ds", lm_eval_groups=["g"], lm_eval_data_root="/d")
    assert hub[5] == 'ds = load_dataset("org/ds", "<config>")'
    assert hub[8] == ("The `lm_eval/` folder holds lm-evaluation-harness tasks, one per configuration, in the group "
                      "`g`; they read the data from `org/ds` on the Hub:")
    assert _usage_of(variants=["x"], lm_eval_groups=["g"], lm_eval_data_root="/data/x")[8].endswith(
        "in the group `g`; they read the Parquet files under `/data/x`:")


def test_a_split_list_says_all_when_it_is_all_and_cuts_after_six_of_more_than_eight():
    assert [_members(["a"], 1), _members(["a", "b"], 2), _members(["a", "b"], 3), _members(list("abcdefgh"), 9),
            _members(list("abcdefghi"), 10)] == [
        "`a`", "all 2 splits", "`a`, `b`", "`a`, `b`, `c`, `d`, `e`, `f`, `g`, `h`",
        "`a`, `b`, `c`, `d`, `e`, `f` and 3 more"]


def _cited(names, refs=None, kind="topic", schema="ours", manifest=None):
    """What the card's reference functions read: the credited sources by name, the references given, the build's
    manifest (its readers)."""
    return SimpleNamespace(name="demo", schema=schema, kind=kind, references=refs or {}, manifest=manifest,
                           overall=SimpleNamespace(sources=[SimpleNamespace(name=n) for n in names]))


def test_a_sources_reference_is_the_one_the_card_gives_else_its_name_else_its_readers():
    def refs(names, references=None, manifest=None):
        return [r.name for r in _source_references(_cited(names, references, manifest=manifest))]

    readers = {"sources": [{"name": "MyRACE", "reader": "race"}, "not a source", {"name": "Other", "reader": None}]}
    assert refs(["MyRACE", "sib200", "Unknown", "Other"], manifest=readers) == ["race", "sib200"]
    assert refs(["MyRACE"]) == [] and refs(["MyRACE"], manifest={}) == []  # no manifest: its reader is not known
    # the reference the card gives a source wins over its name; a reference is listed once
    assert refs(["race", "Mine", "reclor"], references={"race": cite("reclor"), "Mine": cite("reclor")}) == ["reclor"]
    assert refs(["Mine", "race"], references={"Mine": "a citation of no known paper"}) == ["race"]


def test_the_citation_lists_what_is_known_and_puts_declared_bibtex_in_the_block():
    assert _citation(_cited(["x"])) == ("If you use `demo`, cite the sources it was built from:\n\n"
                                        "- (no reference is known for these sources; see `ATTRIBUTION.md`)")
    layout = _citation(_cited(["x"], schema="sib200")).split("\n")
    assert layout[0] == "If you use `demo`, cite the sources it was built from and SIB-200, whose layout it has:"
    assert layout[2].startswith("- Adelani et al. (2023). SIB-200") and layout[4:7] == ["BibTeX:", "", "```bibtex"]
    # a source that is SIB-200 already: no layout note; FLORES-200 beside it for topic data, not for questions
    sib = {"s": cite("sib200")}
    topic = _citation(_cited(["s"], sib, schema="sib200")).split("\n")
    assert topic[0] == "If you use `demo`, cite the sources it was built from:"
    assert topic[3].startswith("- NLLB Team (2022). No Language Left Behind")
    assert _references_cited(_cited(["s"], sib, kind="mc")) == [cite("sib200")]
    assert _references_cited(_cited(["s"], sib), layout=False) == [cite("sib200"), cite("flores200")]
    assert _references_cited(_cited(["x"], schema="belebele")) == [cite("belebele")]
    assert _references_cited(_cited(["x"], schema="belebele"), layout=False) == []
    declared = _citation(_cited(["s", "b"], {"s": cite("sib200"), "b": "  @misc{x, title={T}}"}, kind="mc"))
    assert "- " + "  @misc" not in declared and declared.endswith("\n\n  @misc{x, title={T}}\n```")
    assert _citation(_cited(["b"], {"b": "@misc{x}"}, kind="mc")) == (
        "If you use `demo`, cite the sources it was built from:\n\nBibTeX:\n\n```bibtex\n@misc{x}\n```")
    # FLORES-200 goes with SIB-200 only: topic data from another known source cites that source alone
    assert _references_cited(_cited(["r", "x"], {"r": cite("reclor")})) == [cite("reclor")]


def test_the_description_puts_the_given_text_first_then_what_the_export_holds():
    ctx = SimpleNamespace(total_rows=1004, variants=["hin_Deva"], kind="topic", labels=["a", "b"],
                          description="  Topic labels, *checked* twice.  ")
    assert _description(ctx) == (
        "Topic labels, *checked* twice.\n\n1,004 sentences labelled with one of 2 topics (a, b), in the SIB-200 "
        "layout (`index_id`, `category`, `text`), in 1 language variant, one configuration per variant. Exported "
        "by mc-dataset-builder; `manifest.json` lists every file with its row count and SHA-256.")


def test_the_language_table_gives_the_codes_of_a_flores_code_and_none_of_another_name():
    assert _languages(SimpleNamespace(variants=["hin_Deva", "sib_small"])).splitlines()[2:] == [
        "| `hin_Deva` | Hindi | Devanagari (Nagari) | hin | Deva | hi-Deva |",
        "| `sib_small` | unknown (sib_small) | unknown |  |  |  |"]


def _context(sizes: dict[str, dict[str, int]], terms, **fields) -> CardContext:
    """A topic card of the variants and split sizes given, every split under ``terms``, its files in the layout
    an export writes (``<variant>/<split>.parquet``)."""
    return CardContext(name="d", pretty_name="D", kind="topic", sizes=sizes, columns=[], overall=terms,
                       files={v: {s: f"{v}/{s}.parquet" for s in splits} for v, splits in sizes.items()},
                       splits=[SplitTerms(v, s, terms) for v, splits in sizes.items() for s in splits], **fields)


def test_the_front_matter_counts_languages_not_scripts_and_says_und_when_none_is_known():
    def meta(variants):
        got = front_matter(_context({v: {"test": 2} for v in variants}, combine([("sib200", "CC-BY-SA-4.0", 4)])))
        return got["language"], got.get("language_details"), got["multilinguality"]

    assert meta(["hin_Deva"]) == (["hi"], ["hi-Deva"], ["monolingual"])
    assert meta(["hin_Deva", "hin_Latn"]) == (["hi"], ["hi-Deva", "hi-Latn"], ["monolingual"])  # one language
    assert meta(["hin_Deva", "eng_Latn"]) == (["en", "hi"], ["en-Latn", "hi-Deva"], ["multilingual"])
    assert meta(["sib_small"]) == (["und"], None, ["monolingual"])


def test_a_release_card_has_each_report_under_its_heading_in_order():
    ctx = _context(
        {"hin_Deva": {"train": 700, "test": 304}}, combine([("sib200", "CC-BY-SA-4.0", 4)]),
        agreement={"n_items": 12, "n_annotators": 3, "fleiss_kappa": 0.5},
        qc={"passed": False, "checks": [{"variant": "hin_Deva", "check": "leakage", "passed": False, "gate": True}]},
        gate_failing_allowed=True,
        baselines={"results": [{"variant": "hin_Deva", "baseline": "majority", "split": "test", "accuracy": 0.25,
                                "ci_low": 0.2, "ci_high": 0.3, "n": 304}]},
        models={"settings": {"model": "m"}, "results": [{"variant": "hin_Deva", "accuracy": 0.5, "ci_low": 0.4,
                                                           "ci_high": 0.6, "n": 5}]},
        variant_info={"hin_Deva": {"checks": {"length": {"status": "warning", "count": 1}}}})
    lines = render_card(ctx).splitlines()
    assert [line for line in lines if line.startswith("## ")] == [
        "## Languages", "## Dataset structure", "## Sources and licenses", "## Annotator agreement",
        "## Quality checks", "## Baseline scores", "## Language model", "## Warnings",
        "## Intended use and restrictions", "## Citation"]
    # the agreement is of a sample of the largest variant's 1,004 rows; the gate was let through
    assert "Measured on a 12-item sample, 3 annotators: the exported variants have up to 1,004 rows each, so read " \
           "these figures as the agreement of that sample." in lines
    assert any(line.startswith("This release was exported although the gate failed") for line in lines)
    assert "- `hin_Deva`, `length`: 1 flagged." in lines
    assert "| `hin_Deva` | 25.0 [20.0, 30.0] (n=304) |" in lines


def test_the_license_section_names_conflicts_and_the_recipes_override_under_their_heading():
    def section(terms, override=None):
        return _licenses(_context({"hin_Deva": {"test": 5}}, terms, override=override)).splitlines()

    conflict = "- Conflict: CC-BY-SA-4.0 requires the split to carry its own terms, which do not impose the " \
               "non-commercial restriction of CC-BY-NC-4.0."
    mixed = combine([("a", "CC-BY-SA-4.0", 2), ("b", "CC-BY-NC-4.0", 3)])
    assert section(mixed)[-3:] == ["### Unresolved license conflicts", "", conflict]
    override = LicenseOverride.from_dict({"terms": "CC-BY-NC-SA-4.0", "reason": "the authors agreed in writing"})
    assert section(mixed, override)[-9:] == [
        "### License override", "", conflict, "", "The recipe releases this combination with a written override:", "",
        "- Terms stated by the recipe: CC-BY-NC-SA-4.0", "- Reason: the authors agreed in writing",
        "- The override does not lift any restriction: every source's own terms still apply."]
    plain = section(combine([("c", "CC-BY-4.0", 5)]))
    assert "| `hin_Deva/test` | CC-BY-4.0 | yes | no | c (CC-BY-4.0, 5) |" in plain  # commercial, not share-alike
    assert not any(line.startswith("###") for line in plain)


def test_the_rows_table_leaves_a_split_a_variant_lacks_empty_and_out_of_the_total():
    table = _structure(_context({"a": {"train": 700, "test": 304}, "b": {"test": 5}},
                                combine([("sib200", "CC-BY-SA-4.0", 4)])))
    assert table.splitlines()[-5:] == [
        "| config | train | test | total |", "| --- | --- | --- | --- |",
        "| `a` | 700 | 304 | 1,004 |", "| `b` |  | 5 | 5 |", "| **all** | 700 | 309 | 1,009 |"]


def test_only_a_variant_described_as_romanized_tags_the_card_romanization():
    def tagged(info):
        return "romanization" in tags(_context({"a": {"test": 1}}, combine([("s", "MIT", 1)]), variant_info=info))

    assert not tagged({"a": {"method": "translation"}})
    assert tagged({"a": "not a description", "b": {"method": "romanization"}})


def test_an_agreement_with_no_exported_rows_says_only_what_it_was_measured_on():
    card = render_card(_context({}, combine([("s", "MIT", 1)]),
                                agreement={"n_items": 12, "n_annotators": 3, "fleiss_kappa": 0.5}))
    assert "Measured on 12 items, 3 annotators." in card.splitlines()


def test_a_variant_json_that_is_not_an_object_is_passed_over_and_the_next_one_still_declares():
    # "aaa_Latn" sorts first; its variant.json holds a list, not an object
    declared = declared_references({"aaa_Latn": ["not", "an", "object"],
                                    "hin_Deva": {"source_name": "SIB-200", "citation": "Ours\n (2025)."}})
    assert declared == {"SIB-200": "Ours (2025)."}


def test_a_source_the_toolkit_does_not_know_and_no_reader_names_gets_no_reference():
    manifest = {"sources": [{"name": "Known", "reader": "mctest"}, "not a source"]}
    assert references(["Unknown", "Known"], manifest) == {"Known": cite("mctest")}
    assert references(["Unknown"], None) == {}


def test_a_skipped_check_lists_six_variants_and_counts_the_rest_from_the_seventh():
    def lines(n):
        return _skipped([{"check": "leakage", "skipped": True, "reason": "no test split", "variant": f"v{k}"}
                         for k in range(n)])

    assert lines(6) == ["- `leakage` on `v0`, `v1`, `v2`, `v3`, `v4`, `v5`: no test split."]
    assert lines(7) == ["- `leakage` on `v0`, `v1`, `v2`, `v3`, `v4`, `v5` and 1 more: no test split."]


def test_a_baseline_without_both_bounds_or_a_count_shows_its_accuracy_alone_and_n_unknown():
    text = baselines_section({"results": [{"variant": "eng_Latn", "baseline": "majority", "accuracy": 0.25,
                                           "ci_low": 0.2}]})
    assert text.splitlines() == ["Accuracy on the scored split, with 95% confidence intervals.", "",
                                 "| variant | majority |", "| --- | ---: |", "| `eng_Latn` | 25.0 (n=?) |"]


def test_the_baselines_table_has_a_column_per_baseline_and_leaves_a_missing_score_empty():
    rows = [{"variant": "hin_Deva", "baseline": "majority", "split": "test", "accuracy": 0.25, "n": 4},
            {"variant": "hin_Deva", "baseline": "tfidf", "split": "dev", "accuracy": 0.5, "n": 4},
            {"variant": "eng_Latn", "baseline": "tfidf", "split": "test", "accuracy": 0.75, "n": 4}]
    assert baselines_section({"results": rows}).splitlines() == [
        "Accuracy on the dev, test split, with 95% confidence intervals.", "",
        "| variant | majority | tfidf |", "| --- | ---: | ---: |",
        "| `eng_Latn` |  | 75.0 (n=4) |",
        "| `hin_Deva` | 25.0 (n=4) | 50.0 (n=4) |"]


def test_a_source_name_with_underscores_finds_its_reference_as_with_hyphens():
    assert cite("SIB_200") == cite("sib-200") == cite("sib200") is not None
    assert cite(" Flores_200 ") == cite("flores200") is not None


def test_the_models_table_without_settings_sorts_the_variants_and_marks_what_a_row_lacks():
    rows = [{"variant": "hin_Deva", "accuracy": 0.25, "ci_low": 0.1, "n": 4},
            {"variant": "eng_Latn", "accuracy": 0.5, "ci_low": 0.15, "ci_high": 0.85, "correct": 2, "n": 4,
             "lm_eval_task": "s_eng_Latn"}]
    assert models_section({"results": rows}).splitlines() == [
        "`model` on this export's lm-eval tasks (`lm_eval/`), 0-shot, the test split: every test item. Accuracy is "
        "lm-eval's `acc` (the choice of highest log-likelihood), with 95% confidence intervals.", "",
        "| variant | task | accuracy | correct / n |", "| --- | --- | ---: | ---: |",
        "| `eng_Latn` | `s_eng_Latn` | 50.0 [15.0, 85.0] | 2 / 4 |",
        "| `hin_Deva` |  | 25.0 | ? / 4 |"]
    settings = {"model": "M", "num_fewshot": 5, "limit": 8, "selection": "8 items"}
    lines = models_section({"settings": settings, "results": [{"variant": "eng_Latn", "accuracy": 1.0}]}).splitlines()
    assert lines[0] == (
        "`M` on this export's lm-eval tasks (`lm_eval/`), 5-shot, the test split: 8 items. Accuracy is lm-eval's "
        "`acc` (the choice of highest log-likelihood), with 95% confidence intervals; a limited run scores a "
        "sample, so read the intervals.")
    assert lines[-1] == "| `eng_Latn` |  | 100.0 | ? / ? |"


def test_the_intended_use_of_a_test_set_alone_and_of_a_train_and_test_set_without_a_dev_split():
    overall = SimpleNamespace(commercial_use=True, research_only=False, share_alike=False, sources=[], terms="MIT")

    def use(*splits):
        ctx = SimpleNamespace(splits=[SimpleNamespace(split=s) for s in splits], overall=overall, kind="topic",
                              override=None)
        return intended_use_section(ctx).splitlines()

    assert use("test", "test") == [
        "- **Test set only**: this dataset is for evaluation. Do not train or tune on it; doing so contaminates the "
        "benchmark.", "- Commercial use is permitted under the terms above."]
    assert use("train", "test")[0] == ("- The `test` split is for evaluation only: do not train or tune on it. Use "
                                       "`train` for fitting.")
