/**
 * Invariants of ingest chunking (src/retrieval/chunk.ts), on constructed episodes and on the real
 * LoCoMo conversations loaded through the adapter.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ingest, ingestYielding, windowBounds } from '../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../src/core/ingested-episode.js';
import { getTokenizer } from '../../src/retrieval/tokenizer.js';
import { DEFAULT_POLICY, type Policy } from '../../src/core/policy.js';
import type { Episode, Turn } from '../../src/core/schema.js';
import { locomo } from '../../src/benchmarks/locomo/index.js';
import { ROOT } from '../helpers/cli.js';

const PAPER = { tokenizer: 'cl100k_base', size: 256, stride: 224 };

function turn(i: number, text: string, speaker = i % 2 ? 'Bob' : 'Ann'): Turn {
  return { id: `D1:${i + 1}`, session: '1', date: i % 3 ? '1 May 2023' : null, speaker, text, captions: [] };
}

function episode(texts: string[]): Episode {
  return { id: 'ep', turns: texts.map((t, i) => turn(i, t)) };
}

/** Every window invariant the rest of the pipeline relies on; returns the violations found. */
function windowViolations(ep: IngestedEpisode, size: number, stride: number): string[] {
  const bad: string[] = [];
  const total = ep.turnTokenStart[ep.visibleTurns]!;
  const chunks = ep.chunks;
  if (total === 0) return chunks.length === 0 ? [] : ['chunks in an empty history'];
  if (chunks[0]!.tokenStart !== 0) bad.push('first window does not start at token 0');
  if (chunks.at(-1)!.tokenEnd !== total) bad.push('last window does not end at the last token');
  const covered = new Uint8Array(total);
  let t = 0; // first turn that may still intersect the current window (windows advance monotonically)
  for (const [i, c] of chunks.entries()) {
    const len = c.tokenEnd - c.tokenStart;
    if (c.index !== i || c.id !== `${ep.episode.id}#${i}`) bad.push(`window ${i}: index/id ${c.index}/${c.id}`);
    // No window over the size; only the last may be shorter.
    if (len > size || (i < chunks.length - 1 && len !== size)) bad.push(`window ${i}: ${len} tokens`);
    if (i > 0) {
      const prev = chunks[i - 1]!;
      // Consecutive windows start `stride` apart, so they share exactly size - stride tokens.
      if (c.tokenStart - prev.tokenStart !== stride || prev.tokenEnd - c.tokenStart !== size - stride) {
        bad.push(`windows ${i - 1}/${i}: overlap ${prev.tokenEnd - c.tokenStart}, expected ${size - stride}`);
      }
    }
    // Turn mapping: firstTurn..lastTurn are exactly the turns whose token ranges intersect the window.
    while (ep.turnTokenStart[t + 1]! <= c.tokenStart) t++;
    const touching: number[] = [];
    for (let u = t; u < ep.visibleTurns && ep.turnTokenStart[u]! < c.tokenEnd; u++) {
      if (ep.turnTokenStart[u + 1]! > c.tokenStart) touching.push(u);
    }
    const want = touching.length ? `${touching[0]}..${touching.at(-1)}` : 'none';
    if (`${c.firstTurn}..${c.lastTurn}` !== want || touching.length !== c.lastTurn - c.firstTurn + 1) {
      bad.push(`window ${i}: turns ${c.firstTurn}..${c.lastTurn}, intersecting ${want}`);
    }
    covered.fill(1, c.tokenStart, c.tokenEnd);
  }
  // Every token is covered by some window.
  const gap = covered.indexOf(0);
  if (gap >= 0) bad.push(`token ${gap} is in no window`);
  return bad;
}

function checkWindows(ep: IngestedEpisode, size: number, stride: number): void {
  expect(windowViolations(ep, size, stride)).toEqual([]);
}

describe('windowBounds', () => {
  it('covers [0, total) with windows starting stride apart and ending at the last token', () => {
    expect(windowBounds(0, 256, 224)).toEqual([]);
    expect(windowBounds(10, 256, 224)).toEqual([[0, 10]]);
    expect(windowBounds(256, 256, 224)).toEqual([[0, 256]]);
    expect(windowBounds(257, 256, 224)).toEqual([
      [0, 256],
      [224, 257],
    ]);
    expect(windowBounds(30, 10, 10)).toEqual([
      [0, 10],
      [10, 20],
      [20, 30],
    ]);
  });
});

