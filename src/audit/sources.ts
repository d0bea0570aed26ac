/**
 * Where `rawrag memory audit` finds a decision log: a JSONL file in the documented format (an
 * imported log, e.g. Mem0's events written by its adapter), a run directory holding such a file
 * (`write-decisions.jsonl`), or a run whose system's store keeps its own log (agentic memory).
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DECISION_LOG_FILE, readDecisionLog, type WriteDecision } from '../core/write-decisions.js';
import { getSystem, DEFAULT_SYSTEM } from '../systems/registry.js';
import { InputError } from '../util/errors.js';
import { readJsonFile } from '../util/fsx.js';

export interface DecisionSource {
  source: string;
  benchmark: string | null;
  system: string | null;
  decisions: WriteDecision[];
}

export function decisionSource(arg: string, opts: { benchmark?: string } = {}): DecisionSource {
  const path = resolve(arg);
  if (!existsSync(path)) throw new InputError('no such run directory or decision log', { file: path });
  if (statSync(path).isFile()) return { source: arg, benchmark: opts.benchmark ?? null, system: null, decisions: readDecisionLog(path) };
  const manifestFile = join(path, 'manifest.json');
  if (!existsSync(manifestFile)) throw new InputError('not a run directory (no manifest.json) nor a decision log file', { file: path });
  const manifest = readJsonFile(manifestFile) as { benchmark?: string; system?: string; config?: { system?: string } };
  const meta = { source: arg, benchmark: opts.benchmark ?? manifest.benchmark ?? null, system: manifest.system ?? null };
  const file = join(path, DECISION_LOG_FILE);
  if (existsSync(file)) return { ...meta, decisions: readDecisionLog(file) };
  const system = getSystem(manifest.config?.system ?? DEFAULT_SYSTEM);
  if (!system.store?.decisions)
    throw new InputError(`system '${system.name}' keeps no write-decision log (and there is no ${DECISION_LOG_FILE} here)`, { file: path });
  return { ...meta, decisions: system.store.decisions(path) };
}
