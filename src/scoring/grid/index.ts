/** Grid assembly scoring (design §2.2): answer parsing, metrics, random baselines. */
export { parseGridAnswer, type GridAnswerStatus, type ParsedGridAnswer } from './parse.ts';
export { scoreGrid, type GridScore, type ScoreGridOptions } from './metrics.ts';
export {
  gridBaseline,
  expectedCellDistance,
  expectedCellDistanceFraction,
  shapeCompatibilityExact,
  shapeCompatibilityMonteCarlo,
  defaultTrials,
  DEFAULT_SEED,
  type GridBaseline,
  type GridBaselineOptions,
} from './baseline.ts';
