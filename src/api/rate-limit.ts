import { RateLimitedError } from './errors.ts';

/**
 * Per-key fixed-window limiter, in process memory. One process serves the API, so a shared store buys
 * nothing yet; behind several processes each would enforce its own window (documented in docs/http-api.md, "Limits").
 */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for `key`; throws rate_limited (with Retry-After) past the limit. */
  hit(key: string): void {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= this.windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 10_000) this.sweep(t);
    }
    w.count += 1;
    if (w.count > this.limit) {
      const retryAfter = Math.max(1, Math.ceil((w.start + this.windowMs - t) / 1000));
      throw new RateLimitedError(`rate limit of ${this.limit} requests per minute exceeded for this key`, retryAfter);
    }
  }

  private sweep(t: number): void {
    for (const [k, w] of this.windows) if (t - w.start >= this.windowMs) this.windows.delete(k);
  }
}
