"""Figures for the reports: matplotlib on its file-only Agg backend, returned as PNG data URIs.

Each function takes numbers (no files) and returns ``data:image/png;base64,...`` so that an
HTML report embeds its figures and stays one self-contained file.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import Any

from nomercy.extras import require
from nomercy.sim.stats import Mean, Rate

__all__ = ["bars_with_ci", "counts", "grouped_rates", "histogram", "small_multiples"]


def _pyplot() -> Any:
    matplotlib = require("matplotlib", "sim", "reports")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _encode(fig: Any) -> str:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=96)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _value(x: Rate | Mean) -> tuple[float, float, float]:
    """(value, error below, error above) for an error bar."""
    v = x.p if isinstance(x, Rate) else x.mean
    return v, max(0.0, v - x.low), max(0.0, x.high - v)


def grouped_rates(
    groups: Mapping[str, Sequence[Rate | Mean]],
    labels: Sequence[str],
    title: str,
    ylabel: str,
    fair: float | None,
    percent: bool = True,
) -> str:
    """Bars with 95% error bars, one group of bars per label, one colour per series."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    width = 0.8 / max(1, len(groups))
    for i, (name, rates) in enumerate(groups.items()):
        values = [_value(r) for r in rates]
        xs = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(rates))]
        ax.bar(
            xs,
            [v[0] for v in values],
            width,
            yerr=[[v[1] for v in values], [v[2] for v in values]],
            capsize=3,
            label=name,
        )
    if fair is not None:
        ax.axhline(fair, color="grey", linestyle="--", linewidth=1, label=f"fair share {fair:.1%}")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if percent:
        ax.yaxis.set_major_formatter(_percent())
    ax.legend(fontsize="small")
    return _encode(fig)


def bars_with_ci(items: Mapping[str, Rate | Mean], title: str, ylabel: str, percent: bool) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.5))
    values = [_value(x) for x in items.values()]
    ax.bar(
        list(items), [v[0] for v in values], yerr=[[v[1] for v in values], [v[2] for v in values]], capsize=4
    )
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if percent:
        ax.yaxis.set_major_formatter(_percent())
    return _encode(fig)


def histogram(values: Sequence[float], title: str, xlabel: str, bins: int = 50) -> str:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.5))
    ax.hist(values, bins=bins, color="tab:blue", edgecolor="white", linewidth=0.3)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    return _encode(fig)


def counts(panels: Mapping[str, Mapping[Any, int]], title: str) -> str:
    """Side-by-side bar charts of counts (e.g. knock-outs per game, how rounds end)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 3.5), squeeze=False)
    for ax, (name, data) in zip(axes[0], panels.items(), strict=True):
        keys = sorted(data, key=lambda k: (isinstance(k, str), k))
        total = sum(data.values()) or 1
        ax.bar([str(k) for k in keys], [data[k] / total for k in keys], color="tab:orange")
        ax.set_title(name)
        ax.set_ylabel("share of games")
        ax.yaxis.set_major_formatter(_percent())
    fig.suptitle(title)
    return _encode(fig)


def small_multiples(metrics: Mapping[str, Mapping[str, Rate | Mean]], title: str) -> str:
    """One small bar chart per metric, one bar (with 95% interval) per rule set."""
    plt = _pyplot()
    n = len(metrics)
    cols = 3
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.9 * rows), squeeze=False)
    for ax, (name, per_set) in zip(axes.flat, metrics.items(), strict=False):
        values = [_value(x) for x in per_set.values()]
        ax.bar(
            range(len(values)),
            [v[0] for v in values],
            yerr=[[v[1] for v in values], [v[2] for v in values]],
            capsize=4,
            color=[f"C{i}" for i in range(len(values))],
        )
        ax.set_xticks(range(len(values)), list(per_set), fontsize="x-small", rotation=15)
        ax.set_title(name, fontsize="small")
        low = min(v[0] - v[1] for v in values)
        high = max(v[0] + v[2] for v in values)
        pad = (high - low) * 0.5 or abs(high) * 0.05 or 0.01
        ax.set_ylim(max(0.0, low - pad) if low >= 0 else low - pad, high + pad)
        if any(isinstance(x, Rate) for x in per_set.values()):
            ax.yaxis.set_major_formatter(_percent())
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle(title)
    return _encode(fig)


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=None)
