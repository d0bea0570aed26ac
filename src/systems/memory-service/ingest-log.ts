/**
 * What a memory service acknowledged, per run (`<run>/service-ingest.jsonl`): one line per add the
 * service accepted (with its events), one when an owner's history is complete, one when an owner
 * was purged. Each line is appended and fsynced before the next add is sent, so a kill loses at
 * most the add in flight, and a resumed run never sends an acknowledged add again. The
 * write-decision log (write-decisions.jsonl) is derived from this file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { appendRecordsToFile } from '../../util/checked-write.js';
import { join } from 'node:path';
import { InputError } from '../../util/errors.js';
import type { AddEvent } from './service.js';

export const INGEST_LOG_FILE = 'service-ingest.jsonl';

export type IngestLine =
  | {
      type: 'add';
      owner: string;
      episode: string;
      /** Visible turns of the history this owner holds (the visibility horizon). */
      scope: number;
      key: string;
      index: number;
      messages: number;
      turns: string[];
      /** The service's events; null when it reports none, or when the add was recovered after a lost reply. */
      events: AddEvent[] | null;
      /** Parts of the reply that could not be read as events (kept, not dropped). */
      unread?: unknown[];
      /** The reply was lost (dropped connection, kill) but the service holds the add's memories: not sent again. */
      recovered?: true;
      /** For a recovered add: the memories found holding its key (their turns are this add's). */
      found?: string[];
      at: string;
    }
  /**
   * The service accepted the add and finishes it in the background (`ticket`: its event or task
   * id); written before the wait, so a run that stops waiting resumes the wait rather than re-adding.
   */
  | { type: 'accepted'; owner: string; episode: string; scope: number; key: string; ticket: string; at: string }
  /** What the service said about itself (its `probe`), once per process that ingested. */
  | { type: 'probe'; version: string | null; add_only: boolean | null; notes: string[]; at: string }
  /** Written before an owner's first add is sent: a resume then knows the service may already hold something. */
  | { type: 'begin'; owner: string; episode: string; scope: number; at: string }
  | {
      type: 'complete';
      owner: string;
      episode: string;
      scope: number;
      adds: number;
      at: string;
      /** This process's add time for the owner, and from its first add until the service said it was searchable (ms). */
      add_ms?: number;
      ready_ms?: number;
    }
  | { type: 'purged'; owner: string; at: string };

export interface OwnerState {
  owner: string;
  episode: string;
  scope: number;
  /** Acknowledged adds by key (since the last purge). */
  adds: Map<string, Extract<IngestLine, { type: 'add' }>>;
  /** Adds the service accepted but whose result was never read, by key: their tickets. */
  pending: Map<string, string>;
  complete: boolean;
  /** The complete line's timings, when it has them. */
  addMs: number | null;
  readyMs: number | null;
}

export class IngestLog {
  readonly path: string;
  private readonly owners = new Map<string, OwnerState>();
  /** Every line in order (purges included): the decision log is rebuilt from it. */
  private readonly lines: IngestLine[] = [];
  /**
   * The turns behind each memory id, from rawrag's own record of the adds whose events named it:
   * the add that created it, then each add that UPDATEd it (an event's own turns when the reply
   * says which message made the memory). A service may replace a memory's
   * metadata when it updates it (Mem0 before 2.0): this record keeps what the metadata loses.
   */
  private readonly memoryTurns = new Map<string, string[]>();
  private lastProbe: Extract<IngestLine, { type: 'probe' }> | null = null;

  constructor(runDir: string) {
    this.path = join(runDir, INGEST_LOG_FILE);
    if (existsSync(this.path)) this.read();
  }

  private read(): void {
    const text = readFileSync(this.path, 'utf8');
    const raw = text.split('\n');
    raw.forEach((line, i) => {
      if (line.trim() === '') return;
      let v: IngestLine;
      try {
        v = JSON.parse(line) as IngestLine;
      } catch (e) {
        // A kill during the append tears only the last line: that add was not acknowledged here.
        if (i === raw.length - 1) return;
        throw new InputError(`not JSON (${(e as Error).message})`, { file: this.path, place: `line ${i + 1}` });
      }
      this.apply(v);
    });
  }

