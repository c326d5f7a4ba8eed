"""The length-ratio check (issue 28) on the 24 shipped SIB-200 variants, planted outliers, and its config range.

Real rows: ``tests/data/sib200/annotated`` (pivot ``eng_Latn``), read by the
gate's loader (:func:`schemas.dataset.load_dataset_dir`, which unquotes
``"..."``-quoted TSV fields). What the check finds there is written in
docs/qc.md ("Translation checks", "Length ratio") and pinned here; the figures were read against the texts by hand
(misaligned ``npi_Deva`` lines, a truncated ``hin_Deva`` 1327, a doubled
``urd_Arab`` 920).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from builder.cli.main import cli
from qc import length_ratio
from qc.config import load_config
from qc.gate import run_variant
from qc.result import VariantData
from schemas.dataset import load_dataset_dir
from schemas.textstats import log_ratio, robust_z

SIB = Path(__file__).resolve().parents[1] / "data" / "sib200" / "annotated"
QC_DATA = Path(__file__).resolve().parents[1] / "data" / "qc"
CONFIG = load_config()
PARAMS = CONFIG["checks"]["length_ratio"]

#: Outliers (|robust z| > 3.5) per shipped translation, found by the check and read by hand.
SHIPPED = {"amh_Ethi": 2, "arb_Arab": 0, "arb_Latn": 3, "ben_Beng": 5, "bod_Tibt": 14, "deu_Latn": 3, "fra_Latn": 9,
           "hau_Latn": 3, "hin_Deva": 4, "jpn_Jpan": 0, "kas_Arab": 1, "kas_Deva": 3, "mar_Deva": 1, "npi_Deva": 12,
           "nqo_Nkoo": 1, "sin_Sinh": 1, "swh_Latn": 3, "tam_Taml": 6, "tha_Thai": 5, "tzm_Tfng": 5, "urd_Arab": 7,
           "yor_Latn": 6, "zho_Hans": 14}
#: The units past |z| = 5, furthest first per variant: misaligned (npi_Deva), truncated (hin_Deva 1327,
#: tzm_Tfng 1504, bod_Tibt 1192), doubled (urd_Arab 920), expanded (hin_Deva 1003, zho_Hans 1295: names added).
PAST_5 = {("npi_Deva", "texts:train/845"): -7.74, ("tzm_Tfng", "texts:train/1504"): -7.31,
          ("npi_Deva", "texts:dev/241"): -6.94, ("hin_Deva", "texts:train/1327"): -5.74,
          ("npi_Deva", "texts:train/1098"): -5.77, ("npi_Deva", "texts:train/1202"): -5.62,
          ("urd_Arab", "texts:train/920"): 5.48, ("hin_Deva", "texts:train/1003"): 5.33,
          ("bod_Tibt", "texts:train/1192"): -5.36, ("zho_Hans", "texts:test/1295"): 5.24,
          ("tzm_Tfng", "texts:train/173"): 5.03}


@pytest.fixture(scope="module")
def sib():
    ds = load_dataset_dir(SIB)
    return {v: ds.tables[v] for v in ds.variants}


def _data(sib, variant, tables=None) -> VariantData:
    return VariantData(variant, "topic", tables or sib[variant], pivot=sib["eng_Latn"])


def _with(tables, item, text):
    out = {s: f.copy() for s, f in tables.items()}
    for frame in out.values():
        frame.loc[frame["index_id"] == item, "text"] = text
    return out


def _text(tables, item):
    return next(f.loc[f["index_id"] == item, "text"].iloc[0] for f in tables.values() if (f["index_id"] == item).any())


# --- the shipped variants -------------------------------------------------------------------------------------


def test_shipped_variants_counts_and_the_units_past_5(sib):
    assert len(sib) == 24
    counts, past_5 = {}, {}
    for variant in sib:
        [r] = length_ratio.run(_data(sib, variant), PARAMS)
        if variant == "eng_Latn":
            assert r.skipped and r.detail == "this is the pivot variant"
            continue
        assert r.extra["units"] == 1004 and r.extra["per_unit"]["texts"]["units"] == 1004
        counts[variant] = r.extra["outliers"]
        assert r.passed == (counts[variant] == 0) and r.threshold == 3.5
        assert r.value == (abs(r.extra["examples"][0]["z"]) if counts[variant] else r.value) and r.value > 0
        past_5.update({(variant, e["id"]): e["z"] for e in r.extra["examples"] if abs(e["z"]) > 5})
    assert counts == SHIPPED and sum(counts.values()) == 108
    assert past_5 == PAST_5


def test_npi_deva_misaligned_lines_are_named_with_both_texts(sib):
    [r] = length_ratio.run(_data(sib, "npi_Deva"), PARAMS)
    assert (r.passed, r.reason, r.gate) == (False, "length_ratio_outlier", True)  # gate: the gate's config decides
    first = r.extra["examples"][0]
    assert first["id"] == "texts:train/845" and first["z"] == -7.74
    assert first["texts"][1].startswith("However, nowadays there are established graffiti")
    assert first["chars"] == [len(_text(sib["npi_Deva"], 845).strip()), len(_text(sib["eng_Latn"], 845).strip())]
    assert all(len(t) <= 60 for e in r.extra["examples"] for t in e["texts"])  # shortened
    assert "texts:train/845 (z -7.7, 67 vs 179 chars: 'धेरै पर्यटकहरू" in r.detail
    assert "median ratio 0.96" in r.detail and "12 of 1004 units" in r.detail
    # the same z as computing the robust z of the log ratios directly
    pairs = [(_text(sib["npi_Deva"], i), _text(sib["eng_Latn"], i)) for f in sib["npi_Deva"].values()
             for i in f["index_id"]]
    z = robust_z([log_ratio(a, b) for a, b in pairs])
    ids = [i for f in sib["npi_Deva"].values() for i in f["index_id"]]
    assert round(float(z[ids.index(845)]), 2) == -7.74


def test_a_planted_length_outlier_in_a_shipped_variant_is_flagged_with_its_id(sib):
    """fra_Latn with 1232 cut to its first 25 characters and 282 followed by the French of 403."""
    fra = sib["fra_Latn"]
    tables = _with(fra, 1232, _text(fra, 1232)[:25])
    tables = _with(tables, 282, _text(fra, 282) + " " + _text(fra, 403))
    [r] = length_ratio.run(_data(sib, "fra_Latn", tables), PARAMS)
    found = {e["id"]: e for e in r.extra["examples"]}
    [before] = length_ratio.run(_data(sib, "fra_Latn"), PARAMS)
    # the two planted lines join the real ones (two real ones at z 3.51-3.52 may drop under 3.5 as the MAD moves)
    assert set(found) - {e["id"] for e in before.extra["examples"]} == {"texts:train/1232", "texts:train/282"}
    assert found["texts:train/1232"]["z"] < -3.5 and found["texts:train/282"]["z"] > 3.5
    assert found["texts:train/1232"]["texts"] == [_text(fra, 1232)[:25].strip(),  # shortened as qc.duplicates
                                                  _text(sib["eng_Latn"], 1232)[:59] + "…"]
    assert r.extra["examples"][0]["id"] in ("texts:train/1232", "texts:train/282")  # furthest first
    assert "texts:train/1232" in r.detail or "texts:train/282" in r.detail


def test_it_warns_and_never_blocks_by_default(sib):
    assert PARAMS["gate"] is False and PARAMS["max_z"] == 3.5
    results = {r.check: r for r in run_variant(_data(sib, "npi_Deva"), CONFIG)}
    r = results["length_ratio"]
    assert not r.passed and r.gate is False and not r.blocks


def test_a_stricter_threshold_flags_more(sib):
    strict = dict(PARAMS, max_z=3.0)
    [r] = length_ratio.run(_data(sib, "arb_Arab"), strict)
    assert r.extra["outliers"] > SHIPPED["arb_Arab"] == 0 and r.threshold == 3.0


# --- unit kinds, small and degenerate inputs ------------------------------------------------------------------


def _mc(passages, questions):
    n = len(passages)
    return {"test": pd.DataFrame({"passage_id": [f"p{i}" for i in range(n)], "question_id": ["1"] * n,
                                  "passage": passages, "question": questions,
                                  **{f"answer{k}": [f"option {k} of {i}" for i in range(n)] for k in range(1, 5)}})}


def test_mc_passages_and_questions_are_scored_against_their_own_ratios():
    eng_p = [f"Passage {i} tells a story of middling length about a town." for i in range(12)]
    eng_q = [f"What happens in story {i}?" for i in range(12)]
    fra_p = [f"Le passage {i} raconte une histoire de longueur moyenne sur une ville{'!' * (i % 4)}" for i in range(12)]
    fra_q = [f"Que se passe-t-il dans l'histoire {i} ?{'?' * (i % 3)}" for i in range(12)]
    fra_p[7] = "Court."
    data = VariantData("fra_Latn", "mc", _mc(fra_p, fra_q), pivot=_mc(eng_p, eng_q))
    [r] = length_ratio.run(data, PARAMS)
    assert set(r.extra["per_unit"]) == {"passages", "questions"}
    assert [e["id"] for e in r.extra["examples"]] == ["passages:test/p7"]
    assert r.extra["per_unit"]["questions"]["outliers"] == 0 and r.extra["units"] == 24


def test_too_few_units_or_no_spread_is_not_judged():
    piv = {"test": pd.DataFrame({"index_id": range(5), "text": [f"Sentence {i} of the pivot." for i in range(5)]})}
    mine = {"test": pd.DataFrame({"index_id": range(5), "text": ["Court."] + [f"Phrase {i} du pivot." for i in range(4)]})}
    [r] = length_ratio.run(VariantData("fra_Latn", "topic", mine, pivot=piv), PARAMS)
    assert r.skipped and r.passed and "texts: 5 units, under 10" in r.detail
    # an English copy but one line: every other ratio 0, MAD 0 (untranslated's finding)
    piv12 = {"test": pd.DataFrame({"index_id": range(12), "text": [f"Sentence {i} of it." for i in range(12)]})}
    copies = {"test": piv12["test"].assign(text=lambda f: f["text"].where(f["index_id"] != 3, "x"))}
    [r] = length_ratio.run(VariantData("fra_Latn", "topic", copies, pivot=piv12), PARAMS)
    assert r.skipped and "MAD 0" in r.detail and r.value is None


def test_the_pivot_and_a_missing_pivot_are_skipped(sib):
    assert length_ratio.run(VariantData("eng_Latn", "topic", sib["eng_Latn"], pivot=sib["eng_Latn"]),
                            PARAMS)[0].skipped
    r = length_ratio.run(VariantData("fra_Latn", "topic", sib["fra_Latn"], pivot=None), PARAMS)[0]
    assert r.skipped and "not in the dataset" in r.detail


# --- config ranges, through the CLI -------------------------------------------------------------------------


@pytest.mark.parametrize("check, key, value, expected", [
    ("untranslated", "warn_jaccard", 1.5, "expected a number between 0 and 1, found 1.5"),
    ("untranslated", "warn_jaccard", 0.9, "expected a number <= checks.untranslated.near_jaccard (0.8), found 0.9"),
    ("numbers", "letter_digit_share", 1.2, "expected a number between 0 and 1, found 1.2"),
    ("numbers", "letter_digit_share", -0.1, "expected a number >= 0, found -0.1"),
    ("length_ratio", "max_z", 0, "expected a number > 0, found 0"),
    ("length_ratio", "max_z", "big", "expected a number >= 0, found 'big'"),
    ("length_ratio", "min_units", 2, "expected an integer >= 3, found 2"),
    ("length_ratio", "min_units", 10.5, "expected an integer >= 3, found 10.5"),
])
def test_a_threshold_out_of_range_is_one_error_line_naming_file_and_key(tmp_path, check, key, value, expected):
    import yaml

    config = tmp_path / "qc.yaml"
    config.write_text(yaml.safe_dump({"version": 2, "checks": {check: {key: value}}}), encoding="utf-8")
    result = CliRunner().invoke(cli, ["qc", str(QC_DATA / "clean"), "--config", str(config),
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"error: {config}, field checks.{check}.{key}: {expected}"]
    assert not (tmp_path / "out" / "qc_report.json").exists()


def test_thresholds_in_range_are_accepted(tmp_path):
    import yaml

    config = tmp_path / "qc.yaml"
    config.write_text(yaml.safe_dump({"version": 2, "checks": {
        "untranslated": {"warn_jaccard": 0.8}, "numbers": {"letter_digit_share": 1},
        "length_ratio": {"max_z": 5, "min_units": 3}}}), encoding="utf-8")
    cfg = load_config(config)["checks"]
    assert (cfg["untranslated"]["warn_jaccard"], cfg["numbers"]["letter_digit_share"]) == (0.8, 1)
    assert (cfg["length_ratio"]["max_z"], cfg["length_ratio"]["min_units"]) == (5, 3)
