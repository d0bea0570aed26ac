/**
 * `--epochs N`: the reader answers each question N times and every answer goes through the same
 * metrics and judge. Epoch e's reader request carries replicate index e-1 in its cache key (epoch 1
 * is the request of a run without epochs, so its replies are shared), the judge's keys stay as they
 * are (an answer repeated word for word reuses its verdicts: the epochs then measure the reader
 * only). The item keeps epoch 1's answer and reader details; its score is the mean of the epochs'
 * scores and its judge votes are each judge run's verdicts averaged over the epochs, so their mean
 * is the item score as for one epoch; each epoch's answer, score, votes and metrics are in
 * `details.epochs` (`rawrag stats` reports the between-epoch variance from them).
 */
import type { ItemRecord } from '../core/item.js';
import { judgeVotes } from '../core/item.js';
import { isDeferred } from '../providers/batch/defer.js';
import { addCost } from '../providers/usage.js';
import type { ItemStage } from './stage.js';

/** One epoch as `details.epochs` keeps it. */
export interface EpochRecord {
  epoch: number;
  answer: string | null;
  score: number | null;
  votes: number[];
  metrics: Record<string, number | null>;
  reader: Record<string, unknown> | null;
}

export function epochsStage(stages: ItemStage[], epochs: number): ItemStage {
  return {
    name: 'epochs',
    async run(item, ctx) {
      const before = structuredClone(item);
      const done: ItemRecord[] = [];
      for (let epoch = 1; epoch <= epochs; epoch++) {
        const one = structuredClone(before);
        for (const stage of stages) {
          try {
            await stage.run(one, { ...ctx, epoch });
          } catch (e) {
            // A request deferred to a batch or held back by --max-cost: the question stays pending.
            if (isDeferred(e)) throw e;
            one.error = { stage: stage.name, message: `epoch ${epoch}: ${(e as Error).message}` };
            break;
          }
        }
        done.push(one);
        if (one.error) break;
      }
      combine(item, done);
    },
  };
}

/** The item from its epochs (the first failed epoch's error, if one failed). */
function combine(item: ItemRecord, epochs: ItemRecord[]): void {
  const first = epochs[0]!;
  const failed = epochs.find((e) => e.error);
  item.answer = first.answer;
  item.details = { ...first.details, usage: sumUsage(epochs.map((e) => e.details.usage)) };
  item.details.epochs = epochs.map((e, i): EpochRecord => ({
    epoch: i + 1,
    answer: e.answer,
    score: e.score,
    votes: judgeVotes(e),
    metrics: e.metrics,
    reader: (e.details.reader as Record<string, unknown> | undefined) ?? null,
  }));
  if (failed) {
    item.error = failed.error;
    item.metrics = first.metrics;
    return;
  }
  item.metrics = meanMetrics(epochs.map((e) => e.metrics));
  const scores = epochs.map((e) => e.score);
  item.score = scores.every((s): s is number => s !== null) ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
  const votes = epochs.map(judgeVotes);
  const runs = votes[0]!.length;
  if (runs > 0 && votes.every((v) => v.length === runs) && first.details.judge) {
    // Judge run r over the epochs: the mean of its verdicts (the item score is the mean of these).
    const mean = Array.from({ length: runs }, (_, r) => votes.reduce((s, v) => s + v[r]!, 0) / votes.length);
    item.details.judge = { ...(first.details.judge as Record<string, unknown>), votes: mean, votes_per_epoch: votes };
  }
}

function meanMetrics(all: Array<Record<string, number | null>>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const name of new Set(all.flatMap((m) => Object.keys(m)))) {
    const values = all.map((m) => m[name]).filter((v): v is number => typeof v === 'number');
    out[name] = values.length === all.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  }
  return out;
}

type RoleUsage = { prompt_tokens: number; completion_tokens: number; cost_usd: number | null; requests: number; cache_hits: number };

/** Per-role usage of every epoch, added up (what the item cost). */
function sumUsage(all: unknown[]): Record<string, RoleUsage> {
  const out: Record<string, RoleUsage> = {};
  for (const usage of all as Array<Record<string, RoleUsage> | undefined>) {
    for (const [role, u] of Object.entries(usage ?? {})) {
      const r = (out[role] ??= { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0, requests: 0, cache_hits: 0 });
      r.prompt_tokens += u.prompt_tokens;
      r.completion_tokens += u.completion_tokens;
      r.cost_usd = addCost(r.cost_usd, u.cost_usd);
      r.requests += u.requests;
      r.cache_hits += u.cache_hits;
    }
  }
  return out;
}
