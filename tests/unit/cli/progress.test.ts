import { describe, expect, it } from 'vitest';
import { EtaEstimator, formatDuration, infoText, progressBar } from '../../../src/cli/progress.js';
import { warningLines } from '../../../src/benchmarks/warnings.js';

describe('smoothed ETA', () => {
  it('shows nothing for a slow first item, then tracks the steady rate', () => {
    const eta = new EtaEstimator();
    // Item 1 takes 20 s (index build), then 10 items a second.
    eta.observe(0, 0);
    eta.observe(1, 20_000);
    expect(eta.eta(1, 1540, 20_000)).toBeNull();
    let t = 20_000;
    let done = 1;
    for (let i = 0; i < 30; i++) {
      t += 1000;
      done += 10;
      eta.observe(done, t);
    }
    const left = eta.eta(done, 1540, t)!;
    // Steady rate 10/s: 1,239 left = ~124 s; the EMA converges to it, far from the naive 1,540 x 20 s.
    expect(left).toBeGreaterThan(115);
    expect(left).toBeLessThan(140);
  });

  it('ignores sub-second jitter and formats durations', () => {
    const eta = new EtaEstimator(1, 0);
    eta.observe(0, 0);
    eta.observe(5, 1000);
    eta.observe(500, 1100); // a burst 100 ms later is not a new rate sample
    expect(eta.eta(500, 1000, 1100)).toBeCloseTo(100, 5);
    expect([formatDuration(null), formatDuration(42.4), formatDuration(125), formatDuration(7322)]).toEqual([
      '—',
      '42s',
      '2m 05s',
      '2h 02m',
    ]);
  });
});

describe('progress off a terminal', () => {
  it('prints one plain line every ~10 s with errors, retries and cost, and a closing line', () => {
    const out: string[] = [];
    let t = 0;
    const bar = progressBar('locomo', true, { stream: { write: (s: string) => out.push(s), isTTY: false }, now: () => t });
    for (let done = 0; done <= 100; done++) {
      t = done * 500; // 2 items a second: 50 s in all
      bar.update(done, 100, { errors: done >= 40 ? 2 : 0, retries: 5, costUsd: done * 0.001 });
    }
    t = 53_000; // the summary is written: a closing line with the final figures
    bar.stop();
    expect(out).toHaveLength(6);
    expect(out[0]).toBe('locomo: 20/100 questions (20.0%) | ETA 40s | 0 errors | 5 retries | $0.0200\n');
    expect(out[4]).toMatch(/^locomo: 100\/100 questions \(100\.0%\) \| ETA 0s \| 2 errors \| 5 retries \| \$0\.1000\n$/);
    expect(out[5]).toMatch(/^locomo: 100\/100/);
  });

  it('a short run prints nothing; disabled prints nothing', () => {
    const out: string[] = [];
    let t = 0;
    const bar = progressBar('x', true, { stream: { write: (s: string) => out.push(s), isTTY: false }, now: () => t });
    for (let d = 0; d < 10; d++) {
      t = d * 100;
      bar.update(d, 10);
    }
    bar.stop();
    const off = progressBar('x', false, { stream: { write: (s: string) => out.push(s), isTTY: false }, now: () => (t += 20_000) });
    off.update(1, 2);
    off.update(2, 2);
    off.stop();
    expect(out).toEqual([]);
    expect(infoText({ errors: 1, retries: 1, costUsd: null })).toBe('1 error | 1 retry | $ unknown');
  });
});

describe('data warnings', () => {
  const w = [
    { place: 'conv-26:q30', message: 'no gold evidence given' },
    { place: 'conv-50:q39', message: 'no gold evidence given' },
    { place: 'conv-43:q18', message: "evidence id 'D:11:26' repaired to 'D11:26'" },
  ];
  it('one summary line by default, the list with --verbose', () => {
    expect(warningLines('l.json', w, false)).toEqual([
      'warning: l.json: 3 data warnings (first: conv-26:q30: no gold evidence given); --verbose lists them all (also in manifest.json, dataset.warnings)',
    ]);
    expect(warningLines('l.json', w, true)).toEqual(w.map((x) => `warning: l.json: ${x.place}: ${x.message}`));
    expect(warningLines('l.json', [], false)).toEqual([]);
  });

  it('the important ones (checksum, partial release) on their own line on every run, once each', () => {
    const sha = { place: 'file', important: true, message: 'sha256 differs from the pinned release' };
    const partial = { place: 'file', important: true, message: '498 questions, not a full release (500)' };
    expect(warningLines('s.json', [w[0]!, sha, w[1]!, partial], false)).toEqual([
      'warning: s.json: file: sha256 differs from the pinned release',
      'warning: s.json: file: 498 questions, not a full release (500)',
      'warning: s.json: 2 more data warnings (first: conv-26:q30: no gold evidence given); --verbose lists them all (also in manifest.json, dataset.warnings)',
    ]);
    expect(warningLines('s.json', [sha, w[0]!], false)).toEqual([
      'warning: s.json: file: sha256 differs from the pinned release',
      'warning: s.json: conv-26:q30: no gold evidence given',
    ]);
    expect(warningLines('s.json', [sha, w[0]!], true)).toHaveLength(2);
  });
});
