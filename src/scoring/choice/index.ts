export { extractChoice, type Extraction } from './extract.ts';
export { DEFAULT_OPTIONS, optionsFromAnswers, canonicalAnswer } from './options.ts';
export { parseKey, parseResponses, type KeyRow, type ResponseRow } from './rows.ts';
export { scoreChoices, scoreResponses, UNCATEGORISED, type ChoiceScores, type ModelChoiceScore, type Slice, type ScoredResponse } from './score.ts';
