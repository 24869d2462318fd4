import type { Progress } from '../services/grading/progress.ts';

/**
 * The live progress line of `assay run` on stderr: redrawn in place on a terminal, one line every few
 * seconds otherwise (logs, CI). stdout stays free for the final summary.
 */

const WIDTH = 24;

export function formatDuration(s: number | null): string {
  if (s === null) return '—';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

/**
 * The run's cost as it may be told: a sum over calls of a model with no price (judges/prices.yaml) is
 * unknown, never the priced calls' sum passed off as the whole (which reads $0 for an unpriced judge); a
 * sum that leaves out calls of unknown cost (sent, no usage figures: a timeout, a lost connection, a reply
 * without usage) is a lower bound and says so, with how many it leaves out.
 */
export function costText(p: Pick<Progress, 'costUsd' | 'unpricedCalls' | 'unknownCostCalls'>): string {
  const unknown = p.unknownCostCalls ? `${p.unknownCostCalls} call${p.unknownCostCalls === 1 ? '' : 's'} of unknown cost: sent, no usage reported` : '';
  if (p.unpricedCalls === 0) return unknown ? `at least $${p.costUsd.toFixed(4)} (${unknown})` : `$${p.costUsd.toFixed(4)}`;
  const calls = `${p.unpricedCalls} call${p.unpricedCalls === 1 ? '' : 's'}`;
  return `cost unknown (${calls} of a model not in judges/prices.yaml${unknown ? `; ${unknown}` : ''}${p.costUsd > 0 ? `; $${p.costUsd.toFixed(4)} for the rest` : ''})`;
}

/** "at least " before token counts that leave out calls of unknown usage. */
export const tokensBound = (p: Pick<Progress, 'unknownCostCalls'>): string => (p.unknownCostCalls ? 'at least ' : '');

export function progressLine(p: Progress): string {
  const finished = p.done + p.failed;
  const frac = p.total === 0 ? 1 : finished / p.total;
  const filled = Math.round(frac * WIDTH);
  const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
  const tokens = p.tokens.input + p.tokens.cacheRead + p.tokens.cacheWrite + p.tokens.output;
  const rate = p.ratePerSecond === null ? '—' : `${p.ratePerSecond.toFixed(1)}/s`;
  // Unsettled calls were sent by a worker that died before the reply: billed, figures unknown (estimated).
  const unsettled = p.unsettled.calls ? `  ${p.unsettled.calls} unsettled call${p.unsettled.calls === 1 ? '' : 's'} (≈$${p.unsettled.costUsd.toFixed(4)} of it estimated)` : '';
  return `${bar} ${finished}/${p.total}  done ${p.done}  failed ${p.failed}  remaining ${p.remaining}  ${rate}  ETA ${formatDuration(p.etaSeconds)}  ${tokensBound(p)}${tokens} tokens  ${costText(p)}${unsettled}`;
}

export interface ProgressBar {
  update(p: Progress): void;
  end(): void;
}

export function progressBar(stream: NodeJS.WriteStream, everyMs = 5000, clock = Date.now): ProgressBar {
  let last = 0;
  let drawn = false;
  return {
    update(p) {
      const line = progressLine(p);
      if (stream.isTTY) {
        stream.write(`\r${line}\x1b[K`);
        drawn = true;
      } else if (clock() - last >= everyMs) {
        stream.write(`${line}\n`);
        last = clock();
      }
    },
    end() {
      if (drawn) stream.write('\n');
    },
  };
}
