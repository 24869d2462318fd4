// Multiple-choice extraction throughput: 100,000 varied responses, one run. Prints responses per second.
import { extractChoice } from '../src/scoring/choice/extract.ts';
import { mulberry32 } from '../src/stats/random.ts';

const rand = mulberry32(7);
const filler =
  'Looking at the figure, the shapes rotate clockwise by 90 degrees each step and the dots increase by one. ' +
  'Option A keeps the rotation but not the count; option C has the right count but the wrong rotation. ';
const endings = [
  (o: string) => `<answer>${o}</answer>`,
  (o: string) => `Answer: ${o}`,
  (o: string) => `**Final answer:** (${o}).`,
  (o: string) => `The answer is ${o} because it fits.`,
  (o: string) => `\n${o}`,
  () => 'I cannot determine this from the image.',
  (o: string) => `<answer>${o}</answer> <answer>A</answer>`,
];
const N = 100_000;
const responses: string[] = [];
for (let i = 0; i < N; i++) {
  const o = 'ABCDE'[Math.floor(rand() * 5)]!;
  const body = filler.repeat(1 + Math.floor(rand() * 4));
  responses.push(`${body}\n${endings[Math.floor(rand() * endings.length)]!(o)}`);
}
const chars = responses.reduce((s, r) => s + r.length, 0);
// Best of three rounds (the machine may be shared); the reference is one case-insensitive regex scan of
// the same text, so the ratio says how many plain scans an extraction costs, whatever the machine.
function best(f: (r: string) => unknown): number {
  let min = Infinity;
  for (let round = 0; round < 3; round++) {
    const t0 = performance.now();
    for (const r of responses) f(r);
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}
const reference = /answer/gi;
const scanMs = best((r) => {
  reference.lastIndex = 0;
  while (reference.exec(r));
});
const ms = best((r) => extractChoice(r));
let ok = 0;
for (const r of responses) if (extractChoice(r).status === 'ok') ok++;
console.log(`extractChoice: ${N.toLocaleString('en-US')} responses (${(chars / N).toFixed(0)} chars on average), best of 3 rounds`);
console.log(`  ${ms.toFixed(0)} ms = ${Math.round(N / (ms / 1000)).toLocaleString('en-US')} responses/s (${(chars / 1e6 / (ms / 1000)).toFixed(0)} MB/s); ${ok} ok, ${N - ok} invalid`);
console.log(`  one /answer/gi scan of the same text: ${scanMs.toFixed(0)} ms; extraction costs ${(ms / scanMs).toFixed(1)}× that`);
