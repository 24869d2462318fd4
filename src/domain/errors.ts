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
