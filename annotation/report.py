"""Write the agreement report: ``agreement.json``, ``agreement.md`` and ``agreement_matrix.png``.

Labels, annotator names, the source path and skip reasons come from the
annotation export; in ``agreement.md`` each passes
:func:`schemas.escape.md_inline`, so it stays text in its table cell.
"""
from __future__ import annotations

from pathlib import Path

from schemas.escape import md_code, md_inline
from schemas.io import atomic_path, write_json_atomic, write_text_atomic

MEASURES = (
    ("fleiss_kappa", "Fleiss' kappa"),
    ("krippendorff_alpha", "Krippendorff's alpha (nominal)"),
    ("mean_cohen_kappa", "Mean pairwise Cohen's kappa"),
    ("gwet_ac1", "Gwet's AC1"),
    ("percent_agreement", "Percent agreement (pairs of ratings)"),
)


def _f(x, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def _ci(v) -> str:
    return "n/a" if v is None else f"[{_f(v[0])}, {_f(v[1])}]"


def render_markdown(rep: dict) -> str:
    """Human-readable agreement report (deterministic text for golden tests).

    >>> text = render_markdown({"source": "a.csv", "n_items": 1, "n_annotators": 2, "n_ratings": 2,
    ...     "ratings_per_item": {"min": 2, "max": 2, "mean": 2.0}, "labels": ["x"], "label_counts": {"x": 2},
    ...     "fleiss_kappa": None, "fleiss_kappa_reason": "undefined", "krippendorff_alpha": None,
    ...     "mean_cohen_kappa": None, "gwet_ac1": None, "percent_agreement": 1.0, "ci": {},
    ...     "observed_agreement": {}, "expected_agreement": {}, "per_category": {"x": None},
    ...     "per_category_measure": "fleiss_kappa_one_vs_rest", "per_category_ci": {},
    ...     "bootstrap": {"n_resamples": 0, "seed": 0, "level": 0.95},
    ...     "pairwise": {"annotators": ["a", "b"], "cohen_kappa": [[1.0, None], [None, 1.0]],
    ...                  "percent_agreement": [[1.0, 1.0], [1.0, 1.0]], "n_shared": [[1, 1], [1, 1]]},
    ...     "confusions": [], "skipped": {}})
    >>> text.splitlines()[0]
    '# Annotation agreement'
    """
    b = rep["bootstrap"]
    rpi = rep["ratings_per_item"]
    lines = [
        "# Annotation agreement",
        "",
        f"Source {md_code(rep['source'])}: {rep['n_items']} items, {rep['n_annotators']} annotators, "
        f"{rep['n_ratings']} ratings ({rpi['min']}-{rpi['max']} per item, mean {rpi['mean']:.2f}), "
        f"{len(rep['labels'])} labels.",
        "",
        f"Intervals: {b['level']:.0%} percentile bootstrap over items, {b['n_resamples']} resamples, "
        f"seed {b['seed']}.",
        "",
        "| Measure | Value | CI | Observed | Expected |",
        "| --- | ---: | --- | ---: | ---: |",
    ]
    for key, name in MEASURES:
        obs = rep["observed_agreement"].get(key)
        exp = rep["expected_agreement"].get(key)
        lines.append(f"| {name} | {_f(rep.get(key))} | {_ci(rep['ci'].get(key))} | "
                     f"{'' if obs is None else _f(obs)} | {'' if exp is None else _f(exp)} |")
    if rep.get("fleiss_kappa_reason"):
        lines += ["", f"Fleiss' kappa not reported: {md_inline(rep['fleiss_kappa_reason'])}."]
    measure = md_inline(rep["per_category_measure"].replace("_", " "))
    lines += ["", f"## Per category ({measure})", "", "| Label | Ratings | Value | CI |",
              "| --- | ---: | ---: | --- |"]
    for label in rep["labels"]:
        lines.append(f"| {md_inline(label)} | {rep['label_counts'][label]} | {_f(rep['per_category'].get(label))} | "
                     f"{_ci(rep['per_category_ci'].get(label))} |")
    pw = rep["pairwise"]
    names = pw["annotators"]
    lines += ["", "## Annotator pairs (Cohen's kappa / percent agreement / shared items)", "",
              "| | " + " | ".join(map(md_inline, names)) + " |", "| --- |" + " --- |" * len(names)]
    for i, a in enumerate(names):
        cells = [f"{_f(pw['cohen_kappa'][i][j])} / {_f(pw['percent_agreement'][i][j])} / "
                 f"{pw['n_shared'][i][j]}" for j in range(len(names))]
        lines.append(f"| {md_inline(a)} | " + " | ".join(cells) + " |")
    lines += ["", "## Most confused label pairs", ""]
    if rep["confusions"]:
        lines += ["| Labels | Disagreeing rating pairs |", "| --- | ---: |"]
        lines += [f"| {md_inline(c['labels'][0])} / {md_inline(c['labels'][1])} | {c['count']} |"
                  for c in rep["confusions"]]
    else:
        lines.append("No disagreements.")
    if rep["skipped"]:
        lines += ["", "## Skipped input", "", "| Reason | Count |", "| --- | ---: |"]
        lines += [f"| {md_inline(k)} | {v} |" for k, v in sorted(rep["skipped"].items())]
    return "\n".join(lines) + "\n"


def plot_matrix(rep: dict, path) -> Path:
    """Heat map of pairwise Cohen's kappa, annotator by annotator (PNG, Agg backend)."""
    import numpy as np
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    pw = rep["pairwise"]
    names = pw["annotators"]
    m = np.array([[np.nan if v is None else v for v in row] for row in pw["cohen_kappa"]], dtype=float)
    size = max(3.0, 0.7 * len(names) + 2.0)
    fig = Figure(figsize=(size + 1.0, size))
    ax = fig.subplots()
    im = ax.imshow(m, vmin=-1.0 if np.nanmin(m) < 0 else 0.0, vmax=1.0, cmap="viridis")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    if len(names) <= 20:
        for i in range(len(names)):
            for j in range(len(names)):
                txt = "n/a" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}"
                ax.text(j, i, txt, ha="center", va="center", color="w" if m[i, j] < 0.6 else "k",
                        fontsize=8)
    ax.set_title("Pairwise Cohen's kappa")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=100, metadata={"Software": None})
    return Path(path)


def write_report(rep: dict, out_dir, *, plot: bool = True) -> dict:
    """Write ``agreement.json``, ``agreement.md`` and (with ``plot``) ``agreement_matrix.png``."""
    out = Path(out_dir)
    paths = {"json": write_json_atomic(out / "agreement.json", rep),
             "markdown": write_text_atomic(out / "agreement.md", render_markdown(rep))}
    if plot:
        paths["png"] = plot_matrix(rep, out / "agreement_matrix.png")
    return paths
