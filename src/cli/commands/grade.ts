import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from '../command.ts';
import { parseRowId, ROW_ID_TEXT } from '../../domain/limits.ts';
import { withDatabase } from '../database.ts';
import { Fields } from '../../domain/fields.ts';
import { checkImageFile, choiceFlag, fieldFlag, readText, requireFlag } from '../io.ts';
import { readStructured } from '../read-structured.ts';
import { keyValues, table } from '../table.ts';
import type { GradeDetail } from '../../services/grading/grade-detail.ts';
import { unknownCostCalls, unknownCostText } from '../../services/grading/grade-cost.ts';

/**
 * `assay grade`: one answer, one judge, stored in the database (ASSAY_DATA_DIR or DATABASE_URL).
 * Exit 0 when the grade is ok, 1 when the judge failed (the report, with its status and reason, is
 * still printed and stored), 2 on bad input. A failed call never replaces a stored ok grade: that grade
 * is printed (it is the one reports use), its meta.lastAttempt says this call failed and why, exit 1.
 */

interface LastAttempt {
  status: string;
  reason: string | null;
  at: string;
}
/** This call failed and the stored ok grade was kept (a grade just written carries no lastAttempt). */
const failedAttempt = (g: GradeDetail): LastAttempt | null => (g.meta.lastAttempt as LastAttempt | undefined) ?? null;

const num = (x: number | null): string => (x === null ? '—' : x.toFixed(4));

function render(g: GradeDetail): string {
  const u = g.usage;
  const failed = failedAttempt(g);
  const lines: string[] = [];
  if (g.judge.baseline) lines.push(`NOTE: ${g.judge.note} — scores are a floor, not a judgement.`, '');
  lines.push(
    `${g.rubric ? `${g.rubric.id} v${g.rubric.version}` : 'no rubric'}, answer ${g.answerId}, judge ${g.judge.id} (${g.judge.provider} ${g.judge.model})`,
    '',
    keyValues([
      ['status', g.status + (g.meta.reason ? ` — ${String(g.meta.reason)}` : '')],
      ['completeness', num(g.completeness)],
      ['correctness', num(g.correctness)],
      ['f1', num(g.f1)],
      ...(failed ? ([['this call', `${failed.status}${failed.reason ? ` — ${failed.reason}` : ''}; the stored ok grade (written ${g.createdAt}) is kept`]] as Array<[string, string]>) : []),
      ...(typeof g.meta.label === 'string' ? ([['label', `${g.meta.label} — ${String(g.meta.rationale)}`]] as Array<[string, string]>) : []),
      ['calls', `${u.calls}${u.cached ? ' (cached verdict, no provider call)' : ''}`],
      // Calls of unknown usage are not in the tokens: then a lower bound. The cost says why it is unknown.
      ['tokens', `${unknownCostCalls(g.meta) ? 'at least ' : ''}input ${u.input}, output ${u.output}, cache read ${u.cacheRead}, cache write ${u.cacheWrite}`],
      ['cost', unknownCostText(u.costUsd, g.meta) ?? `$${u.costUsd!.toFixed(6)}`],
    ]),
  );
  if (g.items.length) {
    lines.push('', table(['item', 'weight', 'verdict', 'points', 'evidence'], g.items.map((i) => [i.id, i.weight, i.verdict, i.points, i.evidence.slice(0, 60)]), 2));
  }
  if (g.claims.length) lines.push('', table(['claim', 'verdict'], g.claims.map((c) => [c.text.slice(0, 90), c.verdict])));
  if (g.panel) {
    // A panel judge (docs/panels.md): every member sample, then the vote's agreement per item.
    const p = g.panel;
    lines.push('', `panel: ${p.okSamples} of ${p.samples} samples ok, quorum ${p.quorum}, vote ${p.vote}, mean item agreement ${num(p.agreement.meanItemAgreement)}`);
    lines.push('', table(['sample', 'status', 'completeness', 'correctness'], p.members.map((m) => [`${m.judge}#${m.sample}`, m.status, num(m.completeness), num(m.correctness)])));
    lines.push('', table(['item', 'vote', 'correct', 'partial', 'incorrect', 'missing', 'agreement'], p.items.map((i) => [i.id, i.verdict ?? '—', i.votes.correct, i.votes.partial, i.votes.incorrect, i.votes.missing, num(i.agreement)])));
  }
  return lines.join('\n');
}