describe('window chunking on constructed episodes', () => {
  const long = Array.from({ length: 40 }, (_, i) => `message ${i} about ${'the weather and hiking trips '.repeat(1 + (i % 5))}`);

  it('the checker itself catches a broken mapping, a gap and a wrong overlap', () => {
    const ep = ingest(episode(long), long.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 32, stride: 28 });
    expect(windowViolations(ep, 32, 28)).toEqual([]);
    const shifted = { ...ep, chunks: ep.chunks.map((c, i) => (i === 3 ? { ...c, lastTurn: c.lastTurn + 1 } : c)) };
    expect(windowViolations(shifted, 32, 28)).toHaveLength(1);
    const gappy = { ...ep, chunks: ep.chunks.filter((_, i) => i !== 2).map((c, i) => ({ ...c, index: i, id: `ep#${i}` })) };
    expect(windowViolations(gappy, 32, 28).some((v) => v.includes('overlap'))).toBe(true);
    expect(windowViolations(ep, 32, 30).some((v) => v.includes('overlap'))).toBe(true);
  });

  it('keeps every invariant at the paper setting and at small sizes', () => {
    for (const [size, stride] of [
      [256, 224],
      [32, 28],
      [17, 5],
      [8, 8],
      [1, 1],
    ] as const) {
      const ep = ingest(episode(long), long.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size, stride });
      expect(ep.chunks.length).toBeGreaterThan(1);
      checkWindows(ep, size, stride);
    }
  });

  it('window text is the decoded token range, and turn lines carry date and speaker', () => {
    const ep = ingest(episode(long), long.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 32, stride: 28 });
    const enc = getTokenizer('cl100k_base');
    const all = ep.lines.map((l) => l + '\n').join('');
    const tokens = ep.lines.flatMap((l) => Array.from(enc.encode(l + '\n')));
    expect(enc.decode(tokens)).toBe(all);
    for (const c of ep.chunks) expect(c.text).toBe(enc.decode(tokens.slice(c.tokenStart, c.tokenEnd)));
    expect(ep.lines[0]).toBe(`[unknown] Ann: ${long[0]}`);
    expect(ep.lines[1]).toBe(`[1 May 2023] Bob: ${long[1]}`);
  });

  it('edge case: an empty episode gives no chunks', () => {
    const ep = ingest(episode([]), 0, DEFAULT_POLICY, PAPER);
    expect(ep.chunks).toEqual([]);
    expect(ep.turnTokenStart).toEqual([0]);
  });

  it('edge case: one short turn gives one window over all of it', () => {
    const ep = ingest(episode(['hi there']), 1, DEFAULT_POLICY, PAPER);
    expect(ep.chunks).toHaveLength(1);
    expect(ep.chunks[0]).toMatchObject({ firstTurn: 0, lastTurn: 0, tokenStart: 0, tokenEnd: ep.turnTokenStart[1] });
    checkWindows(ep, 256, 224);
  });

  it('edge case: total == size gives exactly one window', () => {
    const probe = ingest(episode(long), long.length, DEFAULT_POLICY, PAPER);
    const total = probe.turnTokenStart.at(-1)!;
    const ep = ingest(episode(long), long.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: total, stride: 7 });
    expect(ep.chunks).toHaveLength(1);
    expect(ep.chunks[0]).toMatchObject({ tokenStart: 0, tokenEnd: total, firstTurn: 0, lastTurn: long.length - 1 });
  });

  it('edge case: size == stride tiles the history with no overlap', () => {
    const ep = ingest(episode(long), long.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 50, stride: 50 });
    checkWindows(ep, 50, 50);
    const lengths = ep.chunks.reduce((s, c) => s + c.tokenEnd - c.tokenStart, 0);
    expect(lengths).toBe(ep.turnTokenStart.at(-1));
  });

  it('ingests only the visible turns (phase protocols)', () => {
    const ep = ingest(episode(long), 5, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 16, stride: 12 });
    expect(ep.visibleTurns).toBe(5);
    expect(ep.lines).toHaveLength(5);
    expect(Math.max(...ep.chunks.map((c) => c.lastTurn))).toBe(4);
    checkWindows(ep, 16, 12);
  });
});

