import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { badInput, isAssayError } from '../domain/errors.ts';
import { CAPS, INT4_MAX } from '../domain/limits.ts';
import { defaultQuorum, PANEL_VOTES } from '../domain/panel.ts';
import { readInputText } from '../input/text-file.ts';
import { parseYamlInput } from '../input/yaml.ts';
import { canonicalJson, JUDGES_DIR, type LoadedJudge, loadJudge, sha256 } from './config.ts';

/**
 * Panel judge files (`provider: panel`, design §2.5): a judge made of judges. This module parses and
 * checks a panel file and loads its members (judges or other panels), refusing with one bad-input line
 * (exit 2) an unknown member, a panel that lists itself or a cycle of panels, a quorum above
 * members × samples and samples below 1. It does not grade: wiring panels into grading (services/grading)
 * uses `loadPanel` and the pure vote in src/scoring/panel.
 */

/** Caps that keep a typo from multiplying the bill: at most 20 × 20 = 400 calls per answer. */
export const MAX_PANEL_MEMBERS = 20;
export const MAX_PANEL_SAMPLES = 20;

export const PanelConfigSchema = z
  .object({
    id: z.string().min(1).max(CAPS.name).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'judge ids are letters, digits, . _ -'),
    description: z.string().max(CAPS.itemText).optional(),
    provider: z.literal('panel'),
    members: z
      .array(z.string().min(1).max(CAPS.path))
      .min(1, 'a panel needs at least one member')
      .max(MAX_PANEL_MEMBERS, `a panel has at most ${MAX_PANEL_MEMBERS} members`)
      .describe('judge ids in judges/ (or next to this file) or paths to judge files, relative to this file'),
    samples: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1 (each member is asked this many times)')
      .max(MAX_PANEL_SAMPLES, `must be at most ${MAX_PANEL_SAMPLES}`)
      .default(1)
      .describe('each member is asked this many times (each sample its own cached call)'),
    vote: z.enum(PANEL_VOTES).default('majority'),
    quorum: z.number().int('must be a whole number').min(1, 'must be at least 1').optional().describe('ok samples needed; default more than half of members × samples'),
    shuffle: z.boolean().default(false).describe('each sample sees the rubric items in its own seeded order'),
    seed: z.number().int('must be a whole number').min(0).max(INT4_MAX).default(1),
  })
  .strict()
  .superRefine((c, ctx) => {
    const total = c.members.length * c.samples;
    if (c.quorum !== undefined && c.quorum > total) {
      ctx.addIssue({ code: 'custom', path: ['quorum'], message: `${c.quorum} is more than the panel's ${total} samples (${c.members.length} members × ${c.samples} samples)` });
    }
    const seen = new Set<string>();
    c.members.forEach((m, i) => {
      if (seen.has(m)) ctx.addIssue({ code: 'custom', path: ['members', i], message: `'${m}' is listed twice (to ask a judge more than once, set samples)` });
      seen.add(m);
    });
  });

export type PanelConfig = z.infer<typeof PanelConfigSchema>;

export type PanelMember = { kind: 'judge'; ref: string; judge: LoadedJudge } | { kind: 'panel'; ref: string; panel: LoadedPanel };

export interface LoadedPanel {
  config: PanelConfig;
  /** The panel file; members' relative paths resolve from its directory. */
  path: string;
  baseDir: string;
  /** The quorum in force (the file's, or the default). */
  quorum: number;
  members: PanelMember[];
  /** sha256 over the panel's settings and its members' config hashes: any member change changes it. */
  configHash: string;
}

const PATHLIKE = /[\\/]|\.ya?ml$|\.json$/i;

/** True for a parsed judge file that declares a panel (`provider: panel`). */
export const isPanelFile = (raw: unknown): boolean =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).provider === 'panel';

const memberIdOf = (m: PanelMember): string => (m.kind === 'judge' ? m.judge.config.id : m.panel.config.id);

function readJudgeFile(path: string): unknown {
  return parseYamlInput(readInputText(path, { what: 'judge' }), `judge ${path}`);
}

/**
 * A member reference: a path (relative to the panel file) or an id, looked up next to the panel, then in
 * the judges directory the panel was loaded from, then in the bundled judges/.
 */
function memberPath(ref: string, panelDir: string, judgesDir: string): string | null {
  if (PATHLIKE.test(ref)) {
    const p = isAbsolute(ref) ? ref : resolve(panelDir, ref);
    return existsSync(p) ? p : null;
  }
  for (const dir of new Set([resolve(panelDir), resolve(judgesDir), resolve(JUDGES_DIR)])) {
    const p = join(dir, `${ref}.yaml`);
    if (existsSync(p)) return p;
  }
  return null;
}

const real = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/** Re-raises a member's own bad-input line under the panel's name, so the user sees which entry failed. */
function underMember<T>(where: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (isAssayError(e) && e.code === 'bad_input') throw badInput(`${where}: ${e.message}`);
    throw e;
  }
}

export function parsePanelConfig(raw: unknown, where: string): PanelConfig {
  // Said plainly rather than as an unknown key: the members are asked, with their own prompts.
  if (raw !== null && typeof raw === 'object' && 'examples' in raw) {
    throw badInput(`${where}: examples: a panel has no prompt of its own; list the examples on its member judges`);
  }
  const r = PanelConfigSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw badInput(`${where}: ${i.path.length ? i.path.join('.') + ': ' : ''}${i.message}`);
  }
  return r.data;
}

