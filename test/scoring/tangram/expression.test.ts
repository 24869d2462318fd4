import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coordinateValue, parseExactNumber } from '../../../src/scoring/tangram/expression.ts';

const value = (s: string) => {
  const r = parseExactNumber(s);
  if (!('value' in r)) throw new Error(r.error);
  return r.value;
};

describe('parseExactNumber', () => {
  it.each([
    ['\\frac{1}{2}', 0.5],
    ['\\sqrt{2}', Math.SQRT2],
    ['\\frac{\\sqrt{2}}{2}', Math.SQRT2 / 2],
    ['3+\\sqrt{2}', 3 + Math.SQRT2],
    ['-\\frac{\\sqrt{2}}{4}', -Math.SQRT2 / 4],
    ['\\frac12', 0.5],
    ['\\sqrt2/4', Math.SQRT2 / 4],
    ['\\dfrac{3}{4}', 0.75],
    ['sqrt(2)/2', Math.SQRT2 / 2],
    ['√2', Math.SQRT2],
    ['2\\sqrt{2}', 2 * Math.SQRT2],
    ['\\sqrt[3]{-8}', -2],
    ['2^{1/2}', Math.SQRT2],
    ['-2^2', -4],
    ['3 \\cdot 2 \\times 2', 12],
    ['(1+\\sqrt{2})(1-\\sqrt{2})', -1],
    ['\\left(\\frac{1}{2}\\right)', 0.5],
    ['$\\frac{1}{4}$', 0.25],
    ['−\\tfrac{3}{4}', -0.75],
    ['1 - 1/4 - 1/4', 0.5],
    ['0.5e-1', 0.05],
    ['\\frac{1}{2}\\,\\sqrt{2}', Math.SQRT2 / 2],
  ])('%s = %d', (src, expected) => {
    expect(value(src)).toBeCloseTo(expected, 14);
  });

  it.each([
    ['1/0', 'division by zero'],
    ['\\sqrt{-1}', 'even root of a negative number'],
    ['1,5', "unexpected ','"],
    ['1 2', "unexpected '2'"],
    ['', 'empty expression'],
    ['\\frac{1}{', 'unexpected end'],
    ['\\pi', "unknown command '\\pi'"],
    ['\\constructor', "unknown command '\\constructor'"],
    ['NaN', "unexpected 'N'"],
    ['10^{400}', 'power is not a finite number'],
  ])('%s is an error (%s)', (src, message) => {
    const r = parseExactNumber(src);
    expect(r).toHaveProperty('error');
    expect((r as { error: string }).error).toContain(message);
  });

  it('coordinateValue takes finite numbers and expression strings, nothing else', () => {
    expect(coordinateValue(0.25)).toEqual({ value: 0.25 });
    expect(coordinateValue('\\frac{1}{4}')).toEqual({ value: 0.25 });
    expect(coordinateValue(Number.NaN)).toHaveProperty('error');
    expect(coordinateValue(null)).toHaveProperty('error');
    expect(coordinateValue([1])).toHaveProperty('error');
  });

  // Random expression trees, rendered the ways models write them, against the value computed directly.
  type Expr = { latex: string; plain: string; value: number };
  const leaf = fc.integer({ min: 1, max: 50 }).map((n): Expr => ({ latex: String(n), plain: String(n), value: n }));
  const { expr } = fc.letrec<{ expr: Expr }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('expr')
        .filter((a) => a.value >= 0)
        .map((a): Expr => ({ latex: `\\sqrt{${a.latex}}`, plain: `sqrt(${a.plain})`, value: Math.sqrt(a.value) })),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]): Expr => ({ latex: `\\frac{${a.latex}}{${b.latex}}`, plain: `(${a.plain})/(${b.plain})`, value: a.value / b.value })),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]): Expr => ({ latex: `${a.latex}+${b.latex}`, plain: `${a.plain}+${b.plain}`, value: a.value + b.value })),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]): Expr => ({ latex: `{${a.latex}}-{${b.latex}}`, plain: `(${a.plain})-(${b.plain})`, value: a.value - b.value })),
      fc.tuple(tie('expr'), tie('expr')).map(([a, b]): Expr => ({ latex: `\\left(${a.latex}\\right)\\cdot\\left(${b.latex}\\right)`, plain: `(${a.plain})*(${b.plain})`, value: a.value * b.value })),
      tie('expr').map((a): Expr => ({ latex: `-\\left(${a.latex}\\right)`, plain: `-(${a.plain})`, value: -a.value })),
    ),
  }));

  it('agrees with the decimal value to 1e-12 (fast-check, LaTeX and plain forms)', () => {
    fc.assert(
      fc.property(expr, (e) => {
        fc.pre(Number.isFinite(e.value) && Math.abs(e.value) < 1e6);
        const tol = 1e-12 * Math.max(1, Math.abs(e.value));
        expect(Math.abs(value(e.latex) - e.value)).toBeLessThanOrEqual(tol);
        expect(Math.abs(value(e.plain) - e.value)).toBeLessThanOrEqual(tol);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});
