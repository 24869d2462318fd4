/**
 * The status of a stored grade (`grades.status`). A failure is a status with a reason, never a score:
 * only `ok` grades carry verdicts and scores. `provider_error` is the one status that is not final — the
 * answer still needs a grade from that judge (a re-run asks again); every other status is final.
 * A panel grade may also be `no_quorum` (NO_QUORUM_STATUS, src/domain/panel.ts; not a call outcome, so
 * not in this list): it is final unless every abstention was a provider_error (meta.panel.retryable) —
 * src/services/grading/needs-grading.ts.
 */
export const GRADE_STATUSES = ['ok', 'truncated', 'refused', 'parse_failure', 'provider_error'] as const;
export type GradeStatus = (typeof GRADE_STATUSES)[number];
