import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { JUDGES_DIR, loadJudge } from '../../src/judges/config.ts';
import { isPanelFile, loadPanel, panelJudges, parsePanelConfig } from '../../src/judges/panel-config.ts';
import { badInputMessage } from '../helpers/errors.ts';

/** Panel judge files (provider: panel): schema, defaults, member resolution and the exit-2 refusals. */

const judgeFile = (id: string, extra: Record<string, unknown> = {}) => ({ id, provider: 'openai', model: 'gpt-4.1', prompt: 'prompts/rubric-v1.md', ...extra });

/** A directory of judge files; returns its path. */
function dirWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'assay-panel-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), stringify(content));
  }
  return dir;
}

const schema = JSON.parse(readFileSync(join(JUDGES_DIR, 'schema.json'), 'utf8'));
const validate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, validateFormats: false }).compile(schema);

describe('panel files', () => {
  const dir = dirWith({
    'j1.yaml': judgeFile('j1'),
    'sub/j2.yaml': judgeFile('j2', { model: 'gpt-4.1-mini' }),
    'panel-3.yaml': { id: 'panel-3', provider: 'panel', members: ['j1', 'sub/j2.yaml', 'claude'] },
  });

  it('loads members by id next to the panel, by path relative to it, and by id from judges/; defaults filled in', () => {
    const p = loadPanel(join(dir, 'panel-3.yaml'));
    expect(p.config).toEqual({ id: 'panel-3', provider: 'panel', members: ['j1', 'sub/j2.yaml', 'claude'], samples: 1, vote: 'majority', shuffle: false, seed: 1 });
    expect(p.quorum).toBe(2);
    expect(p.members.map((m) => (m.kind === 'judge' ? [m.ref, m.judge.config.id, m.judge.config.provider] : null))).toEqual([
      ['j1', 'j1', 'openai'],
      ['sub/j2.yaml', 'j2', 'openai'],
      ['claude', 'claude', 'anthropic'],
    ]);
    expect(panelJudges(p).map((j) => j.config.id)).toEqual(['j1', 'j2', 'claude']);
  });

  it('loads by id from a judges directory, like loadJudge', () => {
    expect(loadPanel('panel-3', dir).config.id).toBe('panel-3');
  });

  it('the default quorum is more than half of members × samples', () => {
    const d = dirWith({ 'a.yaml': judgeFile('a'), 'b.yaml': judgeFile('b'), 'p.yaml': { id: 'p', provider: 'panel', members: ['a', 'b'], samples: 2 } });
    expect(loadPanel(join(d, 'p.yaml')).quorum).toBe(3);
    writeFileSync(join(d, 'p.yaml'), stringify({ id: 'p', provider: 'panel', members: ['a', 'b'], samples: 2, quorum: 4, vote: 'mean', shuffle: true, seed: 9 }));
    expect(loadPanel(join(d, 'p.yaml'))).toMatchObject({ quorum: 4, config: { vote: 'mean', shuffle: true, seed: 9 } });
  });

  it('its hash changes with any member’s config, and not with key order', () => {
    const d = dirWith({ 'a.yaml': judgeFile('a'), 'p.yaml': { id: 'p', provider: 'panel', members: ['a'] } });
    const before = loadPanel(join(d, 'p.yaml')).configHash;
    writeFileSync(join(d, 'p.yaml'), stringify({ members: ['a'], provider: 'panel', id: 'p' }));
    expect(loadPanel(join(d, 'p.yaml')).configHash).toBe(before);
    writeFileSync(join(d, 'a.yaml'), stringify(judgeFile('a', { params: { temperature: 0.5 } })));
    expect(loadPanel(join(d, 'p.yaml')).configHash).not.toBe(before);
  });

  it('a panel may list another panel (nested), flattened in panelJudges', () => {
    const d = dirWith({
      'a.yaml': judgeFile('a'),
      'b.yaml': judgeFile('b'),
      'inner.yaml': { id: 'inner', provider: 'panel', members: ['a', 'b'] },
      'outer.yaml': { id: 'outer', provider: 'panel', members: ['inner', 'a'] },
    });
    const p = loadPanel(join(d, 'outer.yaml'));
    expect(p.members.map((m) => m.kind)).toEqual(['panel', 'judge']);
    expect(panelJudges(p).map((j) => j.config.id)).toEqual(['a', 'b']);
  });

  it('validates against judges/schema.json, which still accepts every single-judge file and refuses a bad panel', () => {
    expect(validate({ id: 'panel-3', provider: 'panel', members: ['claude', 'gpt'], samples: 2, vote: 'mean', quorum: 3, shuffle: true, seed: 1 }), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(loadJudge('gpt').config)).toBe(true);
    expect(validate({ id: 'p', provider: 'panel', members: ['gpt'], vote: 'median' })).toBe(false);
    expect(validate({ id: 'p', provider: 'panel', members: [] })).toBe(false);
    expect(validate({ id: 'p', provider: 'panel', members: ['gpt'], model: 'x' })).toBe(false);
    expect(validate({ id: 'p', provider: 'panel', members: ['gpt'], samples: 0 })).toBe(false);
    expect(validate({ id: 'x', provider: 'openai', model: 'm', members: ['gpt'] })).toBe(false);
  });

  it('isPanelFile tells a panel from a judge before parsing', () => {
    expect(isPanelFile({ provider: 'panel' })).toBe(true);
    expect(isPanelFile({ provider: 'openai' })).toBe(false);
    expect(isPanelFile(null)).toBe(false);
    expect(isPanelFile(['panel'])).toBe(false);
  });
});

