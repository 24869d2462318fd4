/**
 * Exact coordinates written the way models write them: `\frac{\sqrt{2}}{2}`, `3+\sqrt{2}`, `-1/4`,
 * `sqrt(2)/2`, `\sqrt[3]{2}`, `2^{1/2}`. A recursive-descent parser over a fixed grammar, so no model
 * text ever reaches `eval`.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary | <implicit ×> power)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?
 *   primary := number | '(' expr ')' | '{' expr '}' | \frac arg arg | \sqrt ('[' expr ']')? arg
 *   arg     := '{' expr '}' | '(' expr ')' | one digit (LaTeX `\frac12`) | primary
 */

export type ExactNumber = { value: number } | { error: string };

type Tok = { kind: 'num'; text: string } | { kind: 'op'; text: string } | { kind: 'frac' } | { kind: 'sqrt' };

/** LaTeX commands and Unicode signs, each mapped to a token (null = spacing, ignored). */
const COMMANDS: Record<string, Tok | null> = {
  frac: { kind: 'frac' },
  dfrac: { kind: 'frac' },
  tfrac: { kind: 'frac' },
  sqrt: { kind: 'sqrt' },
  cdot: { kind: 'op', text: '*' },
  times: { kind: 'op', text: '*' },
  div: { kind: 'op', text: '/' },
  left: null,
  right: null,
};
const SYMBOLS: Record<string, Tok | null> = {
  '−': { kind: 'op', text: '-' },
  '×': { kind: 'op', text: '*' },
  '·': { kind: 'op', text: '*' },
  '÷': { kind: 'op', text: '/' },
  '√': { kind: 'sqrt' },
};
/** LaTeX spacing after a backslash: `\,` `\;` `\:` `\!` `\ `. */
const SPACING = new Set([',', ';', ':', '!', ' ']);
const PLAIN_OPS = new Set(['+', '-', '*', '/', '^', '(', ')', '{', '}', '[', ']']);

class ExpressionError extends Error {}

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (/[0-9.]/.test(ch)) {
      const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(src.slice(i));
      if (!m) throw new ExpressionError(`bad number at '${src.slice(i, i + 8)}'`);
      toks.push({ kind: 'num', text: m[0] });
      i += m[0].length;
    } else if (ch === '\\') {
      const m = /^[a-zA-Z]+/.exec(src.slice(i + 1));
      const name = m ? m[0] : src[i + 1] ?? '';
      const tok = m ? (Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined) : SPACING.has(name) ? null : undefined;
      if (tok === undefined) throw new ExpressionError(`unknown command '\\${name}'`);
      if (tok) toks.push(tok);
      i += 1 + name.length;
    } else if (src.startsWith('sqrt', i)) {
      toks.push({ kind: 'sqrt' });
      i += 4;
    } else if (PLAIN_OPS.has(ch)) {
      toks.push({ kind: 'op', text: ch });
      i++;
    } else if (SYMBOLS[ch] !== undefined) {
      const tok = SYMBOLS[ch];
      if (tok) toks.push(tok);
      i++;
    } else {
      throw new ExpressionError(`unexpected '${ch}'`);
    }
  }
  return toks;
}

class Parser {
  private pos = 0;
  constructor(private readonly toks: Tok[]) {}

  parse(): number {
    if (this.toks.length === 0) throw new ExpressionError('empty expression');
    const v = this.expr();
    if (this.pos < this.toks.length) throw new ExpressionError(`unexpected '${show(this.toks[this.pos]!)}'`);
    return v;
  }

  private peek(): Tok | undefined {
    return this.toks[this.pos];
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t?.kind === 'op' && t.text === text;
  }
  private expect(text: string): void {
    if (!this.isOp(text)) throw new ExpressionError(`expected '${text}'`);
    this.pos++;
  }

