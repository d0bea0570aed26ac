/**
 * Where `rawrag memory audit` finds what it audits, kept apart by what it records:
 * - **proposals** (what a write LLM proposed, NONE included): a JSONL file given directly, a run
 *   whose system's store keeps its own log (agentic memory), a proposal log imported beside a run
 *   (`--proposals FILE`, or `write-proposals.jsonl` in the run directory);
 * - **events** (what a memory service's replies said it did): `write-decisions.jsonl` of a
 *   memory-service run (its lines say `layer: "event"`), or a file given with `--layer events`.
 * The service's own facts (its probe, how many adds reported events) come from the run's summary.
 */
import { MANIFEST_FILE, readRunManifest, readRunSummary } from '../run-files/record.js';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DECISION_LOG_FILE, readDecisionLog, type Operation, type WriteDecision } from '../core/write-decisions.js';
import { getSystem, DEFAULT_SYSTEM } from '../systems/registry.js';
import { InputError } from '../util/errors.js';

/** A proposal log kept beside a run's own files (its name when copied into the run directory). */
export const PROPOSAL_LOG_FILE = 'write-proposals.jsonl';

/** What a memory service said about itself and its adds (summary.json's `service`). */
export interface ServiceFacts {
  system: string;
  probe: { version: string | null; add_only: boolean | null; notes?: string[] } | null;
  /** Adds whose events the service reported. */
  adds: number;
  events: Partial<Record<Operation, number>>;
}

export interface DecisionSource {
  source: string;
  benchmark: string | null;
  system: string | null;
  /** The log the audit's headline figures come from: the proposals when there are any, else the events. */
  decisions: WriteDecision[];
  proposals: { file: string; decisions: WriteDecision[] } | null;
  events: { file: string; decisions: WriteDecision[] } | null;
  service: ServiceFacts | null;
}

export interface SourceOptions {
  benchmark?: string;
  /** A proposal log to audit beside the run's own (a JSONL file in the documented format). */
  proposals?: string;
  /** What a decision-log file given directly records (default: its lines' `layer`, else proposals). */
  layer?: 'proposals' | 'events';
}

const isEventLog = (ds: WriteDecision[]) => ds.length > 0 && ds.every((d) => d.layer === 'event');

function readLog(file: string, as: 'proposals' | 'events'): WriteDecision[] {
  const ds = readDecisionLog(file);
  const wrong = ds.findIndex((d) => d.layer !== undefined && d.layer !== (as === 'events' ? 'event' : 'proposal'));
  if (wrong >= 0)
    throw new InputError(`line says layer "${ds[wrong]!.layer}", but the file is read as ${as}`, { file, place: `decision ${wrong + 1}` });
  return ds;
}

function serviceFacts(dir: string): ServiceFacts | null {
  const s = (readRunSummary(dir) as { service?: Record<string, any> } | null)?.service;
  if (!s || typeof s !== 'object') return null;
  const a = s.acknowledged ?? {};
  return {
    system: String(s.system ?? 'the service'),
    probe: s.probe ?? null,
    adds: typeof a.reported === 'number' ? a.reported : Math.max(0, (a.adds ?? 0) - (a.recovered ?? 0)),
    events: a.events ?? {},
  };
}

function assemble(
  meta: Pick<DecisionSource, 'source' | 'benchmark' | 'system'>,
  proposals: DecisionSource['proposals'],
  events: DecisionSource['events'],
  service: ServiceFacts | null,
): DecisionSource {
  return { ...meta, decisions: proposals?.decisions ?? events?.decisions ?? [], proposals, events, service };
}

export function decisionSource(arg: string, opts: SourceOptions = {}): DecisionSource {
  const path = resolve(arg);
  if (!existsSync(path)) throw new InputError('no such run directory or decision log', { file: path });
  const extra = opts.proposals ? { file: opts.proposals, decisions: readLog(resolve(opts.proposals), 'proposals') } : null;
  if (statSync(path).isFile()) {
    const ds = readDecisionLog(path);
    const asEvents = opts.layer ? opts.layer === 'events' : isEventLog(ds);
    const log = { file: arg, decisions: readLog(path, asEvents ? 'events' : 'proposals') };
    const meta = { source: arg, benchmark: opts.benchmark ?? null, system: null };
    if (asEvents) return assemble(meta, extra, log, null);
    if (extra)
      throw new InputError('--proposals goes with a run directory or an event log; this file is itself a proposal log', { file: path });
    return assemble(meta, log, null, null);
  }
  if (!existsSync(join(path, MANIFEST_FILE)))
    throw new InputError('not a run directory (no manifest.json) nor a decision log file', { file: path });
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const manifest = readRunManifest(path).manifest as { benchmark?: string; system?: string; config?: { system?: string } };
  const meta = { source: arg, benchmark: opts.benchmark ?? manifest.benchmark ?? null, system: manifest.system ?? null };
  const service = serviceFacts(path);
  const besides = join(path, PROPOSAL_LOG_FILE);
  const proposals = extra ?? (existsSync(besides) ? { file: besides, decisions: readLog(besides, 'proposals') } : null);
  const file = join(path, DECISION_LOG_FILE);
  if (existsSync(file)) {
    const ds = readDecisionLog(file);
    // A memory service's log holds its returned events (older runs' lines do not say so: the run's summary does).
    if (isEventLog(ds) || service !== null) return assemble(meta, proposals, { file, decisions: ds }, service);
    return assemble(meta, proposals ?? { file, decisions: ds }, null, service);
  }
  const system = getSystem(manifest.config?.system ?? DEFAULT_SYSTEM);
  if (!system.store?.decisions) {
    if (proposals) return assemble(meta, proposals, null, service);
    throw new InputError(`system '${system.name}' keeps no write-decision log (and there is no ${DECISION_LOG_FILE} here)`, { file: path });
  }
  return assemble(meta, proposals ?? { file: join(path, '(store)'), decisions: system.store.decisions(path) }, null, service);
}
