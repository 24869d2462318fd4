import { convertInspect } from './inspect.ts';
import { convertLmEval } from './lm-eval.ts';
import { convertPromptfoo } from './promptfoo.ts';
import type { Converter, ForeignFormat } from './types.ts';
import { convertVlmEvalKit } from './vlmevalkit.ts';

export { FOREIGN_FORMATS, type Converted, type ForeignFormat, type ForeignRow, type ForeignScore, type Skipped } from './types.ts';

/** The importers of other tools' files, by `--from` name. */
export const CONVERTERS: Readonly<Record<ForeignFormat, Converter>> = {
  inspect: convertInspect,
  promptfoo: convertPromptfoo,
  'lm-eval': convertLmEval,
  vlmevalkit: convertVlmEvalKit,
};
