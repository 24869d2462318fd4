"""The HTTP client: one method per main flow, over urllib (no dependencies)."""

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional, Union, cast

from .types import (
    AnswerImport,
    AnswerPage,
    CalibrationReport,
    CreatedKey,
    Grade,
    GradePage,
    GradingEnqueued,
    GradingProgress,
    LabelImport,
    Leaderboard,
    StatsKappa,
    StoredCalibrationReport,
)


class _Clear:
    """The type of CLEAR (one instance)."""

    _instance: Optional["_Clear"] = None

    def __new__(cls) -> "_Clear":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "CLEAR"

    def __bool__(self) -> bool:
        return False


CLEAR = _Clear()
"""A limit argument that clears the stored limit: sent as JSON null. None (or leaving it out) keeps it."""


class AssayError(Exception):
    """An error answer of the API: the envelope's code and message, and the HTTP status.

    code is one of bad_input, not_found, unauthorized, forbidden, conflict, payload_too_large,
    rate_limited, unavailable, internal; or http_error (an answer without the envelope) and
    connection_error / timeout (status 0: no answer at all).
    """

    def __init__(self, code: str, message: str, status: int):
        super().__init__(f"{code} ({status}): {message}")
        self.code = code
        self.message = message
        self.status = status


def _query(params: Mapping[str, Any]) -> str:
    # None means "not given"; booleans as the server's query parsers read them.
    kept = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items() if v is not None}
    return "?" + urllib.parse.urlencode(kept) if kept else ""


