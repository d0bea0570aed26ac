/**
 * Issue 42, item 7: after a stop signal nothing is awaited but the flush. `untilStopped` (the grid's
 * stop path, src/cli/run-grid.ts) waits for the work registered in `Flushes` (cells that have begun
 * writing) and not for startup work, which here never settles at all.
 */
import { describe, expect, it } from 'vitest';
import { Flushes, untilStopped } from '../../../src/util/interrupt.js';

const never = () => new Promise<never>(() => {});

describe('untilStopped', () => {
  it('without a signal: the work itself', async () => {
    await expect(untilStopped(Promise.resolve(7), undefined, new Flushes())).resolves.toEqual({ done: true, value: 7 });
  });

  it('after the signal: resolves once the flushes settle, never waiting for startup work that hangs', async () => {
    const ctl = new AbortController();
    const flushes = new Flushes();
    let flushed = false;
    let release!: () => void;
    flushes.add(new Promise<void>((r) => (release = r)).then(() => void (flushed = true)));
    const stopped = untilStopped(never(), ctl.signal, flushes);
    let settled = false;
    void stopped.then(() => (settled = true));
    ctl.abort('SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    // The flush is still going: the stop path waits for it.
    expect(settled).toBe(false);
    // A flush registered after the signal (a cell that had begun writing) is waited for too.
    let late!: () => void;
    flushes.add(new Promise<void>((r) => (late = r)));
    release();
    await new Promise((r) => setTimeout(r, 20));
    expect(flushed).toBe(true);
    expect(settled).toBe(false);
    late();
    await expect(stopped).resolves.toEqual({ done: false });
    expect(flushes.size).toBe(0);
  });

  it('a signal with nothing begun: at once, whatever startup is still doing', async () => {
    const ctl = new AbortController();
    ctl.abort('SIGTERM');
    const t0 = performance.now();
    await expect(untilStopped(never(), ctl.signal, new Flushes())).resolves.toEqual({ done: false });
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('a failed flush still lets the stop go on; work that ends first is its value', async () => {
    const ctl = new AbortController();
    const flushes = new Flushes();
    flushes.add(Promise.reject(new Error('disk full'))).catch(() => undefined);
    ctl.abort('SIGINT');
    await expect(untilStopped(never(), ctl.signal, flushes)).resolves.toEqual({ done: false });
    await expect(untilStopped(Promise.resolve('done'), new AbortController().signal, flushes)).resolves.toEqual({ done: true, value: 'done' });
  });
});
