import { describe, expect, it } from 'vitest';
import { classify, oneLine } from '../../src/cli/errors.ts';
import { AssayError, badInput } from '../../src/domain/errors.ts';

/** What a failed command prints: exit 2 and one line for what the user can fix, 1 with the stack for bugs. */
describe('classify', () => {
  it('bad input and not-found are exit 2, flattened to one line', () => {
    expect(classify(badInput('rubric r.yaml:\n  items: must not be empty'))).toEqual({ exitCode: 2, message: 'rubric r.yaml: items: must not be empty' });
    expect(classify(new AssayError('not_found', "run 'x' not found"))).toEqual({ exitCode: 2, message: "run 'x' not found" });
  });

  it('an unreachable database (also as a drizzle cause) is exit 2 naming DATABASE_URL', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const wrapped = new Error('Failed query: select 1\nparams: ', { cause: refused });
    expect(classify(wrapped)).toEqual({ exitCode: 2, message: 'database: cannot connect (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:1); check DATABASE_URL' });
    expect(classify(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' })).exitCode).toBe(2);
  });

  it('a data directory that is a file is exit 2 naming ASSAY_DATA_DIR', () => {
    const e = Object.assign(new Error("EEXIST: file already exists, mkdir '/etc/passwd'"), { code: 'EEXIST', syscall: 'mkdir', path: '/etc/passwd' });
    expect(classify(e)).toEqual({ exitCode: 2, message: 'ASSAY_DATA_DIR /etc/passwd: cannot be used as the data directory (EEXIST)' });
  });

  it('a PostgreSQL data exception (class 22) is exit 2; anything else is an internal error with its stack', () => {
    const uuid = Object.assign(new Error('invalid input syntax for type uuid: "nope"'), { code: '22P02' });
    expect(classify(new Error('Failed query', { cause: uuid }))).toEqual({ exitCode: 2, message: 'value refused by the database: invalid input syntax for type uuid: "nope"' });
    const bug = classify(new TypeError('x is undefined'));
    expect(bug.exitCode).toBe(1);
    expect(bug.message).toMatch(/^internal error: TypeError: x is undefined\n\s+at /);
    expect(classify(new AssayError('internal', 'boom')).exitCode).toBe(1);
  });

  it('oneLine joins lines and trims', () => {
    expect(oneLine('  a\n  b\r\nc ')).toBe('a b c');
  });
});
