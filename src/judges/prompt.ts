import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Rubric } from '../domain/rubric.ts';
import { badInput } from '../domain/errors.ts';
import { canonicalJson, sha256 } from './config.ts';

/**
 * Prompt assembly. The order is the caching contract: system instructions, then the static block
 * (rubric, reference, an anchored judge's examples, picture) that is byte-identical for every answer to
 * the same rubric, then the untrusted answer last, fenced by a random per-request boundary and followed
 * by the restated rules.
 */

export interface PromptTemplate {
  system: string;
  static: string;
  answer: string;
  /** sha256 of the template file: stored with every grade, part of every cache key. */
  hash: string;
  path: string;
}

export interface JudgeImage {
  mediaType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  /** base64 bytes */
  data: string;
}

export interface AssembledPrompt {
  system: string;
  /** Rubric + reference (+ examples): the cacheable prefix (the image, when present, follows it in the same turn). */
  staticText: string;
  image?: JudgeImage;
  /** Intro, fenced answer and the restated instructions. */
  answerText: string;
  boundary: string;
  promptHash: string;
  /** sha256 over system, static text and image bytes: identifies the cacheable prefix. */
  staticHash: string;
  /** How many boundary-like or tag-like sequences were neutralised in the answer. */
  neutralised: number;
}

const SECTION = /^<!-- section:(system|static|answer) -->\s*$/m;

export function parseTemplate(text: string, path: string): PromptTemplate {
  const parts = text.split(SECTION);
  const sections: Record<string, string> = {};
  for (let i = 1; i + 1 < parts.length; i += 2) sections[parts[i]!] = parts[i + 1]!.trim();
  for (const name of ['system', 'static', 'answer']) {
    if (!sections[name]) throw badInput(`prompt template ${path}: missing section '${name}'`);
  }
  if (!sections.answer!.includes('{{answer}}')) throw badInput(`prompt template ${path}: the answer section needs {{answer}}`);
  return { system: sections.system!, static: sections.static!, answer: sections.answer!, hash: sha256(text), path };
}

export function loadTemplate(path: string): PromptTemplate {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw badInput(`prompt template ${path}: no such file`);
  }
  return parseTemplate(text, path);
}

/** A fresh boundary per request; unguessable, so an answer cannot close its own fence. */
export const randomBoundary = (): string => `ANSWER-${randomBytes(16).toString('hex')}`;

// Sequences in the answer that could pass for our fence or for markup around it.
const NEUTRALISERS: ReadonlyArray<[RegExp, (m: string) => string]> = [
  [/<{3,}|>{3,}/g, (m) => m.replace(/</g, '‹').replace(/>/g, '›')],
  [/\b(BEGIN|END)?[\s_-]*ANSWER-[0-9a-z]*/gi, (m) => m.replace(/ANSWER-/i, 'answer~')],
  [/<\/?[A-Za-z][\w:-]*(\s[^<>]*)?>/g, (m) => `‹${m.slice(1, -1)}›`],
  [/\{\{|\}\}/g, (m) => (m === '{{' ? '{ {' : '} }')],
];

export function neutraliseAnswer(answer: string): { text: string; count: number } {
  let count = 0;
  let text = answer;
  for (const [re, fix] of NEUTRALISERS) {
    text = text.replace(re, (m) => {
      count++;
      return fix(m);
    });
  }
  return { text, count };
}

const fill = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (k in values ? values[k]! : m));

export function assemblePrompt(
  template: PromptTemplate,
  rubric: Rubric,
  answer: string,
  opts: { boundary?: string; image?: JudgeImage; examples?: string } = {},
): AssembledPrompt {
  const boundary = opts.boundary ?? randomBoundary();
  const values = {
    rubric_id: rubric.id,
    title: rubric.title,
    reference: rubric.reference.trim(),
    items: rubric.items.map((i) => `- ${i.id} (weight ${i.weight}): ${i.text}`).join('\n'),
    item_ids: rubric.items.map((i) => i.id).join(', '),
    boundary,
  };
  const system = fill(template.system, values);
  // An anchored judge's examples (example-prompt.ts) go where the template puts {{examples}}, else after
  // the rubric block: in the static part either way, so every answer's prompt shares them.
  const examples = opts.examples ?? '';
  const filled = fill(template.static, { ...values, examples });
  const staticText = examples && !template.static.includes('{{examples}}') ? `${filled}\n\n${examples}` : filled;
  const { text: safe, count } = neutraliseAnswer(answer.trim());
  // {{answer}} is substituted last and once, so nothing inside the answer is ever expanded.
  const [before, after] = fill(template.answer, { ...values, answer: '\u0000ANSWER\u0000' }).split('\u0000ANSWER\u0000');
  const answerText = `${before}${safe}${after}`;
  const staticHash = sha256(canonicalJson({ system, staticText, image: opts.image ? sha256(opts.image.data) : null }));
  return {
    system,
    staticText,
    ...(opts.image ? { image: opts.image } : {}),
    answerText,
    boundary,
    promptHash: template.hash,
    staticHash,
    neutralised: count,
  };
}

/** The text between the fences of an assembled prompt (tests use it to prove containment). */
export function fencedRegion(p: AssembledPrompt): string | null {
  const begin = `<<<BEGIN ${p.boundary}>>>\n`;
  const end = `\n<<<END ${p.boundary}>>>`;
  const i = p.answerText.indexOf(begin);
  const j = p.answerText.lastIndexOf(end);
  return i < 0 || j < i ? null : p.answerText.slice(i + begin.length, j);
}
