import { isAssayError } from '../../src/domain/errors.ts';

/** The message of the bad_input error `f` throws; any other outcome fails the test. */
export function badInputMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isAssayError(e) && e.code === 'bad_input') return e.message;
    throw e;
  }
  throw new Error('expected bad input');
}
