/**
 * `--max-cost USD`: a cap on what the provider requests of a run (or a grid of runs, or an
 * ablation) may spend, checked before each request is sent. A request starts only when the money
 * already spent (by earlier processes of the same run directories too), the estimates of the
 * requests in flight and its own estimate stay within the cap; otherwise it is held back
 * (CostCapReached, which the pipeline reads like a deferral: the question is not written and stays
 * pending) and the cap's signal stops new questions. Requests in flight finish and their real cost
 * is counted; questions in flight go on while their requests fit. A request's estimate errs high: prompt bytes / 3 tokens, and its max_tokens or, when
 * it sends none, twice the longest reply of its model so far (at least 256 tokens; the first
 * request of a model goes alone, so that length is known before others are priced on it).
 */
import { DeferredRequestError } from './batch/defer.js';

/** The abort reason of a run stopped by its cost cap (an interruption's is the signal name). */
export const COST_CAP_REASON = 'cost-cap';

/** What one request may cost: an estimate before it is sent, its real cost from the reply (null: unknown price). */
export interface RequestCost<T> {
  estimate: number | null;
  actual(result: T): number | null;
}

/** Thrown instead of sending a request that could cross the cap: like a deferral, the question stays pending. */
export class CostCapReached extends DeferredRequestError {
  constructor(what: string) {
    super('');
    this.message = `${what} held back: it could cross the --max-cost cap`;
    this.name = 'CostCapReached';
  }
}

export class CostCap {
  private spentHere = 0;
  private reserved = 0;
  private readonly ctl = new AbortController();
  /** Why the cap stopped the run (the first request it held back), null while it has not. */
  stoppedAt: string | null = null;

  constructor(
    readonly capUsd: number,
    /** What the run directories under this cap recorded as spent before this process. */
    readonly spentBefore = 0,
  ) {}

  /** Aborted (reason COST_CAP_REASON) once a request was held back: no new question starts. */
  get signal(): AbortSignal {
    return this.ctl.signal;
  }

  get reached(): boolean {
    return this.ctl.signal.aborted;
  }

  /** USD spent in all: before this process and by it. */
  get spent(): number {
    return this.spentBefore + this.spentHere;
  }

  /** Sends through `send` when the request fits under the cap; counts its real cost. Without a cost (a batch API call): sent as is. */
  async run<T>(what: string, cost: RequestCost<T> | undefined, send: () => Promise<T>): Promise<T> {
    if (!cost) return send();
    const estimate = cost.estimate;
    // Each request on its own: after the first refusal no new question starts (the signal), but the
    // requests of questions in flight that still fit are sent, so those questions can finish.
    if (estimate === null || this.spent + this.reserved + estimate > this.capUsd) {
      const why = estimate === null ? `${what} (no price in the model registry)` : what;
      this.stoppedAt ??= why;
      this.ctl.abort(COST_CAP_REASON);
      throw new CostCapReached(why);
    }
    this.reserved += estimate;
    try {
      const result = await send();
      this.spentHere += cost.actual(result) ?? estimate;
      return result;
    } finally {
      this.reserved -= estimate;
    }
  }
}

/** A prompt's tokens as the cap estimates them: UTF-8 bytes / 3, above cl100k's ~4 bytes per token of English. */
export function promptTokensAtMost(texts: readonly string[]): number {
  return Math.ceil(texts.reduce((s, t) => s + Buffer.byteLength(t, 'utf8'), 0) / 3);
}

/** The reply length the cap assumes when a request sets no max_tokens (or more, once longer replies were seen). */
export const REPLY_TOKENS_ASSUMED = 256;
