"""PNG of Mean-PRR against CV-PRR, one labelled point per model (the paper's Figure 1)."""
from __future__ import annotations

import io

import pandas as pd


def prr_plot_png(models: pd.DataFrame, *, title: str = "Mean-PRR against CV-PRR") -> bytes:
    """Render the model scatter as PNG bytes (matplotlib, Agg canvas, no global state).

    Parameters
    ----------
    models : DataFrame
        ``model, mean_prr, cv_prr`` as in :attr:`DisparityResult.models`.
        Models whose CV-PRR is undefined (a single record) are left out.

    Examples
    --------
    >>> png = prr_plot_png(pd.DataFrame({"model": ["a", "b"], "mean_prr": [1.1, 0.9],
    ...                                  "cv_prr": [0.2, 0.1]}))
    >>> png[:4] == b"\\x89PNG"
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    data = models.dropna(subset=["mean_prr", "cv_prr"]).sort_values("model", kind="stable")
    fig = Figure(figsize=(7.5, 5.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.scatter(data["cv_prr"], data["mean_prr"], s=36, color="#1f77b4", zorder=3)
    xspan = max(float(data["cv_prr"].max() - data["cv_prr"].min()), 1e-9)
    yspan = max(float(data["mean_prr"].max() - data["mean_prr"].min()), 1e-9)
    placed: list[tuple[float, float]] = []
    for row in data.sort_values(["mean_prr", "model"], ascending=[False, True]).itertuples(index=False):
        # a label close to an earlier one (in both axes) goes below its point instead of above
        near = any(abs(row.cv_prr - x) < 0.25 * xspan and abs(row.mean_prr - y) < 0.04 * yspan
                   for x, y in placed)
        placed.append((row.cv_prr, row.mean_prr))
        ax.annotate(str(row.model), (row.cv_prr, row.mean_prr), xytext=(4, -11 if near else 3),
                    textcoords="offset points", fontsize=8)
    ax.margins(x=0.15, y=0.08)
    ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--", zorder=1)
    ax.set_xlabel("CV-PRR (language disparity; lower is fairer)")
    ax.set_ylabel("Mean-PRR (normalised performance; higher is better)")
    ax.set_title(title)
    ax.grid(True, linewidth=0.3, alpha=0.6)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()