describe('turn chunking', () => {
  const policy: Policy = { ...DEFAULT_POLICY, chunking: 'turn', serialisation: 'plain', expandToTurns: false };

  it('gives one chunk per turn, holding exactly that turn', () => {
    const texts = ['0. The capital of France is Paris.', '1. Paris is in Europe.', '', '3. A much longer fact '.repeat(200)];
    const ep = ingest(episode(texts), texts.length, policy, PAPER);
    expect(ep.chunks.map((c) => c.text)).toEqual(texts);
    ep.chunks.forEach((c, i) => {
      expect(c).toMatchObject({
        index: i,
        firstTurn: i,
        lastTurn: i,
        tokenStart: ep.turnTokenStart[i],
        tokenEnd: ep.turnTokenStart[i + 1],
      });
    });
    // A chunk per turn even when a turn is longer than the window size.
    expect(ep.chunks[3]!.tokenEnd - ep.chunks[3]!.tokenStart).toBeGreaterThan(256);
  });
});

describe('window chunking on the real LoCoMo conversations', async () => {
  const ds = await locomo.load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });

  it('keeps every invariant on all 10 conversations at 256/224', () => {
    let windows = 0;
    for (const e of ds.episodes) {
      const ep = ingest(e, e.turns.length, locomo.policy, PAPER);
      checkWindows(ep, 256, 224);
      windows += ep.chunks.length;
    }
    // 10 conversations of 17-33K tokens: 1,270 windows at the paper's setting.
    expect(windows).toBe(1270);
  });

  it('keeps every invariant on one conversation at other sizes', () => {
    const e = ds.episodes[0]!;
    for (const [size, stride] of [
      [128, 96],
      [512, 448],
      [100, 100],
    ] as const) {
      checkWindows(ingest(e, e.turns.length, locomo.policy, { tokenizer: 'cl100k_base', size, stride }), size, stride);
    }
  });
});

describe('ingest that yields (a signal is seen while a long history is tokenized)', () => {
  const cfg = { tokenizer: 'cl100k_base' as const, size: 256, stride: 224 };
  const texts = Array.from({ length: 4000 }, (_, i) => `message ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(12)}`);

  it('gives what ingest gives', async () => {
    const few = texts.slice(0, 300);
    expect(await ingestYielding(episode(few), few.length, DEFAULT_POLICY, cfg, () => false)).toEqual(
      ingest(episode(few), few.length, DEFAULT_POLICY, cfg),
    );
  });

  it('lets a timer run meanwhile, and stops when asked', async () => {
    // A turn of the event loop at every step (the run's 50 ms would depend on this machine's speed).
    let fired = false;
    setTimeout(() => (fired = true), 0);
    expect(await ingestYielding(episode(texts), texts.length, DEFAULT_POLICY, cfg, () => fired, 0)).toBeNull();
    expect(fired).toBe(true);
  });
});

describe("a window's text", () => {
  it('is the decoding of its tokens, also where a window cuts a multi-byte character or holds a lone surrogate', () => {
    const texts = [
      'emoji 👩‍👩‍👧‍👦 and 🦄 repeated 🦄🦄🦄 '.repeat(6),
      '漢字かな交じり文、ひらがなとカタカナ。'.repeat(8),
      `a lone surrogate \ud800 here and \udc00 there `.repeat(5),
      'Ünïcödé àccents ñ ß ø '.repeat(10),
    ];
    const enc = getTokenizer('cl100k_base');
    for (const size of [7, 16, 33]) {
      const ep = ingest(episode(texts), texts.length, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size, stride: size - 3 });
      const tokens = ep.lines.flatMap((l) => enc.encode(l + '\n'));
      expect(ep.chunks.length).toBeGreaterThan(10);
      for (const c of ep.chunks) expect(c.text, `${size}: ${c.id}`).toBe(enc.decode(tokens.slice(c.tokenStart, c.tokenEnd)));
    }
  });
});
