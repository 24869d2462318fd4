import { badInput } from '../domain/errors.ts';
import { readDecimal } from '../domain/limit-values.ts';

/**
 * A number of seconds from an environment variable of the job queue, by the one rule of text numbers
 * (domain/limit-values.ts readDecimal, as config.ts reads PORT): blank or unset is the fallback;
 * anything else must be a plain decimal in (0, max], or the command stops naming the variable.
 * Number() read '0x10' as 16 and ' ' as 0 (pg-boss then expired every job at once), with nothing said.
 *
 * @example envSeconds('ASSAY_JOB_EXPIRE_SECONDS', 600, { integer: true }) // 600 when unset
 */
export function envSeconds(name: string, fallback: number, o: { integer?: boolean; max?: number } = {}, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  const text = raw?.trim() ?? '';
  if (text === '') return fallback;
  const max = o.max ?? 86_400;
  const v = readDecimal(text, { integer: o.integer ?? false });
  if (typeof v !== 'number' || v <= 0 || v > max) {
    throw badInput(`${name}: ${o.integer ? 'a whole number' : 'a number'} of seconds in (0, ${max}] written in digits, got '${raw}'`);
  }
  return v;
}
