"""Flat tables from nested reports, for a notebook: lists of dicts (pandas.DataFrame(rows) takes them
as they are) and CSV text (csv module)."""

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any, Optional

from .types import CalibrationReport, KappaStat


def _kappa(stat: Optional[KappaStat]) -> tuple[Optional[float], Optional[float], Optional[float]]:
    if not stat:
        return None, None, None
    ci = stat.get("ci")
    return stat.get("kappa"), (ci[0] if ci else None), (ci[1] if ci else None)


def calibration_table(report: CalibrationReport) -> list[dict[str, Any]]:
    """One row per judge: units, agreement and kappa (with its 95% interval) against the human
    majority, the human ceiling the trust rule compares with, and whether the judge is within it."""
    rows = []
    for j in report["judgeReports"]:
        m = j["vsMajority"]
        kappa, low, high = _kappa(m.get("kappa"))
        rows.append({
            "judge": j["rater"],
            "units": m["n"],
            "agreement": m.get("agreement"),
            "kappa": kappa,
            "kappa_low": low,
            "kappa_high": high,
            "trust_statistic": j["trust"]["statistic"],
            "trust_value": j["trust"]["value"],
            "human_ceiling": j["trust"]["ceiling"],
            "within_human_range": j["trust"]["withinHumanRange"],
        })
    return rows


def to_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """CSV text with a header row (columns in first-seen order); None is an empty field."""
    rows = list(rows)
    columns: list[str] = []
    for r in rows:
        columns.extend(k for k in r if k not in columns)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()