def _json_lines(rows: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


class Client:
    """assay = Client("http://127.0.0.1:8787", key="assay_...")"""

    def __init__(self, base_url: str, key: Optional[str] = None, timeout: float = 120.0):
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout = timeout

    # -- plumbing ---------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        jsonl_rows: Optional[Iterable[Mapping[str, Any]]] = None,
        accept: str = "application/json",
    ) -> Any:
        """Any route: JSON in (json_body) or JSON Lines in (jsonl_rows); JSON out, or text for CSV."""
        headers = {"accept": accept}
        if self.key:
            headers["authorization"] = f"Bearer {self.key}"
        data: Optional[bytes] = None
        if jsonl_rows is not None:
            data = _json_lines(jsonl_rows)
            headers["content-type"] = "application/x-ndjson"
        elif json_body is not None:
            data = json.dumps(json_body).encode("utf-8")
            headers["content-type"] = "application/json"
        req = urllib.request.Request(self.base_url + path + _query(query or {}), data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                text = res.read().decode("utf-8")
                is_json = "json" in (res.headers.get("content-type") or "")
                return json.loads(text) if is_json else text
        except urllib.error.HTTPError as e:
            raise _from_http_error(e) from None
        except urllib.error.URLError as e:
            raise AssayError("connection_error", str(e.reason), 0) from None
        except TimeoutError as e:
            raise AssayError("timeout", str(e) or f"no answer within {self.timeout} s", 0) from None

    # -- keys and answers -------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self.request("GET", "/health")

    def create_key(self, scopes: list[str], name: Optional[str] = None) -> CreatedKey:
        """A new API key (admin scope); the key is in the answer only."""
        body: dict[str, Any] = {"scopes": scopes}
        if name is not None:
            body["name"] = name
        return cast(CreatedKey, self.request("POST", "/api/keys", json_body=body))

    def import_rubrics(self, rubrics: Any) -> dict[str, Any]:
        """One rubric object (as in a rubric YAML file) or a list of them."""
        return self.request("POST", "/api/rubrics", json_body=rubrics)

    def upload_answers(
        self,
        rows: Iterable[Mapping[str, Any]],
        run: Optional[str] = None,
        model: Optional[str] = None,
        effort: Optional[str] = None,
        task: Optional[str] = None,
        tags: Optional[list[str]] = None,
    ) -> AnswerImport:
        """Rows as in an answers JSONL file ({"id", "task", "rubric"?, "text", ...}); all or nothing."""
        query = {"run": run, "model": model, "effort": effort, "task": task, "tags": ",".join(tags) if tags else None}
        return cast(AnswerImport, self.request("POST", "/api/answers", query=query, jsonl_rows=rows))

    def list_answers(self, **filters: Any) -> AnswerPage:
        """Filters: run, model, rubric, puzzle, task, status, limit, offset."""
        return cast(AnswerPage, self.request("GET", "/api/answers", query=filters))

    def upload_labels(self, rows: Iterable[Mapping[str, Any]], run: Optional[str] = None, replace: bool = False) -> LabelImport:
        """Human labels ({"answer", "run"?, "item"?, "annotator", "label"}); changing stored ones needs replace."""
        return cast(LabelImport, self.request("POST", "/api/labels", query={"run": run, "replace": replace or None}, jsonl_rows=rows))

    # -- grading ----------------------------------------------------------------------------------

    def grade(
        self,
        answer_id: Optional[int] = None,
        answer: Optional[str] = None,
        judge: Optional[str] = None,
        run: Optional[str] = None,
        model: Optional[str] = None,
        rubric: Optional[str] = None,
    ) -> Grade:
        """Grade one stored answer (answer_id) or answer text (answer, with rubric) and store the grade."""
        body = {"answerId": answer_id, "answer": answer, "judge": judge, "run": run, "model": model, "rubric": rubric}
        return cast(Grade, self.request("POST", "/api/grades", json_body={k: v for k, v in body.items() if v is not None}))

    def list_grades(self, **filters: Any) -> GradePage:
        """One page of stored grades, newest first. Filters: run, model, judge, status, answer, limit, cursor."""
        return cast(GradePage, self.request("GET", "/api/grades", query=filters))

    def iter_grades(self, **filters: Any) -> Iterator[Grade]:
        """Every stored grade matching the filters, following the pages' cursors."""
        cursor = None
        while True:
            page = self.list_grades(**filters, cursor=cursor)
            yield from page["items"]
            cursor = page["nextCursor"]
            if cursor is None:
                return

    def get_grade(self, grade_id: int) -> Grade:
        return cast(Grade, self.request("GET", f"/api/grades/{int(grade_id)}"))

    def grade_run(
        self, run: str, judge: str, rpm: Union[float, None, _Clear] = None, tpm: Union[float, None, _Clear] = None
    ) -> GradingEnqueued:
        """Enqueue the run's ungraded answers for the judge; workers (`assay worker`) grade them.

        rpm / tpm are stored for the judge's provider:model (every worker applies them): a number sets the
        limit, CLEAR clears the stored one (sent as null), None or left out keeps what is stored.
        """
        body: dict[str, Any] = {"judge": judge}
        body.update({k: (None if v is CLEAR else v) for k, v in {"rpm": rpm, "tpm": tpm}.items() if v is not None})
        return cast(GradingEnqueued, self.request("POST", f"/api/runs/{urllib.parse.quote(run, safe='')}/grade", json_body=body))

    def progress(self, run: str, judge: Optional[str] = None) -> GradingProgress:
        return cast(GradingProgress, self.request("GET", f"/api/runs/{urllib.parse.quote(run, safe='')}/progress", query={"judge": judge}))

    def wait_for_grading(self, run: str, judge: Optional[str] = None, poll: float = 0.5, timeout: float = 600.0) -> GradingProgress:
        """Polls the progress until nothing remains (done + failed = total); returns the last reading."""
        deadline = time.monotonic() + timeout
        while True:
            p = self.progress(run, judge)
            if p["remaining"] == 0:
                return p
            if time.monotonic() > deadline:
                raise AssayError("timeout", f"grading of run '{run}' still has {p['remaining']} answers left", 0)
            time.sleep(poll)

    # -- reports and statistics -------------------------------------------------------------------

    def leaderboard(self, **filters: Any) -> Leaderboard:
        """Filters: run, model, rubric, judge, seed."""
        return cast(Leaderboard, self.request("GET", "/api/reports/leaderboard", query=filters))

    def report_csv(self, report: str, **filters: Any) -> str:
        """A table report (leaderboard, orientation, ablation, effort) as the CSV text the server writes."""
        return self.request("GET", f"/api/reports/{report}", query=filters, accept="text/csv")

    def calibration_report(self, **filters: Any) -> StoredCalibrationReport:
        """Judges against the stored human labels. Filters: run, model, rubric, judge, scale, seed."""
        return cast(StoredCalibrationReport, self.request("GET", "/api/reports/calibration", query=filters))

    def stats_kappa(self, a: list[Any], b: list[Any], **options: Any) -> StatsKappa:
        """Cohen's (or Scott's: method="scott") kappa of two label lists; options: weights, method, ..."""
        return cast(StatsKappa, self.request("POST", "/api/stats/kappa", json_body={"a": a, "b": b, **options}))

    def stats(self, name: str, **body: Any) -> dict[str, Any]:
        """Any of POST /api/stats/{kappa,alpha,fleiss,wilson,corr,icc,mcnemar} with its body."""
        return self.request("POST", f"/api/stats/{name}", json_body=body)

    def calibrate(self, labels: list[Mapping[str, Any]], scale: str = "verdict", seed: Optional[int] = None, humans: Optional[str] = None) -> CalibrationReport:
        """The `assay calibrate --labels` report over label rows sent in the body; nothing is stored. humans: each|majority."""
        body: dict[str, Any] = {"scale": scale, "labels": labels}
        if seed is not None:
            body["seed"] = seed
        if humans is not None:
            body["humans"] = humans
        return cast(CalibrationReport, self.request("POST", "/api/calibrate", json_body=body))


def _from_http_error(e: urllib.error.HTTPError) -> AssayError:
    raw = e.read().decode("utf-8", errors="replace")
    try:
        err = json.loads(raw)["error"]
        return AssayError(str(err["code"]), str(err["message"]), e.code)
    except (ValueError, KeyError, TypeError):
        return AssayError("http_error", raw.strip()[:500] or str(e.reason), e.code)
