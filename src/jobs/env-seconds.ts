import { badInput } from '../domain/errors.ts';
import { readDecimal } from '../domain/limit-values.ts';

/**
 * A number of seconds from an environment variable of the job queue, by the one rule of text numbers
 * (domain/limit-values.ts readDecimal, as config.ts reads PORT): blank or unset is the fallback;
 * anything else must be a plain decimal in (0, max], or the command stops naming the variable.
 * Number() read '0x10' as 16 and ' ' as 0 (pg-boss then expired every job at once), with nothing said.
 *
 * @example envSeconds('ASSAY_JOB_EXPIRE_SECONDS', 600, { integer: true }, {}) // 600 when unset
 */
export function envSeconds(name: string, fallback: number, o: { integer?: boolean; max?: number }, env: NodeJS.ProcessEnv): number {
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

/** The grade queue's times (pg-boss): ASSAY_JOB_EXPIRE_SECONDS and ASSAY_JOB_MAINTENANCE_SECONDS. */
export interface QueueTimes {
  /** Seconds a job may stay active before pg-boss expires and retries it (a crashed worker's jobs). */
  expireInSeconds: number;
  /** How often a worker expires stalled jobs (pg-boss maintenance; one worker per interval runs it). */
  maintenanceIntervalSeconds: number;
}

/** A worker's liveness times (jobs/liveness.ts): ASSAY_WORKER_HEARTBEAT_SECONDS, _DEAD_SECONDS, _SWEEP_SECONDS. */
export interface LivenessTimes {
  heartbeatMs: number;
  /** Not seen for this long: dead. At least twice heartbeatMs, so one late heartbeat is not a death. */
  deadAfterMs: number;
  sweepMs: number;
}

export interface JobTimes {
  queue: QueueTimes;
  liveness: LivenessTimes;
}

/** The defaults: jobs expire after 600 s, maintenance every 30 s; heartbeat 5 s, dead after 30 s, sweep 5 s. */
export const QUEUE_TIMES: Readonly<QueueTimes> = Object.freeze({ expireInSeconds: 600, maintenanceIntervalSeconds: 30 });
export const LIVENESS_TIMES: Readonly<LivenessTimes> = Object.freeze({ heartbeatMs: 5_000, deadAfterMs: 30_000, sweepMs: 5_000 });

/** The dead-after time must be at least twice the heartbeat (one late heartbeat is not a death). */
export function checkLivenessTimes<T extends LivenessTimes>(o: T): T {
  if (o.deadAfterMs < 2 * o.heartbeatMs) throw badInput(`worker liveness: the dead-after time (${o.deadAfterMs / 1000} s) must be at least twice the heartbeat (${o.heartbeatMs / 1000} s)`);
  return o;
}

const ms = (env: NodeJS.ProcessEnv, name: string, fallbackMs: number) => envSeconds(name, fallbackMs / 1000, { max: 3600 }, env) * 1000;

/**
 * The job times from the environment, read once by src/config.ts loadConfig when a command starts (a bad
 * value stops it there, named) and handed to the queue and the workers from there.
 */
export function readJobTimes(env: NodeJS.ProcessEnv): JobTimes {
  return {
    queue: {
      expireInSeconds: envSeconds('ASSAY_JOB_EXPIRE_SECONDS', QUEUE_TIMES.expireInSeconds, { integer: true }, env),
      maintenanceIntervalSeconds: envSeconds('ASSAY_JOB_MAINTENANCE_SECONDS', QUEUE_TIMES.maintenanceIntervalSeconds, { integer: true }, env),
    },
    liveness: checkLivenessTimes({
      heartbeatMs: ms(env, 'ASSAY_WORKER_HEARTBEAT_SECONDS', LIVENESS_TIMES.heartbeatMs),
      deadAfterMs: ms(env, 'ASSAY_WORKER_DEAD_SECONDS', LIVENESS_TIMES.deadAfterMs),
      sweepMs: ms(env, 'ASSAY_WORKER_SWEEP_SECONDS', LIVENESS_TIMES.sweepMs),
    }),
  };
}
