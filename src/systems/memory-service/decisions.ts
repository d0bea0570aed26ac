/**
 * A memory service's add events as the write-decision log (`<run>/write-decisions.jsonl`, the
 * format `rawrag memory audit` reads: one JSON object per line with `episode`, `operation`,
 * `memory_id`, `old_text`, `new_text`, plus `batch` and `seq`). Derived from the acknowledged
 * adds of the ingest log and rewritten whole (atomically), so a kill never leaves the two apart
 * and a resumed run never repeats a decision.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/fsx.js';
import type { IngestLog } from './ingest-log.js';
import type { AddEvent } from './service.js';

export const DECISION_LOG_FILE = 'write-decisions.jsonl';

export interface DecisionLine {
  episode: string;
  operation: AddEvent['event'];
  memory_id: string | null;
  old_text: string | null;
  new_text: string | null;
  batch: string;
  seq: number;
}

/** Mem0's event fields mapped onto a decision: what was stored before, what is proposed now. */
export function decisionOf(e: AddEvent, episode: string, batch: string, seq: number): DecisionLine {
  switch (e.event) {
    case 'ADD':
      return { episode, operation: 'ADD', memory_id: e.id, old_text: null, new_text: e.memory, batch, seq };
    case 'UPDATE':
      return { episode, operation: 'UPDATE', memory_id: e.id, old_text: e.previous, new_text: e.memory, batch, seq };
    case 'DELETE':
      // Mem0 reports the deleted memory's text in `memory`.
      return { episode, operation: 'DELETE', memory_id: e.id, old_text: e.previous ?? e.memory, new_text: null, batch, seq };
    case 'NONE':
      return { episode, operation: 'NONE', memory_id: e.id, old_text: e.memory, new_text: null, batch, seq };
  }
}

/** The decision log of the owners that hold memories now, in the order the adds were acknowledged. */
export function decisionLines(log: IngestLog): DecisionLine[] {
  const live = new Map(log.liveOwners().map((s) => [s.owner, s]));
  const out: DecisionLine[] = [];
  const seq = new Map<string, number>();
  for (const line of log.all()) {
    if (line.type !== 'add' || !line.events) continue;
    // Only the owner's acknowledged adds since its last purge count.
    if (live.get(line.owner)?.adds.get(line.key) !== line) continue;
    // A visibility horizon (MEME) is a store of its own: its decisions are audited apart.
    const episode = line.owner.endsWith(`@${line.scope}`) ? `${line.episode}@${line.scope}` : line.episode;
    for (const e of line.events) {
      const n = seq.get(episode) ?? 0;
      seq.set(episode, n + 1);
      out.push(decisionOf(e, episode, line.key, n));
    }
  }
  return out;
}

export function writeDecisions(runDir: string, log: IngestLog): number {
  const lines = decisionLines(log);
  writeFileAtomic(join(runDir, DECISION_LOG_FILE), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return lines.length;
}