describe('panel files refused (exit 2, one line)', () => {
  const base = { id: 'p', provider: 'panel' };

  it('an unknown member, naming the entry and where it was looked for', () => {
    const d = dirWith({ 'p.yaml': { ...base, members: ['gpt', 'no-such-judge'] } });
    expect(badInputMessage(() => loadPanel(join(d, 'p.yaml')))).toBe(`panel ${join(d, 'p.yaml')}: members[1]: 'no-such-judge' is not a judge id in ${d} or judges/ nor a judge file`);
    const e = dirWith({ 'p.yaml': { ...base, members: ['./missing.yaml'] } });
    expect(badInputMessage(() => loadPanel(join(e, 'p.yaml')))).toMatch(/members\[0\]: '\.\/missing\.yaml' is not a judge id .* nor a judge file/);
  });

  it('a panel that lists itself, by id or by path', () => {
    const d = dirWith({ 'p.yaml': { ...base, members: ['gpt', 'p'] } });
    expect(badInputMessage(() => loadPanel(join(d, 'p.yaml')))).toMatch(/members\[1\]: 'p' is this panel itself \(a panel cannot list itself\)/);
    const e = dirWith({ 'p.yaml': { ...base, id: 'other', members: ['./p.yaml'] } });
    expect(badInputMessage(() => loadPanel(join(e, 'p.yaml')))).toMatch(/members\[0\]: '\.\/p\.yaml' is this panel itself/);
  });

  it('a cycle of panels, with the cycle spelled out', () => {
    const d = dirWith({
      'a.yaml': { id: 'a', provider: 'panel', members: ['gpt', 'b'] },
      'b.yaml': { id: 'b', provider: 'panel', members: ['c'] },
      'c.yaml': { id: 'c', provider: 'panel', members: ['a'] },
    });
    expect(badInputMessage(() => loadPanel(join(d, 'a.yaml')))).toBe(`panel ${join(d, 'c.yaml')}: members[0]: 'a' makes a cycle of panels (a → b → c → a)`);
  });

  it('a quorum above members × samples, samples below 1, a member listed twice', () => {
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a', 'b', 'c'], quorum: 4 }, 'panel p.yaml'))).toBe(
      "panel p.yaml: quorum: 4 is more than the panel's 3 samples (3 members × 1 samples)",
    );
    expect(parsePanelConfig({ ...base, members: ['a', 'b', 'c'], samples: 2, quorum: 6 }, 'p').quorum).toBe(6);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a'], samples: 0 }, 'panel p.yaml'))).toBe('panel p.yaml: samples: must be at least 1 (each member is asked this many times)');
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a'], samples: 1.5 }, 'p'))).toMatch(/samples: must be a whole number/);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a'], quorum: 0 }, 'p'))).toMatch(/quorum: must be at least 1/);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a', 'b', 'a'] }, 'p'))).toMatch(/members\.2: 'a' is listed twice \(to ask a judge more than once, set samples\)/);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: [] }, 'p'))).toMatch(/members: a panel needs at least one member/);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a'], vote: 'median' }, 'p'))).toMatch(/^p: vote: /);
    expect(badInputMessage(() => parsePanelConfig({ ...base, members: ['a'], model: 'gpt-4.1' }, 'p'))).toMatch(/model/);
  });

  it('two entries that are the same judge, a non-rubric member, a broken member file', () => {
    const d = dirWith({ 'copy.yaml': judgeFile('gpt'), 'p.yaml': { ...base, members: ['gpt', './copy.yaml'] } });
    expect(badInputMessage(() => loadPanel(join(d, 'p.yaml')))).toMatch(/members\[1\]: '\.\/copy\.yaml' is judge gpt, as members\[0\] is/);
    const e = dirWith({ 'p.yaml': { ...base, members: ['claude-reference-match'] } });
    expect(badInputMessage(() => loadPanel(join(e, 'p.yaml')))).toMatch(/members\[0\]: judge claude-reference-match is a reference-match judge; a panel votes on rubric items/);
    const f = dirWith({ 'bad.yaml': { id: 'bad', provider: 'openai', model: 'm' }, 'p.yaml': { ...base, members: ['bad'] } });
    expect(badInputMessage(() => loadPanel(join(f, 'p.yaml')))).toBe(`panel ${join(f, 'p.yaml')}: members[0]: judge ${join(f, 'bad.yaml')}: prompt: a openai judge needs a prompt template`);
  });

  it('loadPanel on a single judge says it is not a panel', () => {
    expect(badInputMessage(() => loadPanel('gpt'))).toBe("judge gpt.yaml: not a panel (provider is 'openai', expected 'panel')");
    expect(badInputMessage(() => loadPanel('no-such'))).toMatch(/no such judge/);
  });
});
