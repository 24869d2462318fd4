import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callSlots } from '../../src/jobs/call-slots.ts';

describe('callSlots', () => {
  it('runs at most `size` calls at once, passes results and errors through, and frees every slot (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { minLength: 1, maxLength: 60 }), async (size, calls) => {
        const slots = callSlots(size);
        let peak = 0;
        const out = await Promise.allSettled(
          calls.map(([ms, fails], i) =>
            slots.run(async () => {
              peak = Math.max(peak, slots.busy);
              await new Promise((r) => setTimeout(r, ms));
              if (fails) throw new Error(`call ${i}`);
              return i;
            }),
          ),
        );
        expect(peak).toBeLessThanOrEqual(size);
        expect(peak).toBe(Math.min(size, calls.length));
        out.forEach((r, i) => expect(r.status === 'fulfilled' ? r.value : (r.reason as Error).message).toBe(calls[i]![1] ? `call ${i}` : i));
        expect(slots.busy).toBe(0);
      }),
      { numRuns: 50, seed: 32 },
    );
  });
});
