import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sentenceSpans, splitSentences } from '../../../src/scoring/description/sentences.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const jsonl = (path: string) =>
  readFileSync(ROOT + path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Every bundled answer text: the example runs (descriptions) and both descriptions of each IIW image. */
const BUNDLED: Array<[string, string]> = [
  ...['farmyard-describe', 'synthetic-farmyard-campaign'].flatMap((f) =>
    jsonl(`rubrics/examples/runs/${f}.jsonl`)
      .filter((r) => r.task !== 'assemble' && typeof r.text === 'string')
      .map((r): [string, string] => [`${f}/${String(r.id)}`, r.text as string]),
  ),
  ...jsonl('rubrics/examples/imageinwords/IIW-400.p5b-subset.jsonl').flatMap((r, i) =>
    (['IIW', 'IIW-P5B'] as const).map((k): [string, string] => [`IIW-400 line ${i + 1} ${k}`, String(r[k])]),
  ),
];

const squash = (s: string) => s.replace(/\s+/g, '');
const FIELD = /^[*_]*[A-Z][A-Za-z][\w ()/-]{0,38}[*_]*:[*_]*\s*\S/;

describe('splitSentences on the bundled answers', () => {
  it('reads them all (7 run descriptions with text, 100 IIW images × 2 descriptions)', () => {
    // c-high-describe is a no_answer row (text null): nothing to split.
    expect(BUNDLED.length).toBe(1 + 6 + 200);
  });

  it.each(BUNDLED)('%s: whole sentences, in order, nothing lost', (_name, text) => {
    const claims = splitSentences(text);
    const lines = text.split('\n').map((l) => l.trim());
    expect(claims.length).toBeGreaterThan(0);
    claims.forEach((c, i) => {
      const last = i === claims.length - 1;
      // A claim ends a sentence, or it is a stand-alone field line ("Grid: 6 x 9"), or it ends the text.
      const standAloneLine = FIELD.test(c) && lines.includes(c);
      expect(/[.!?]["'”’)\]]*$/.test(c) || standAloneLine || last, `claim ${i}: ${JSON.stringify(c)}`).toBe(true);
      // ICU's early cuts are repaired: no claim continues a sentence with a lowercase word.
      expect(/^\p{Ll}/u.test(c), `claim ${i} starts lowercase: ${JSON.stringify(c)}`).toBe(false);
      expect(c).not.toMatch(/\n/);
    });
    expect(squash(claims.join(' '))).toBe(squash(text));
  });

  it('the farmyard example: its 7 sentences and 3 meta lines, wrapped lines joined (issue 14: was 14 fragments)', () => {
    const text = String(jsonl('rubrics/examples/runs/farmyard-describe.jsonl')[0]!.text);
    expect(splitSentences(text)).toEqual([
      'The assembled picture is a colourful cartoon of a farm.',
      'A big red barn with white trim and X-braced doors fills the left side.',
      'In the middle a farmer wearing overalls and a straw hat drives a red tractor down a dirt path.',
      'A fence crosses the picture; behind it on the right a horse and some black-and-white cows graze.',
      'Several pink pigs roll in a muddy puddle at the bottom, and a duck pond with two ducks sits at the lower right.',
      'Sheep stand near the fence.',
      'The sky is blue with clouds, and there are green hills at the top with a red farmhouse.',
      'Orientation: landscape',
      'Grid: 6 x 9',
      'Pieces: 54',
    ]);
  });
});

describe('splitSentences: hand-worked cases', () => {
  const cases: Array<[string, string, string[]]> = [
    ['a wrapped line is a space', 'A red\nbarn. A cow.', ['A red barn.', 'A cow.']],
    ['a blank line ends a paragraph without punctuation', 'A red barn\n\nA cow.', ['A red barn', 'A cow.']],
    ['abbreviations do not end a sentence', 'Mr. Brown has approx. 3 cows, e.g. Daisy. Dr. Who.', ['Mr. Brown has approx. 3 cows, e.g. Daisy.', 'Dr. Who.']],
    ['a lowercase start continues the sentence', 'It is ca. 5 m. tall and red.', ['It is ca. 5 m. tall and red.']],
    ['list items stand alone', 'Items:\n- a red barn\n- 1 cow\n2. two pigs', ['Items:', '- a red barn', '- 1 cow', '2. two pigs']],
    ['field lines stand alone', 'Orientation: landscape\n**Grid:** 6 × 9', ['Orientation: landscape', '**Grid:** 6 × 9']],
    ['prose that starts "Left:" is still joined', 'Left: a barn with\nopen doors.', ['Left: a barn with open doors.']],
    ['quotes stay with their sentence', 'A sign says "Farm." Then a cow!', ['A sign says "Farm."', 'Then a cow!']],
    ['CRLF and blank text', 'A barn.\r\nA cow.\r\n\r\n  \r\n', ['A barn.', 'A cow.']],
    ['nothing to split', '   \n\n ', []],
    ['a rule line is no claim', 'A barn.\n\n---\n\nA cow.', ['A barn.', 'A cow.']],
  ];
  it.each(cases)('%s', (_name, text, want) => expect(splitSentences(text)).toEqual(want));

  it('offsets point at each sentence in the original text', () => {
    const text = 'A red\nbarn stands.  Two\n  cows graze.\n\nGrid: 6 x 9';
    const spans = sentenceSpans(text);
    expect(spans.map((s) => [s.start, s.end])).toEqual([[0, 18], [20, 37], [39, 50]]);
    for (const s of spans) expect(text.slice(s.start, s.end).replace(/\s+/g, ' ')).toBe(s.text);
  });
});

describe('splitSentences: properties', () => {
  const word = fc.stringMatching(/^[A-Za-z]{1,8}$/);
  const sentence = fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => `${ws[0]![0]!.toUpperCase()}${ws.join(' ').slice(1)}.`);
  it('re-wrapping a paragraph at any spaces gives the same sentences', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 1, maxLength: 6 }), fc.array(fc.boolean(), { maxLength: 60 }), (sents, breaks) => {
        const flat = sents.join(' ');
        let k = 0;
        const wrapped = flat.replace(/ /g, () => (breaks[k++] ? '\n' : ' '));
        expect(splitSentences(wrapped)).toEqual(splitSentences(flat));
      }),
    );
  });
  it('joining the claims keeps every letter and digit of any text, in order', () => {
    const wordChars = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '');
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: fc.constantFrom('a', 'B', '1', '.', '!', ' ', '\n', '-', ':', 'e.g. ') }), (text) => {
        expect(wordChars(splitSentences(text).join(''))).toBe(wordChars(text));
      }),
    );
  });
});
