"""The main response shapes of the assay API as TypedDicts.

Field names, which fields are required, and their JSON types follow the server's OpenAPI document
(/openapi.json): test/clients/python-types.test.ts compares every TypedDict reachable from RESPONSES
with the schema of its operation, so they cannot drift apart. `Any` marks a value left untyped here.
"""

from typing import Any, Literal, NotRequired, Optional, TypedDict, Union

Interval = Optional[tuple[float, float]]
Category = Union[str, float]


# --- keys -------------------------------------------------------------------------------------------

class CreatedKey(TypedDict):
    """POST /api/keys: the key is shown here only."""
    prefix: str
    name: str
    scopes: list[Literal["read", "write", "admin", "annotate"]]
    createdAt: str
    revokedAt: Optional[str]
    lastUsedAt: Optional[str]
    key: str


# --- answers ----------------------------------------------------------------------------------------

class AnswerImportRun(TypedDict):
    name: str
    model: str
    created: bool
    imported: int
    unchanged: int


class AnswerImport(TypedDict):
    """POST /api/answers: runs touched, answers imported and unchanged."""
    runs: list[AnswerImportRun]
    imported: int
    unchanged: int
    scored: int
    answerIds: list[int]


class Answer(TypedDict):
    id: int
    externalId: str
    run: str
    model: str
    effort: Optional[str]
    runTags: list[str]
    task: Literal["describe", "assemble", "describe-then-solve", "choice"]
    puzzle: Optional[str]
    rubric: Optional[str]
    text: Optional[str]
    status: Literal["ok", "no_answer", "truncated", "error"]
    inputTokens: Optional[int]
    outputTokens: Optional[int]
    meta: dict[str, Any]
    createdAt: str


class AnswerPage(TypedDict):
    items: list[Answer]
    total: int
    limit: int
    offset: int


class LabelImport(TypedDict):
    """POST /api/labels."""
    inserted: int
    replaced: int
    unchanged: int
    runs: list[str]


# --- grades -----------------------------------------------------------------------------------------

class GradeItem(TypedDict):
    id: str
    weight: float
    verdict: str
    evidence: str
    points: float
    confidence: Optional[float]
    confidenceSource: Optional[Literal["logprob", "vote"]]


class GradeClaim(TypedDict):
    text: str
    verdict: str


class GradeUsage(TypedDict):
    calls: int
    cached: bool
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    costUsd: Optional[float]
    latencyMs: int


class GradeJudge(TypedDict):
    id: str
    provider: str
    model: str
    mode: str
    configHash: str
    baseline: bool
    note: NotRequired[str]


class GradeRubric(TypedDict):
    id: str
    version: int


class Grade(TypedDict):
    """POST /api/grades: one stored grade (docs/grades.md); scores are None unless status is ok."""
    gradeId: int
    answerId: int
    status: Literal["ok", "truncated", "refused", "parse_failure", "provider_error", "no_quorum"]
    completeness: Optional[float]
    correctness: Optional[float]
    f1: Optional[float]
    items: list[GradeItem]
    claims: list[GradeClaim]
    meta: dict[str, Any]
    usage: GradeUsage
    judge: GradeJudge
    rubric: Optional[GradeRubric]
    createdAt: str
    # A panel judge's report (docs/panels.md), None for a plain judge.
    panel: Any


class GradePage(TypedDict):
    """GET /api/grades: every stored grade (every version), newest first."""
    items: list[Grade]
    total: int
    limit: int
    # Pass as cursor for the next page; None on the last page.
    nextCursor: Optional[str]


# --- run grading ------------------------------------------------------------------------------------

class GradingSkipped(TypedDict):
    task: int
    # Answers whose model call ended in error (status error), whatever text they kept.
    answerError: int
    noText: int
    noRubric: int


class GradingEnqueued(TypedDict):
    """POST /api/runs/{id}/grade."""
    gradingRunId: int
    total: int
    skipped: GradingSkipped
    alreadyGraded: int
    jobs: int
    resumed: int
    retried: int


