export { describeThenSolve, UNSLICED } from './analyze.ts';
export { DtsRowSchema, parseDtsJsonl } from './rows.ts';
export type * from './types.ts';
