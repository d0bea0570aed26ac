/** The --max-cost cap (src/providers/budget.ts) and the shared concurrency pool (src/providers/limits.ts). */
import { describe, expect, it } from 'vitest';
import { COST_CAP_REASON, CostCap, CostCapReached, promptTokensAtMost } from '../../../src/providers/budget.js';
import { isDeferred } from '../../../src/providers/batch/defer.js';
import { ConcurrencyPool } from '../../../src/providers/limits.js';

const cost = (estimate: number | null, actual: number) => ({ estimate, actual: () => actual });

describe('CostCap', () => {
  it('sends while spent + in flight + the estimate fit; the first request that could cross is held back and stops the run', async () => {
    const cap = new CostCap(1.0, 0.25);
    expect(await cap.run('a', cost(0.3, 0.2), async () => 'x')).toBe('x');
    expect(cap.spent).toBeCloseTo(0.45, 12);
    await expect(cap.run('reader request to m', cost(0.6, 0.1), async () => 'never')).rejects.toBeInstanceOf(CostCapReached);
    expect(cap.reached).toBe(true);
    expect(cap.signal.reason).toBe(COST_CAP_REASON);
    expect(cap.stoppedAt).toBe('reader request to m');
    // Once reached, no new question starts (the signal), but a request that still fits is sent: a question in flight can finish.
    expect(await cap.run('judge of a question in flight', cost(0.1, 0.05), async () => 'fits')).toBe('fits');
    await expect(cap.run('b', cost(0.6, 0), async () => 'never')).rejects.toThrow(/b held back: it could cross the --max-cost cap/);
    expect(cap.stoppedAt).toBe('reader request to m');
  });

  it('counts the estimates of requests in flight, and their real cost when they finish', async () => {
    const cap = new CostCap(1.0);
    let release!: () => void;
    const slow = cap.run('slow', cost(0.7, 0.1), () => new Promise<string>((r) => (release = () => r('slow'))));
    // 0.7 reserved: a request of 0.4 could cross the cap while the first is in flight.
    await expect(cap.run('second', cost(0.4, 0.4), async () => 'second')).rejects.toBeInstanceOf(CostCapReached);
    release();
    expect(await slow).toBe('slow');
    expect(cap.spent).toBeCloseTo(0.1, 12);
  });

  it('a request without a price is held back (a cap cannot be kept); a request without a cost (a batch API call) is sent as is', async () => {
    const cap = new CostCap(5);
    await expect(cap.run('unpriced', cost(null, 0), async () => 1)).rejects.toThrow(/no price in the model registry/);
    expect(await new CostCap(5).run('batch', undefined, async () => 2)).toBe(2);
  });

  it('a held-back request reads as a deferral (the question stays pending), and prompts are estimated high', () => {
    expect(isDeferred(new CostCapReached('x'))).toBe(true);
    expect(promptTokensAtMost(['abcdef', 'é'])).toBe(Math.ceil((6 + 2) / 3));
  });
});

describe('ConcurrencyPool', () => {
  it('one limiter per kind and endpoint, shared by whoever holds the pool', async () => {
    const pool = new ConcurrencyPool({ chat: 2, embed: 1, rerank: 1 });
    expect(pool.limit('chat', 'http://a/v1')).toBe(pool.limit('chat', 'http://a/v1'));
    expect(pool.limit('chat', 'http://a/v1')).not.toBe(pool.limit('chat', 'http://b/v1'));
    expect(pool.limit('embed', 'http://a/v1')).not.toBe(pool.limit('chat', 'http://a/v1'));
    let inFlight = 0;
    let peak = 0;
    const task = () =>
      pool.limit(
        'chat',
        'http://a/v1',
      )(async () => {
        peak = Math.max(peak, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
      });
    await Promise.all(Array.from({ length: 6 }, task));
    expect(peak).toBe(2);
  });
});
