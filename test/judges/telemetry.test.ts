import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.ts';
import { FIXTURES, ROOT, runCliAsync } from '../helpers/cli.ts';
import { fullVerdicts } from './harness.ts';

/**
 * OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT set, `assay grade` sends a GenAI span per judge call to
 * an OTLP/HTTP collector (a fake one here, reading the JSON the real exporter posts); without it no
 * OpenTelemetry code is loaded.
 */

interface OtlpAttr { key: string; value: Record<string, unknown> }
interface OtlpSpan { name: string; kind: number; spanId: string; parentSpanId?: string; traceId: string; attributes: OtlpAttr[]; status?: { code?: number } }

const runAsync = (args: string[], env: NodeJS.ProcessEnv) => runCliAsync(args, { env, timeoutMs: 240_000 });

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v ? (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.arrayValue) : undefined;
};

describe('judge call spans', () => {
  let dir: string;
  let fake: FakeProvider;
  let collector: Server;
  let collectorUrl = '';
  const posts: { path: string; type: string; spans: OtlpSpan[]; service: unknown }[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'assay-otel-'));
    fake = await startFakeProvider({ script: [{ kind: 'verdicts', output: fullVerdicts() }] });
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const doc = JSON.parse(body) as { resourceSpans: { resource: { attributes: OtlpAttr[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };
        for (const rs of doc.resourceSpans) {
          posts.push({
            path: req.url ?? '',
            type: String(req.headers['content-type']),
            spans: rs.scopeSpans.flatMap((s) => s.spans),
            service: rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue,
          });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await fake.close();
    await new Promise((r) => collector.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('assay grade sends one `chat <model>` span with the GenAI attributes (model, tokens, stop) before it exits', async () => {
    const judgeFile = join(dir, 'fake-claude.yaml');
    writeFileSync(judgeFile, `id: fake-claude\nprovider: anthropic\nmodel: claude-sonnet-5\nbaseUrl: ${fake.url}\nprompt: prompts/rubric-v1.md\n`);
    const env = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'data'), OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_SERVICE_NAME: 'assay-test' };
    const r = await runAsync(['grade', '--rubric', `${FIXTURES}farmyard.rubric.yaml`, '--answer', `${FIXTURES}farmyard.answer.txt`, '--judge', judgeFile, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const grade = JSON.parse(r.stdout) as { usage: { input: number; output: number; cacheRead: number; cacheWrite: number } };
    expect(fake.calls).toHaveLength(1);
    const spans = posts.flatMap((p) => p.spans);
    const ours = spans.filter((s) => s.name.startsWith('chat '));
    expect(ours.map((s) => s.name)).toEqual(['chat claude-sonnet-5']);
    expect(posts[0]).toMatchObject({ path: '/v1/traces', type: expect.stringMatching(/^application\/json/), service: 'assay-test' });
    const [span] = ours;
    // The Anthropic SDK traces its own request once a tracer provider is registered: a child of ours.
    const sdk = spans.filter((s) => !s.name.startsWith('chat '));
    expect(sdk.map((s) => [s.name, s.parentSpanId, s.traceId])).toEqual([['anthropic.messages.create', span!.spanId, span!.traceId]]);
    expect(span!.kind).toBe(3); // OTLP's SPAN_KIND_CLIENT
    expect(attr(span!, 'gen_ai.operation.name')).toBe('chat');
    expect(attr(span!, 'gen_ai.provider.name')).toBe('anthropic');
    expect(attr(span!, 'gen_ai.request.model')).toBe('claude-sonnet-5');
    expect(attr(span!, 'assay.judge.id')).toBe('fake-claude');
    // Every input token, the prompt cache's included (the grade's `input` is the uncached part).
    expect(grade.usage.cacheWrite).toBeGreaterThan(0);
    expect(attr(span!, 'gen_ai.usage.input_tokens')).toBe(grade.usage.input + grade.usage.cacheRead + grade.usage.cacheWrite);
    expect(attr(span!, 'gen_ai.usage.cache_creation.input_tokens')).toBe(grade.usage.cacheWrite);
    expect(attr(span!, 'gen_ai.usage.output_tokens')).toBe(grade.usage.output);
    expect(attr(span!, 'assay.stop')).toBe('complete');
    expect(span!.status?.code ?? 0).not.toBe(2);
  }, 300_000);

  it('assay run is one `assay.run <run>` span, the parent of each of its judge calls', async () => {
    const judgeFile = join(dir, 'fake-claude-run.yaml');
    writeFileSync(judgeFile, `id: fake-claude-run\nprovider: anthropic\nmodel: claude-sonnet-5\nbaseUrl: ${fake.url}\nprompt: prompts/rubric-v1.md\n`);
    const answers = join(dir, 'two.jsonl');
    const text = readFileSync(`${FIXTURES}farmyard.answer.txt`, 'utf8');
    writeFileSync(answers, [1, 2].map((i) => JSON.stringify({ id: `a${i}`, run: 'traced', model: 'm', task: 'describe', rubric: 'farmyard-54', text: `${text} (${i})` })).join('\n'));
    const env = { ANTHROPIC_API_KEY: 'sk-ant-fake', OPENAI_API_KEY: '', OPENAI_BASE_URL: '', DATABASE_URL: '', ASSAY_DATA_DIR: join(dir, 'run-data') };
    for (const args of [['import', 'rubrics', `${FIXTURES}farmyard.rubric.yaml`], ['import', 'answers', answers]]) expect((await runAsync(args, env)).code).toBe(0);
    posts.length = 0;
    const r = await runAsync(['run', '--run', 'traced', '--judge', judgeFile, '--json'], { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl });
    expect(r.code, r.stderr).toBe(0);
    const spans = posts.flatMap((p) => p.spans);
    const runs = spans.filter((x) => x.name === 'assay.run traced');
    expect(runs).toHaveLength(1);
    expect(attr(runs[0]!, 'assay.run.done')).toBe(2);
    const calls = spans.filter((x) => x.name === 'chat claude-sonnet-5');
    expect(calls).toHaveLength(2);
    for (const c of calls) expect([c.traceId, c.parentSpanId]).toEqual([runs[0]!.traceId, runs[0]!.spanId]);
  }, 300_000);

  it('is off with no endpoint: only src/telemetry.ts loads the SDK (dynamically); judges/ imports its types only', () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.tsx?$/.test(f)) files.push(p);
      }
    };
    walk(join(ROOT, 'src'));
    const uses = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^.*['"]@opentelemetry\/[^'"]+['"].*$/gm)].map((m) => [relative(ROOT, f), m[0].trim()]));
    const byFile = new Map<string, string[]>();
    for (const [f, line] of uses) byFile.set(f!, [...(byFile.get(f!) ?? []), line!]);
    expect([...byFile.keys()].sort()).toEqual(['src/judges/telemetry.ts', 'src/telemetry.ts']);
    expect(byFile.get('src/judges/telemetry.ts')!.every((l) => l.startsWith('import type '))).toBe(true);
    expect(byFile.get('src/telemetry.ts')!.every((l) => /^import\('@opentelemetry\//.test(l))).toBe(true);
  });
});