class ProgressRun(TypedDict):
    id: int
    name: str


class ProgressJudge(TypedDict):
    id: int
    slug: str


class ProgressJobs(TypedDict):
    queued: int
    retrying: int
    active: int


class ProgressUnsettled(TypedDict):
    calls: int
    costUsd: float


class ProgressTokens(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float


class GradingProgress(TypedDict):
    """GET /api/runs/{id}/progress: remaining = total - done - failed."""
    run: ProgressRun
    judge: ProgressJudge
    status: str
    total: int
    skipped: GradingSkipped
    done: int
    failed: int
    remaining: int
    jobs: ProgressJobs
    ratePerSecond: Optional[float]
    etaSeconds: Optional[float]
    reason: Optional[str]
    elapsedSeconds: float
    calls: int
    inFlightCalls: int
    unsettled: ProgressUnsettled
    tokens: ProgressTokens
    costUsd: float
    unpricedCalls: int
    # Calls sent whose usage is unknown (timeout, no usage in the reply): tokens and costUsd leave them out.
    unknownCostCalls: int


# --- reports ----------------------------------------------------------------------------------------

class LeaderboardRow(TypedDict):
    model: str
    sizeBucket: str
    baseline: bool
    descriptions: int
    f1: Optional[float]
    f1Low: Optional[float]
    f1High: Optional[float]
    assemblies: int
    noAnswer: int
    errors: int
    neighbour: Optional[float]
    neighbourLow: Optional[float]
    neighbourHigh: Optional[float]
    direct: Optional[float]
    directLow: Optional[float]
    directHigh: Optional[float]
    proximity: Optional[float]
    proximityLow: Optional[float]
    proximityHigh: Optional[float]
    sameFamilyAsJudge: bool


class Leaderboard(TypedDict):
    """GET /api/reports/leaderboard."""
    judge: Optional[str]
    judgeBaseline: bool
    judgeNote: Optional[str]
    seed: int
    judgeFamily: Optional[str]
    rows: list[LeaderboardRow]
    unattributed: int
    unverifiable: Literal["count", "exclude"]
    unverifiableNote: Optional[str]


# --- statistics and calibration (every figure defined in docs/analysis.md) --------------------------

class KappaStat(TypedDict):
    kappa: Optional[float]
    se: Optional[float]
    ci: Interval
    reason: NotRequired[str]


class CorrelationStat(TypedDict):
    r: Optional[float]
    p: Optional[float]
    ci: NotRequired[Interval]
    reason: NotRequired[str]


class Confusion(TypedDict):
    categories: list[Category]
    matrix: list[list[float]]


class PairStats(TypedDict):
    """Two raters over the units both labelled."""
    n: int
    agreement: NotRequired[Optional[float]]
    kappa: NotRequired[KappaStat]
    weightedKappa: NotRequired[KappaStat]
    confusion: NotRequired[Confusion]
    pearson: NotRequired[CorrelationStat]
    spearman: NotRequired[CorrelationStat]
    bias: NotRequired[Optional[float]]
    mae: NotRequired[Optional[float]]
    reason: NotRequired[str]


class AlphaStat(TypedDict):
    alpha: Optional[float]
    level: Literal["nominal", "ordinal", "interval", "ratio"]
    ci: Interval
    units: int
    raters: list[str]
    reason: NotRequired[str]


class TrustHuman(TypedDict):
    annotator: str
    n: int
    value: Optional[float]


class TrustReading(TypedDict):
    statistic: Literal["weightedKappa", "kappa", "pearson"]
    value: Optional[float]
    ci: Interval
    ceiling: Optional[float]
    ceilingCi: Interval
    humanLevel: Optional[float]
    humans: list[TrustHuman]
    rule: str
    withinHumanRange: Optional[bool]
    reason: NotRequired[str]


class ModelComparison(TypedDict):
    vsHumans: dict[str, PairStats]
    vsMajority: PairStats


class TopConfusion(TypedDict):
    judge: Category
    majority: Category
    count: int


class ItemCalibration(TypedDict):
    # The item's rubric (id), null when the label rows name none: rubrics share item ids, so a row is one (rubric, item).
    rubric: Optional[str]
    item: str
    n: int
    disagreements: int
    disagreement: Optional[float]
    topConfusion: Optional[TopConfusion]
    vsHumans: dict[str, PairStats]
    vsMajority: PairStats


class AnswerScorePair(TypedDict):
    answer: str
    model: Optional[str]
    judge: float
    human: float
    units: int


class AnswerAgreement(TypedDict):
    n: int
    weighted: bool
    pearson: CorrelationStat
    spearman: CorrelationStat
    bias: Optional[float]
    mae: Optional[float]
    answers: list[AnswerScorePair]
    reason: NotRequired[str]


class JudgeCalibration(TypedDict):
    rater: str
    units: int
    vsHumans: dict[str, PairStats]
    vsMajority: PairStats
    trust: TrustReading
    byModel: dict[str, ModelComparison]
    byItem: list[ItemCalibration]
    answers: AnswerAgreement


class TiedUnit(TypedDict):
    answer: str
    item: Optional[str]


class Majority(TypedDict):
    units: int
    ties: int
    tied: list[TiedUnit]
    singleRater: int


class HumanCeiling(TypedDict):
    alpha: AlphaStat
    pairs: dict[str, PairStats]
    leaveOneOut: dict[str, PairStats]


class JudgeJudge(TypedDict):
    alpha: AlphaStat
    pairs: dict[str, PairStats]


class CalibrationReport(TypedDict):
    """POST /api/calibrate: the `assay calibrate --json` document."""
    scale: Literal["verdict", "binary", "numeric"]
    units: int
    answers: int
    items: int
    models: list[str]
    humans: list[str]
    judges: list[str]
    consensus: str
    majority: Majority
    humanCeiling: HumanCeiling
    judgeReports: list[JudgeCalibration]
    judgeJudge: Optional[JudgeJudge]
    notes: list[str]
    # Per anchored judge, its example answers left out of its figures (docs/judges.md).
    excludedExamples: dict[str, int]


class StoredCalibrationReport(CalibrationReport):
    """GET /api/reports/calibration: the report over stored grades and labels, with judge notes."""
    judgeNotes: dict[str, str]
    setAside: int
    unverifiable: Literal["count", "exclude"]
    unverifiableNote: Optional[str]


class StatsKappa(TypedDict):
    """POST /api/stats/kappa: the `assay stats kappa --json` document."""
    kappa: Optional[float]
    se: Optional[float]
    ci: Interval
    agreement: Optional[float]
    n: int
    categories: list[Category]
    method: str
    weights: str
    excluded: NotRequired[int]
    reason: NotRequired[str]
    warnings: NotRequired[list[str]]


# Which type each client method returns: (method, path, status) of the operation in /openapi.json.
RESPONSES: dict[tuple[str, str, str], type] = {
    ("post", "/api/keys", "201"): CreatedKey,
    ("post", "/api/answers", "200"): AnswerImport,
    ("get", "/api/answers", "200"): AnswerPage,
    ("post", "/api/labels", "200"): LabelImport,
    ("post", "/api/grades", "200"): Grade,
    ("get", "/api/grades", "200"): GradePage,
    ("get", "/api/grades/{id}", "200"): Grade,
    ("post", "/api/runs/{id}/grade", "202"): GradingEnqueued,
    ("get", "/api/runs/{id}/progress", "200"): GradingProgress,
    ("get", "/api/reports/leaderboard", "200"): Leaderboard,
    ("get", "/api/reports/calibration", "200"): StoredCalibrationReport,
    ("post", "/api/stats/kappa", "200"): StatsKappa,
    ("post", "/api/calibrate", "200"): CalibrationReport,
}
