/**
 * A loopback OpenAI-compatible server (tests/helpers/fake-api.ts) that also plays the agentic
 * memory system's extractor: requests whose system message is the extraction prompt get a
 * scripted reply per dialogue segment (keyed by the segment's first turn id); every other chat
 * request (reader, judge) gets the FakeApi default or `chat`. Scripts may depend on how often the
 * segment was asked (a malformed reply the first time, a good one after).
 */
import { FakeApi, defaultChat, type RecordedRequest } from './fake-api.js';

export const EXTRACT_MARKER = 'You are the memory extractor';

/** A reply text, or a function of the 1-based attempt number for this segment. */
export type SegmentScript = string | ((attempt: number, turnIds: string[]) => string);

export interface FakeExtractorOptions {
  /** Replies by the segment's first turn id. */
  script?: Record<string, SegmentScript>;
  /** Reply for segments without a script (default: one item per turn, citing it). */
  fallback?: (turnIds: string[], lines: string[]) => string;
  /** Non-extraction chat requests. */
  chat?(body: any): string;
  dim?: number;
  /** Delay before every reply (a slow provider). */
  delayMs?: number;
}

export function isExtractionRequest(r: RecordedRequest): boolean {
  return (
    r.path === '/v1/chat/completions' &&
    typeof r.body?.messages?.[0]?.content === 'string' &&
    r.body.messages[0].content.startsWith(EXTRACT_MARKER)
  );
}

/** The turn ids and lines of an extraction request's segment. */
export function segmentOf(body: any): { turnIds: string[]; lines: string[] } {
  const user: string = body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? '';
  const lines = user.split('\n').filter((l) => l.startsWith('('));
  return { turnIds: lines.map((l) => /^\(([^)]*)\)/.exec(l)![1]!), lines };
}

/** One item per turn: "<speaker> said: <text>", the speaker as entity, citing the turn. */
export function itemPerTurn(turnIds: string[], lines: string[]): string {
  return JSON.stringify(
    lines.map((l, i) => {
      const m = /^\([^)]*\) \[[^\]]*\] ([^:]+): (.*)$/.exec(l);
      const speaker = m?.[1] ?? 'someone';
      const text = (m?.[2] ?? l).slice(0, 200);
      return {
        memory_type: 'episodic',
        content: `${speaker} said: ${text}`,
        entities: [speaker],
        attribute: null,
        updates: false,
        importance: 0.5,
        confidence: 0.9,
        source_turns: [turnIds[i]],
      };
    }),
  );
}

export function item(
  content: string,
  entities: string[],
  sourceTurns: string[],
  extra: Partial<Record<'memory_type' | 'attribute' | 'updates' | 'importance' | 'confidence', unknown>> = {},
): Record<string, unknown> {
  return {
    memory_type: 'semantic',
    content,
    entities,
    attribute: null,
    updates: false,
    importance: 0.5,
    confidence: 0.9,
    source_turns: sourceTurns,
    ...extra,
  };
}

export class FakeExtractor {
  readonly api: FakeApi;
  /** Extraction requests answered per segment (first turn id). */
  readonly attempts = new Map<string, number>();

  constructor(private readonly opts: FakeExtractorOptions = {}) {
    this.api = new FakeApi({ dim: opts.dim, delayMs: opts.delayMs, chat: (body) => this.reply(body) });
  }

  /** The reply function, for other loopback servers built on FakeApi (the Batch API peer). */
  get chat(): (body: any) => string {
    return (body) => this.reply(body);
  }

  async start(): Promise<this> {
    await this.api.start();
    return this;
  }

  get url(): string {
    return this.api.url;
  }

  close(): Promise<void> {
    return this.api.close();
  }

  /** Extraction requests that reached the server (faulted ones included). */
  extractionRequests(): RecordedRequest[] {
    return this.api.requests.filter(isExtractionRequest);
  }

  private reply(body: any): string {
    const first = body?.messages?.[0]?.content;
    if (typeof first !== 'string' || !first.startsWith(EXTRACT_MARKER)) return (this.opts.chat ?? defaultChat)(body);
    const { turnIds, lines } = segmentOf(body);
    const key = turnIds[0] ?? '';
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, n);
    const s = this.opts.script?.[key];
    if (s === undefined) return (this.opts.fallback ?? itemPerTurn)(turnIds, lines);
    return typeof s === 'string' ? s : s(n, turnIds);
  }
}