/** `stack` holds the real paths of the panels being loaded, outermost first (cycle detection). */
function loadPanelFile(path: string, judgesDir: string, stack: Array<{ path: string; id: string }>): LoadedPanel {
  const where = `panel ${path}`;
  const config = parsePanelConfig(readJudgeFile(path), where);
  const self = real(path);
  const chain = [...stack, { path: self, id: config.id }];
  const baseDir = dirname(path);
  const members = config.members.map((ref, i): PanelMember => {
    const at = `${where}: members[${i}]`;
    if (ref === config.id && !PATHLIKE.test(ref)) throw badInput(`${at}: '${ref}' is this panel itself (a panel cannot list itself)`);
    const file = memberPath(ref, baseDir, judgesDir);
    if (file === null) {
      const dirs = resolve(baseDir) === resolve(judgesDir) ? 'judges/' : `${baseDir} or judges/`;
      throw badInput(`${at}: '${ref}' is not a judge id in ${dirs} nor a judge file`);
    }
    const target = real(file);
    const loop = chain.findIndex((p) => p.path === target);
    if (loop === chain.length - 1) throw badInput(`${at}: '${ref}' is this panel itself (a panel cannot list itself)`);
    if (loop >= 0) {
      const cycle = [...chain.slice(loop).map((p) => p.id), chain[loop]!.id].join(' → ');
      throw badInput(`${at}: '${ref}' makes a cycle of panels (${cycle})`);
    }
    const raw = underMember(at, () => readJudgeFile(file));
    if (isPanelFile(raw)) return { kind: 'panel', ref, panel: loadPanelFile(file, judgesDir, chain) };
    const judge = underMember(at, () => loadJudge(file));
    if (judge.config.mode !== 'rubric') {
      throw badInput(`${at}: judge ${judge.config.id} is a ${judge.config.mode} judge; a panel votes on rubric items, so every member must be a rubric judge`);
    }
    return { kind: 'judge', ref, judge };
  });
  // Reports name samples by member id, so two entries that load judges with one id would be indistinguishable.
  const ids = new Map<string, number>();
  members.forEach((m, i) => {
    const id = memberIdOf(m);
    // The panel's grades are stored under its id as a member's are under the member's: one id, two judges.
    if (id === config.id) throw badInput(`${where}: members[${i}]: '${config.members[i]}' is judge ${id}, the panel's own id (a member's grades are stored under its id: rename the member or the panel)`);
    const first = ids.get(id);
    if (first !== undefined) throw badInput(`${where}: members[${i}]: '${config.members[i]}' is judge ${id}, as members[${first}] is (each member once; set samples to ask it again)`);
    ids.set(id, i);
  });
  const quorum = config.quorum ?? defaultQuorum(config.members.length * config.samples);
  return { config, path, baseDir, quorum, members, configHash: panelConfigHash(config, quorum, members) };
}

/** A panel's config hash: its settings and its members' hashes (recomputed once members' examples are resolved). */
export function panelConfigHash(config: PanelConfig, quorum: number, members: readonly PanelMember[]): string {
  return sha256(canonicalJson({ panel: { ...config, quorum }, members: members.map((m) => (m.kind === 'judge' ? m.judge.configHash : m.panel.configHash)) }));
}

/**
 * `ref` is a panel id in `dir` (judges/ by default) or a path to a panel file, as for loadJudge.
 * Member ids resolve next to the panel file first, then in `dir`, then in the bundled judges/; member
 * paths resolve from the panel file's directory.
 */
export function loadPanel(ref: string, dir = JUDGES_DIR): LoadedPanel {
  const path = PATHLIKE.test(ref) ? resolve(ref) : join(dir, `${ref}.yaml`);
  if (!existsSync(path)) throw badInput(`judge ${ref}: no such judge (not an id in judges/ nor a file)`);
  const raw = readJudgeFile(path);
  if (!isPanelFile(raw)) throw badInput(`judge ${basename(path)}: not a panel (provider is '${String((raw as Record<string, unknown> | null)?.provider)}', expected 'panel')`);
  return loadPanelFile(path, dir, []);
}

/** Every member judge of a panel, nested panels flattened, each once (what a run must be able to call). */
export function panelJudges(panel: LoadedPanel): LoadedJudge[] {
  const out = new Map<string, LoadedJudge>();
  const walk = (p: LoadedPanel) => {
    for (const m of p.members) {
      if (m.kind === 'judge') out.set(m.judge.configHash, m.judge);
      else walk(m.panel);
    }
  };
  walk(panel);
  return [...out.values()];
}

/** A judge file of either kind, as grading takes it. */
export type AnyLoadedJudge = LoadedJudge | LoadedPanel;

export const isLoadedPanel = (j: AnyLoadedJudge): j is LoadedPanel => j.config.provider === 'panel';

/**
 * A judge id in `dir` or a judge file path, loaded as a panel when the file says `provider: panel` and
 * as a judge otherwise (loadJudge's refusals unchanged). `byIdOnly`: a request names an id, never a path.
 */
export function loadJudgeOrPanel(ref: string, o: { dir?: string; byIdOnly?: boolean } = {}): AnyLoadedJudge {
  const dir = o.dir ?? JUDGES_DIR;
  if (o.byIdOnly && !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(ref)) throw badInput(`judge ${ref}: not a judge id`);
  const path = PATHLIKE.test(ref) ? resolve(ref) : join(dir, `${ref}.yaml`);
  if (existsSync(path) && isPanelFile(readJudgeFile(path))) return loadPanelFile(path, dir, []);
  return loadJudge(ref, dir);
}
