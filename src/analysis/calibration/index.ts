export { calibrate, DEFAULT_SEED } from './calibrate.ts';
export type * from './types.ts';
