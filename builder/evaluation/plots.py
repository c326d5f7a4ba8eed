"""PNG of accuracy per variant: one panel per baseline, bars grouped by script and sorted.

Within a panel, scripts are ordered by their mean accuracy (best first) and
the variants of a script by accuracy; bars are coloured by script and carry
their 95% interval. The file has no software metadata, so identical results
give an identical PNG.

>>> order_by_script([{"variant": "a_Latn", "script": "Latn", "accuracy": 0.5},
...                  {"variant": "b_Deva", "script": "Deva", "accuracy": 0.9},
...                  {"variant": "c_Latn", "script": "Latn", "accuracy": 0.7}])
['b_Deva', 'c_Latn', 'a_Latn']
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from schemas.io import atomic_path


def order_by_script(rows: Sequence[dict]) -> list[str]:
    """Variants grouped by script (best mean first), sorted by accuracy within a script."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r.get("script") or "?", []).append(r)

    def acc(r):
        a = r["accuracy"]
        return -1.0 if a is None or (isinstance(a, float) and math.isnan(a)) else a

    def mean(rs):
        return sum(acc(r) for r in rs) / len(rs)

    order = []
    for script in sorted(groups, key=lambda s: (-mean(groups[s]), s)):
        order += [r["variant"] for r in sorted(groups[script], key=lambda r: (-acc(r), r["variant"]))]
    return order


def plot_accuracy(rows: Sequence[dict], baselines: Sequence[str], path: str | Path, *, title: str = "") -> Path:
    """Draw the accuracy bar chart of ``rows`` (result rows with ``ci_low``/``ci_high``) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [b for b in baselines if any(r["baseline"] == b for r in rows)]
    n_var = len({r["variant"] for r in rows})
    scripts = sorted({r.get("script") or "?" for r in rows})
    cmap = plt.get_cmap("tab20")
    colour = {s: cmap(i % 20) for i, s in enumerate(scripts)}
    width = max(6.0, min(60.0, 0.14 * n_var + 2))
    fig, axes = plt.subplots(len(panels), 1, figsize=(width, 2.6 * len(panels) + 0.8), squeeze=False)
    for ax, b in zip(axes[:, 0], panels):
        sub = {r["variant"]: r for r in rows if r["baseline"] == b}
        order = order_by_script(list(sub.values()))
        acc = [100 * (sub[v]["accuracy"] or 0) for v in order]
        lo = [100 * sub[v]["ci_low"] for v in order]
        hi = [100 * sub[v]["ci_high"] for v in order]
        err = [[a - l for a, l in zip(acc, lo)], [h - a for a, h in zip(acc, hi)]]
        ax.bar(range(len(order)), acc, color=[colour[sub[v].get("script") or "?"] for v in order],
               yerr=err, error_kw={"elinewidth": 0.6, "capsize": 0})
        mean = sum(acc) / len(acc)
        ax.axhline(mean, color="black", linestyle="--", linewidth=0.8)
        ax.set_title(f"{b} (mean {mean:.1f})", fontsize=9, loc="left")
        ax.set_ylim(0, 100)
        ax.set_ylabel("accuracy %", fontsize=8)
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order, rotation=90, fontsize=6 if n_var > 40 else 7)
        ax.margins(x=0.005)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[s]) for s in scripts]
    fig.legend(handles, scripts, loc="upper right", ncol=min(len(scripts), 12), fontsize=7, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path
