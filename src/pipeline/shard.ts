/**
 * `--shard I/N` on a single run: the questions of every N-th conversation, starting with the I-th
 * (conversations in data order), so no conversation is ingested on two machines; `rawrag merge`
 * joins the shards' run directories into one run.
 */
import type { Question } from '../core/schema.js';
import { RunDir } from '../run-files/run-dir.js';
import { InputError } from '../util/errors.js';

export interface RunShard {
  index: number;
  count: number;
}

/** This shard's questions, in data order. */
export function shardQuestions(questions: Question[], shard: RunShard): Question[] {
  const order = new Map<string, number>();
  for (const q of questions) if (!order.has(q.episode)) order.set(q.episode, order.size);
  return questions.filter((q) => order.get(q.episode)! % shard.count === shard.index - 1);
}

/** A run directory holds one shard: resuming it as another (or as the whole run) is refused. */
export function checkShardOfDir(dir: string, shard: RunShard | null): void {
  const rundir = new RunDir(dir);
  if (!rundir.exists()) return;
  const had = (rundir.readManifest() as { shard?: RunShard }).shard ?? null;
  const label = (s: RunShard | null) => (s ? `shard ${s.index}/${s.count}` : 'the whole selection');
  if ((had?.index ?? 0) !== (shard?.index ?? 0) || (had?.count ?? 0) !== (shard?.count ?? 0))
    throw new InputError(`this run directory holds ${label(had)}, not ${label(shard)}: use another --out`, { file: rundir.manifestPath });
}
