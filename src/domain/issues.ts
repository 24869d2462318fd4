import type { z } from 'zod';

/**
 * The most useful reading of a zod issue for a one-line error. A union ("a string or a number", "one
 * rubric or an array of them") fails with a bare "Invalid input"; this looks inside: when every branch
 * failed on the value's type it lists the expected types, otherwise it follows the branch that got
 * furthest into the value (its first issue has the deepest path).
 */
export function explainIssue(issue: z.core.$ZodIssue): { path: PropertyKey[]; message: string } {
  let path: PropertyKey[] = [...issue.path];
  let current = issue;
  while (current.code === 'invalid_union' && current.errors.some((b) => b.length > 0)) {
    const branches = current.errors.filter((b) => b.length > 0);
    const firsts = branches.map((b) => b[0]!);
    if (firsts.every((i) => i.code === 'invalid_type' && i.path.length === 0)) {
      const expected = [...new Set(firsts.map((i) => (i as { expected: string }).expected))];
      const received = /received (\w+)/.exec(firsts[0]!.message)?.[1];
      return { path, message: `Invalid input: expected ${expected.join(' or ')}${received ? `, received ${received}` : ''}` };
    }
    const best = firsts.reduce((a, b) => (b.path.length > a.path.length ? b : a));
    path = [...path, ...best.path];
    current = best;
  }
  return { path, message: current.message };
}
