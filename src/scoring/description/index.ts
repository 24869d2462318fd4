export { scoreDescription, type DescriptionScore, type DescriptionOptions, type UnverifiablePolicy } from './score.ts';
export { parseMeta, scoreMeta, type MetaScore, type ParsedMeta, type Orientation } from './meta.ts';
export { parseRubric, parseVerdicts, firstIssue, rubricJsonSchema, rubricJsonSchemaText } from './rubric.ts';
