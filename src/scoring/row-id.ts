import { badInput } from '../domain/errors.ts';

/**
 * Row ids of the batch scorers' JSON Lines (description verdicts, grid answers, choice keys and
 * responses, tangram targets and answers) may be numbers. Past 2^53 − 1 a JSON number is not the number
 * JSON.parse returns (12345678901234567891 reads as 12345678901234567000, 9007199254740993 as
 * 9007199254740992): the line would come back under an id the input never gave, and two ids would be
 * one (a choice response scored against another item's key). Refused, so the user writes it as a string.
 */
export function assertExactId(v: unknown, where: string): void {
  if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) > Number.MAX_SAFE_INTEGER) {
    throw badInput(`${where}: "id" is a number beyond ${Number.MAX_SAFE_INTEGER}, which a JSON number does not hold exactly (it reads as ${v}); write the id as a string`);
  }
}
