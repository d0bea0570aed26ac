/**
 * A memory service's add events as the write-decision log (`<run>/write-decisions.jsonl`, the
 * format `rawrag memory audit` reads: one JSON object per line with `episode`, `operation`,
 * `memory_id`, `old_text`, `new_text`, plus `batch` and `seq`). Derived from the acknowledged
 * adds of the ingest log: rebuilt whole (atomically) when a process opens the run, then appended
 * add by add, so a kill never leaves the two apart and a resumed run never repeats a decision.
 */
import { appendRecordsToFile } from '../../util/checked-write.js';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/fsx.js';
import type { IngestLine, IngestLog } from './ingest-log.js';
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
  /** The service's returned events, not its LLM's proposals (the audit's second layer). */
  layer: 'event';
}

/** Mem0's event fields mapped onto a decision: what was stored before, what is proposed now. */
export function decisionOf(e: AddEvent, episode: string, batch: string, seq: number): DecisionLine {
  const at = { batch, seq, layer: 'event' as const };
  switch (e.event) {
    case 'ADD':
      return { episode, operation: 'ADD', memory_id: e.id, old_text: null, new_text: e.memory, ...at };
    case 'UPDATE':
      return { episode, operation: 'UPDATE', memory_id: e.id, old_text: e.previous, new_text: e.memory, ...at };
    case 'DELETE':
      // Mem0 reports the deleted memory's text in `memory`.
      return { episode, operation: 'DELETE', memory_id: e.id, old_text: e.previous ?? e.memory, new_text: null, ...at };
    case 'NONE':
      return { episode, operation: 'NONE', memory_id: e.id, old_text: e.memory, new_text: null, ...at };
  }
}

/** A visibility horizon (MEME) is a store of its own: its decisions are audited apart. */
function episodeLabel(line: AddLine): string {
  return line.owner.endsWith(`@${line.scope}`) ? `${line.episode}@${line.scope}` : line.episode;
}

type AddLine = Extract<IngestLine, { type: 'add' }>;

/** The decision log of the owners that hold memories now, in the order the adds were acknowledged. */
export function decisionLines(log: IngestLog, seq = new Map<string, number>()): DecisionLine[] {
  const live = new Map(log.liveOwners().map((s) => [s.owner, s]));
  const out: DecisionLine[] = [];
  for (const line of log.all()) {
    if (line.type !== 'add' || !line.events) continue;
    // Only the owner's acknowledged adds since its last purge count.
    if (live.get(line.owner)?.adds.get(line.key) !== line) continue;
    out.push(...linesOf(line, seq));
  }
  return out;
}

function linesOf(line: AddLine, seq: Map<string, number>): DecisionLine[] {
  const episode = episodeLabel(line);
  return (line.events ?? []).map((e) => {
    const n = seq.get(episode) ?? 0;
    seq.set(episode, n + 1);
    return decisionOf(e, episode, line.key, n);
  });
}

/** Rewrites the whole log from the ingest log (at start, after a purge): a kill never leaves the two apart. */
export function writeDecisions(runDir: string, log: IngestLog): number {
  const lines = decisionLines(log);
  writeFileAtomic(join(runDir, DECISION_LOG_FILE), lines.map((l) => JSON.stringify(l) + '\n').join(''));
  return lines.length;
}

/** The log of one process: rebuilt once when it starts, then each acknowledged add's decisions appended. */
export class DecisionWriter {
  private readonly seq = new Map<string, number>();
  private readonly path: string;

  constructor(runDir: string, log: IngestLog) {
    this.path = join(runDir, DECISION_LOG_FILE);
    const lines = decisionLines(log, this.seq);
    writeFileAtomic(this.path, lines.map((l) => JSON.stringify(l) + '\n').join(''));
  }

  append(line: IngestLine): void {
    if (line.type !== 'add' || !line.events?.length) return;
    appendRecordsToFile(
      this.path,
      linesOf(line, this.seq).map((l) => JSON.stringify(l)),
    );
  }
}