  private expr(): number {
    let v = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const sign = this.isOp('+') ? 1 : -1;
      this.pos++;
      v += sign * this.term();
    }
    return v;
  }

  private term(): number {
    let v = this.unary();
    for (;;) {
      if (this.isOp('*')) {
        this.pos++;
        v *= this.unary();
      } else if (this.isOp('/')) {
        this.pos++;
        v = divide(v, this.unary());
      } else if (this.startsImplicitFactor()) {
        v *= this.power();
      } else {
        return v;
      }
    }
  }

  /** `2\sqrt{2}`, `3(1+x)`, `\sqrt{2}\sqrt{3}`; two bare numbers in a row stay an error. */
  private startsImplicitFactor(): boolean {
    const t = this.peek();
    const prev = this.toks[this.pos - 1];
    if (!t) return false;
    if (t.kind === 'frac' || t.kind === 'sqrt') return true;
    if (t.kind === 'op') return t.text === '(' || t.text === '{';
    return prev?.kind !== 'num';
  }

  private unary(): number {
    if (this.isOp('-')) {
      this.pos++;
      return -this.unary();
    }
    if (this.isOp('+')) {
      this.pos++;
      return this.unary();
    }
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    if (!this.isOp('^')) return base;
    this.pos++;
    return finite(Math.pow(base, this.unary()), 'power');
  }

  private primary(): number {
    const t = this.peek();
    if (!t) throw new ExpressionError('unexpected end');
    this.pos++;
    if (t.kind === 'num') return Number(t.text);
    if (t.kind === 'frac') {
      const num = this.arg();
      return divide(num, this.arg());
    }
    if (t.kind === 'sqrt') {
      let index = 2;
      if (this.isOp('[')) {
        this.pos++;
        index = this.expr();
        this.expect(']');
      }
      return root(this.arg(), index);
    }
    if (t.text === '(' || t.text === '{') {
      const v = this.expr();
      this.expect(t.text === '(' ? ')' : '}');
      return v;
    }
    throw new ExpressionError(`unexpected '${t.text}'`);
  }

  /** A LaTeX macro argument: a group, or one character (`\frac12` = 1/2, `\sqrt2`). */
  private arg(): number {
    const t = this.peek();
    if (t?.kind === 'num' && !this.isGroupStart() && t.text.length > 1) {
      this.toks[this.pos] = { kind: 'num', text: t.text.slice(1) };
      return Number(t.text[0]);
    }
    return this.primary();
  }
  private isGroupStart(): boolean {
    return this.isOp('{') || this.isOp('(');
  }
}

function show(t: Tok): string {
  return t.kind === 'num' || t.kind === 'op' ? t.text : `\\${t.kind}`;
}

function divide(a: number, b: number): number {
  if (b === 0) throw new ExpressionError('division by zero');
  return a / b;
}

function root(x: number, n: number): number {
  if (!Number.isInteger(n) || n < 2) throw new ExpressionError(`root index must be a whole number ≥ 2, got ${n}`);
  if (x < 0 && n % 2 === 0) throw new ExpressionError('even root of a negative number');
  if (n === 2) return Math.sqrt(x);
  if (n === 3) return Math.cbrt(x);
  return Math.sign(x) * Math.pow(Math.abs(x), 1 / n);
}

function finite(v: number, what: string): number {
  if (!Number.isFinite(v)) throw new ExpressionError(`${what} is not a finite number`);
  return v;
}

/** Value of an exact expression; LaTeX math delimiters (`$…$`, `\(…\)`) are allowed around it. */
export function parseExactNumber(src: string): ExactNumber {
  const body = src
    .trim()
    .replace(/^\$+|\$+$/g, '')
    .replace(/^\\\(|\\\)$/g, '');
  try {
    return { value: finite(new Parser(tokenize(body)).parse(), `'${src}'`) };
  } catch (e) {
    if (e instanceof ExpressionError) return { error: `'${src}': ${e.message}` };
    throw e;
  }
}

/** A JSON coordinate: a finite number, or a string holding an exact expression. */
export function coordinateValue(v: unknown): ExactNumber {
  if (typeof v === 'number') return Number.isFinite(v) ? { value: v } : { error: `${v} is not a finite number` };
  if (typeof v === 'string') return parseExactNumber(v);
  return { error: `${JSON.stringify(v) ?? String(v)} is not a number or an expression` };
}
