/**
 * Ingest step 2: cut the serialised history into retrieval units.
 * `window`: fixed token windows (default 256 tokens, stride 224, so neighbours share 32 tokens);
 * each window records the contiguous range of turns whose tokens it touches.
 * `turn`: one chunk per turn (a numbered fact, a document).
 */
import type { Episode } from '../core/schema.js';
import type { Policy } from '../core/policy.js';
import type { Chunk, ChunkingConfig, IngestedEpisode } from '../core/ingested-episode.js';

import { serialiseTurn } from './serialise.js';
import { getTokenizer } from './tokenizer.js';
import { yieldToEventLoop } from '../util/yield.js';

export function ingest(
  episode: Episode,
  visibleTurns: number,
  policy: Pick<Policy, 'chunking' | 'serialisation'>,
  cfg: ChunkingConfig,
): IngestedEpisode {
  const steps = ingestSteps(episode, visibleTurns, policy, cfg);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The same ingest, a turn of the event loop every ~50 ms of work: a 1M-token BEAM conversation
 * takes seconds to tokenize, and a signal must be seen meanwhile. null = `stop()` said so (the
 * caller drops the episode; nothing was written).
 */
export async function ingestYielding(
  episode: Episode,
  visibleTurns: number,
  policy: Pick<Policy, 'chunking' | 'serialisation'>,
  cfg: ChunkingConfig,
  stop: () => boolean,
  /** How long it may compute between two turns of the event loop (tests: 0, a turn at every step). */
  yieldEveryMs = YIELD_EVERY_MS,
): Promise<IngestedEpisode | null> {
  const steps = ingestSteps(episode, visibleTurns, policy, cfg);
  let since = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - since < yieldEveryMs) continue;
    await yieldToEventLoop();
    if (stop()) return null;
    since = performance.now();
  }
}

const YIELD_EVERY_MS = 50;
/** Turns tokenized, or windows decoded, between two checks of the clock. */
const STEP = 32;

/** Ingest as steps: yields every STEP turns and windows, returns the ingested episode. */
function* ingestSteps(
  episode: Episode,
  visibleTurns: number,
  policy: Pick<Policy, 'chunking' | 'serialisation'>,
  cfg: ChunkingConfig,
): Generator<void, IngestedEpisode> {
  const turns = episode.turns.slice(0, visibleTurns);
  const lines = turns.map((t) => serialiseTurn(t, policy.serialisation));
  const enc = getTokenizer(cfg.tokenizer);
  // Each line is encoded on its own (with its newline) so every token belongs to exactly one turn.
  const tokens: number[] = [];
  const turnTokenStart: number[] = [];
  for (let l = 0; l < lines.length; l++) {
    turnTokenStart.push(tokens.length);
    enc.encode(lines[l]! + '\n', tokens);
    if (l % STEP === STEP - 1) yield;
  }
  turnTokenStart.push(tokens.length);

  const chunks: Chunk[] = [];
  if (policy.chunking === 'turn') {
    lines.forEach((text, i) => {
      chunks.push({
        index: i,
        id: `${episode.id}#${i}`,
        text,
        firstTurn: i,
        lastTurn: i,
        tokenStart: turnTokenStart[i]!,
        tokenEnd: turnTokenStart[i + 1]!,
      });
    });
  } else {
    // A window's text is the UTF-8 decoding of its tokens' bytes: a slice of the history's bytes
    // (the lines with their newlines), cut at the tokens' byte offsets — what decode(ids) gives.
    const bytes = new TextEncoder().encode(lines.join('\n') + (lines.length ? '\n' : ''));
    const byteAt = new Uint32Array(tokens.length + 1);
    for (let i = 0; i < tokens.length; i++) byteAt[i + 1] = byteAt[i]! + enc.byteLength(tokens[i]!);
    // The tokens' bytes are the text's bytes (byte-pair encoding is lossless); were they not, decode.
    const sliced = byteAt[tokens.length] === bytes.length;
    const utf8 = new TextDecoder('utf-8');
    for (const [start, end] of windowBounds(tokens.length, cfg.size, cfg.stride)) {
      const index = chunks.length;
      chunks.push({
        index,
        id: `${episode.id}#${index}`,
        text: sliced ? utf8.decode(bytes.subarray(byteAt[start], byteAt[end])) : enc.decode(tokens.slice(start, end)),
        firstTurn: turnAt(turnTokenStart, start),
        lastTurn: turnAt(turnTokenStart, end - 1),
        tokenStart: start,
        tokenEnd: end,
      });
      if (index % STEP === STEP - 1) yield;
    }
  }
  return { episode, visibleTurns: turns.length, lines, turnTokenStart, chunks };
}

/** Window [start, end) bounds: starts advance by `stride`; the last window ends at the last token. */
export function windowBounds(total: number, size: number, stride: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (total === 0) return out;
  for (let start = 0; ; start += stride) {
    const end = Math.min(start + size, total);
    out.push([start, end]);
    if (end === total) break;
  }
  return out;
}

/** Index of the turn holding token `pos` (binary search over turn start offsets). */
function turnAt(turnTokenStart: number[], pos: number): number {
  let lo = 0;
  let hi = turnTokenStart.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (turnTokenStart[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
