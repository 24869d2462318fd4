/**
 * The one error type of the domain. Every layer throws it; the edges map `code` to an exit status
 * (CLI) or an HTTP status (API), so a message written once reads the same everywhere.
 */
export type ErrorCode =
  | 'bad_input'
  | 'not_found'
  | 'unauthorized'
  | 'forbidden'
  | 'conflict'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export class AssayError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AssayError';
    this.code = code;
  }
}

export const badInput = (message: string): AssayError => new AssayError('bad_input', message);
export const notFound = (message: string): AssayError => new AssayError('not_found', message);

export const isAssayError = (e: unknown): e is AssayError => e instanceof AssayError;

/**
 * A failure outside assay (a provider refusing or failing a call) that is neither bad input nor a bug:
 * the edges print its describe() as one line (the CLI exits 1). Marked rather than imported by class, so
 * that cli/ and api/ need not reach into judges/ (design §1).
 */
export const OUTSIDE_FAILURE = Symbol.for('assay.outsideFailure');
export interface OutsideFailure {
  readonly [OUTSIDE_FAILURE]: true;
  describe(): string;
}
export const isOutsideFailure = (e: unknown): e is OutsideFailure =>
  typeof e === 'object' && e !== null && (e as Partial<OutsideFailure>)[OUTSIDE_FAILURE] === true && typeof (e as OutsideFailure).describe === 'function';
