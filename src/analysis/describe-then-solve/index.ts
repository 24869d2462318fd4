export { describeThenSolve } from './analyze.ts';
export { formatDescribeThenSolve } from './format.ts';
export { DtsRowSchema, parseDtsJsonl } from './rows.ts';
export type * from './types.ts';
