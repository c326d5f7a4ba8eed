"""builder.tasks.describe and builder.tasks.disparity called directly (no click)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from builder.tasks.base import Reporter
from builder.tasks.describe import DescribeOptions, run_describe
from builder.tasks.disparity import DisparityOptions, run_disparity
from schemas.errors import UsageError
from schemas.ledger import DropRow
from schemas.variant import VariantInfo

DATA = Path(__file__).parents[1] / "data"


def test_describe_writes_the_credit_and_shows_it(tmp_path):
    folder = tmp_path / "hin_Deva"
    shutil.copytree(DATA / "sib200" / "annotated" / "hin_Deva", folder)
    shown = run_describe(DescribeOptions(folder))
    assert shown.written is None and shown.lines == ["license: (not declared)", "source_name: (not declared)",
                                                     "citation: (not declared)"]
    result = run_describe(DescribeOptions(folder, license="CC-BY-SA-4.0", source_name="SIB-200",
                                          citation="@inproceedings{x,\n title={SIB-200}}\n"))
    assert result.written == folder / "variant.json"
    assert VariantInfo.read(folder) == result.info and result.info.source_name == "SIB-200"
    assert result.lines == [f"wrote {folder / 'variant.json'}",
                            "license: CC-BY-SA-4.0  [declared with builder describe]", "source_name: SIB-200",
                            "citation: @inproceedings{x, (+1 lines)"]
    with pytest.raises(UsageError, match="not both"):
        run_describe(DescribeOptions(folder, citation="x", citation_file=tmp_path / "c.bib"))


def test_disparity_drops_are_the_dropped_aggregates_of_summary_json(tmp_path):
    info: list[str] = []
    result = run_disparity(DisparityOptions((DATA / "disparity" / "bad" / "aggregate_avg.csv",), tmp_path / "out",
                                            drop_aggregates=True), Reporter(write=info.append))
    summary = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert result.drops == [DropRow(summary["source"], reason, n)
                            for reason, n in summary["dropped"]["by_reason"].items()]
    assert result.drops == [DropRow("aggregate_avg.csv", "aggregate:avg", 1)]
    assert info[0] == "dropped 1 aggregate rows: aggregate:avg x1"
    assert "1 aggregate rows dropped" in result.lines[0] and result.lines[-1] == f"wrote {tmp_path / 'out'}"
    assert result.lines[1].startswith("model ") and len(result.lines) == 3 + len(result.analysis.models)
