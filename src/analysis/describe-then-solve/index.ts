export { describeThenSolve } from './analyze.ts';
export { DtsRowSchema, parseDtsJsonl } from './rows.ts';
export type * from './types.ts';