  private apply(v: IngestLine): void {
    this.lines.push(v);
    if (v.type === 'probe') {
      this.lastProbe = v;
      return;
    }
    if (v.type === 'purged') {
      this.owners.delete(v.owner);
      for (const k of [...this.memoryTurns.keys()]) if (k.startsWith(`${v.owner}\u0000`)) this.memoryTurns.delete(k);
      return;
    }
    const s = this.stateOf(v.owner, v.episode, v.scope);
    if (v.type === 'add') {
      s.adds.set(v.key, v);
      s.pending.delete(v.key);
      this.remember(v);
    } else if (v.type === 'accepted') {
      s.pending.set(v.key, v.ticket);
    } else if (v.type === 'complete') {
      s.complete = true;
      s.addMs = v.add_ms ?? null;
      s.readyMs = v.ready_ms ?? null;
    }
  }

  /**
   * The memories an add wrote — those its events ADDed or UPDATEd, or (recovered after a lost
   * reply) those found holding its key — get its turns, beside the turns they had: a memory's
   * text after an UPDATE is made from both adds, so both adds' turns are behind it.
   */
  private remember(v: Extract<IngestLine, { type: 'add' }>): void {
    // An event that names its own turns (one memory per message) credits those; else the add's.
    const written: Array<{ id: string; turns: string[] }> = [
      ...(v.events ?? [])
        .filter((e) => e.id && (e.event === 'ADD' || e.event === 'UPDATE'))
        .map((e) => ({ id: e.id!, turns: e.turns ?? v.turns })),
      ...(v.found ?? []).map((id) => ({ id, turns: v.turns })),
    ];
    for (const { id, turns } of written) {
      const key = `${v.owner}\u0000${id}`;
      const known = this.memoryTurns.get(key);
      this.memoryTurns.set(key, known ? [...new Set([...known, ...turns])] : [...turns]);
    }
  }

  /** The service's probe as last recorded (null: none recorded). */
  probe(): { version: string | null; add_only: boolean | null; notes: string[] } | null {
    return this.lastProbe ? { version: this.lastProbe.version, add_only: this.lastProbe.add_only, notes: this.lastProbe.notes } : null;
  }

  /** The turns of the adds that wrote memory `id` of `owner` (null: no event of this run named it). */
  turnsOfMemory(owner: string, id: string): string[] | null {
    return this.memoryTurns.get(`${owner}\u0000${id}`) ?? null;
  }

  private stateOf(owner: string, episode: string, scope: number): OwnerState {
    let s = this.owners.get(owner);
    if (!s) {
      s = { owner, episode, scope, adds: new Map(), pending: new Map(), complete: false, addMs: null, readyMs: null };
      this.owners.set(owner, s);
    }
    return s;
  }

  /** Appends one line durably (fsync) and applies it. */
  append(v: IngestLine): void {
    appendRecordsToFile(this.path, [JSON.stringify(v)], { fsync: true });
    this.apply(v);
  }

  owner(owner: string): OwnerState | undefined {
    return this.owners.get(owner);
  }

  /** Owners that may hold memories on the service (begun, not purged since). */
  liveOwners(): OwnerState[] {
    return [...this.owners.values()].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
  }

  all(): readonly IngestLine[] {
    return this.lines;
  }

  /** Totals for summaries: acknowledged adds, recovered ones, those whose events the service reported, owners complete, events by kind. */
  totals(): { adds: number; recovered: number; reported: number; owners: number; complete: number; events: Record<string, number> } {
    const events: Record<string, number> = { ADD: 0, UPDATE: 0, DELETE: 0, NONE: 0 };
    let adds = 0;
    let recovered = 0;
    let reported = 0;
    let complete = 0;
    for (const s of this.owners.values()) {
      if (s.complete) complete++;
      for (const a of s.adds.values()) {
        adds++;
        if (a.recovered) recovered++;
        if (a.events) reported++;
        for (const e of a.events ?? []) events[e.event] = (events[e.event] ?? 0) + 1;
      }
    }
    return { adds, recovered, reported, owners: this.owners.size, complete, events };
  }
}