const grade: Command = {
  path: ['grade'],
  summary: 'Grade one answer with a judge (stored in the database); the lexical baseline when no key is set',
  usage: '--rubric R.yaml|SLUG --answer A.txt|ANSWER_ID [--judge ID|FILE] [--image P] [--run NAME] [--model MODEL] [--unverifiable count|exclude]',
  options: {
    rubric: { type: 'string' },
    answer: { type: 'string' },
    judge: { type: 'string' },
    image: { type: 'string' },
    run: { type: 'string' },
    model: { type: 'string' },
    unverifiable: { type: 'string' },
  },
  async run({ values }) {
    const rubricRef = requireFlag(values, 'rubric');
    const answerRef = requireFlag(values, 'answer');
    const policy = choiceFlag(values, 'unverifiable', ['count', 'exclude'] as const, 'count');
    const { badInput } = await import('../../domain/errors.ts');
    const { parseRubric } = await import('../../scoring/description/rubric.ts');
    const { gradeAnswer, judgeImage, namedJudge, openJudge } = await import('../../services/grading/grade-answer.ts');
    const { loadConfig, providerKeys } = await import('../../config.ts');

    // Everything the user named is read and checked before the database is opened: bad input writes nothing.
    const config = loadConfig(process.env);
    const keys = providerKeys(config);
    const named = namedJudge(typeof values.judge === 'string' ? values.judge : undefined, keys, { from: 'local' });
    const rubricIsFile = existsSync(rubricRef);
    const rubric = rubricIsFile ? parseRubric(readStructured(rubricRef, 'rubric'), `rubric ${rubricRef}`) : { slug: rubricRef };
    if (!rubricIsFile && /[\\/]|\.(ya?ml|json)$/i.test(rubricRef)) throw badInput(`rubric ${rubricRef}: no such file`);
    const runName = fieldFlag(values, 'run', Fields.run);
    const model = fieldFlag(values, 'model', Fields.model);
    let answer: { id: number } | { text: string; run?: string; model?: string };
    if (existsSync(answerRef)) answer = { text: readText(answerRef, 'answer'), ...(runName !== undefined ? { run: runName } : {}), ...(model !== undefined ? { model } : {}) };
    else if (ROW_ID_TEXT.test(answerRef)) {
      if (typeof values.run === 'string') throw badInput('--run names the run of an answer given as text; a stored answer id already has its run');
      if (typeof values.model === 'string') throw badInput('--model names the model of an answer given as text; a stored answer id already has its model');
      answer = { id: parseRowId(answerRef, 'answer id') };
    } else throw badInput(`answer ${answerRef}: no such file (nor a stored answer id)`);
    let imagePath = typeof values.image === 'string' ? values.image : undefined;
    if (!imagePath && rubricIsFile && 'image' in rubric && rubric.image) {
      const candidate = resolve(dirname(rubricRef), rubric.image);
      if (existsSync(candidate)) imagePath = candidate;
    }
    if (imagePath) checkImageFile(imagePath);
    const image = imagePath ? judgeImage(imagePath) : undefined;
    // A judge that cannot be built (no key) is bad input too, found before the database is touched.
    const judge = await openJudge(named, keys);

    return withDatabase(async (database) => {
      const g = await gradeAnswer(database, { judge, keys, rubric, answer, unverifiable: policy, ...(image ? { image } : {}) });
      // The one grade shape (docs/grades.md), as POST /api/grades returns it.
      const failed = failedAttempt(g);
      // The reason on stderr too: stdout holds the kept grade, whose status is ok.
      if (failed) process.stderr.write(`assay grade: the judge call failed (${failed.status}${failed.reason ? `: ${failed.reason}` : ''}); grade ${g.gradeId} (ok) is kept\n`);
      return { json: g, text: render(g), exitCode: g.status === 'ok' && !failed ? 0 : 1 };
    });
  },
};

export default grade;
