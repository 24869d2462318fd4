import type { TangramResult } from './verify.ts';

/**
 * Per-model rates over a batch of verified answers. Rates are shares of all n answers (an answer can
 * fail several checks, so they do not add up to 1); physical = overlap or connectivity. Means of IoU
 * and Hausdorff run over the `parsed` answers (no syntax error): a syntax error has no figure to measure.
 */
export interface TangramModelSummary {
  n: number;
  parsed: number;
  syntaxErrorRate: number;
  rigidErrorRate: number;
  physicalErrorRate: number;
  overlapErrorRate: number;
  connectivityErrorRate: number;
  validPassRate: number;
  successRate: number;
  meanIou: number | null;
  meanHausdorff: number | null;
  reason?: string;
}

export function summarizeTangram(rows: { model: string; result: TangramResult }[]): Record<string, TangramModelSummary> {
  const byModel = new Map<string, TangramResult[]>();
  for (const { model, result } of rows) byModel.set(model, [...(byModel.get(model) ?? []), result]);
  // entries, not assignment into {}: a model named "__proto__" would set the prototype and vanish
  const out: Array<[string, TangramModelSummary]> = [];
  for (const model of [...byModel.keys()].sort()) {
    const rs = byModel.get(model)!;
    const share = (pred: (r: TangramResult) => boolean) => rs.filter(pred).length / rs.length;
    const ious = rs.flatMap((r) => (r.iou === null ? [] : [r.iou]));
    const hds = rs.flatMap((r) => (r.hausdorff === null ? [] : [r.hausdorff]));
    const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
    const summary: TangramModelSummary = {
      n: rs.length,
      parsed: rs.filter((r) => !r.syntaxError).length,
      syntaxErrorRate: share((r) => r.syntaxError),
      rigidErrorRate: share((r) => r.rigidError === true),
      physicalErrorRate: share((r) => r.overlapError === true || r.connectivityError === true),
      overlapErrorRate: share((r) => r.overlapError === true),
      connectivityErrorRate: share((r) => r.connectivityError === true),
      validPassRate: share((r) => r.validPass),
      successRate: share((r) => r.success),
      meanIou: mean(ious),
      meanHausdorff: mean(hds),
    };
    if (summary.meanIou === null) {
      summary.reason =
        summary.parsed === 0 ? 'no answer of this model could be measured (all syntax errors)' : 'no answer of this model could be measured (syntax errors, or overlap and silhouette not checked: see problems)';
    } else if (summary.meanHausdorff === null) summary.reason = 'no Hausdorff distance measured: no answer of this model has pieces covering any area';
    out.push([model, summary]);
  }
  return Object.fromEntries(out);
}
