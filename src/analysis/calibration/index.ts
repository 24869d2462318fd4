export { calibrate, DEFAULT_SEED } from './calibrate.ts';
export { formatCalibration } from './format.ts';
export type * from './types.ts';
