/**
 * A run's identity: what must be equal for a run directory to be resumed. The config hash alone
 * is not enough: the same config can run a different retriever (a remote one fell back to local),
 * on a changed data file, or with another version of rawrag, and the items already written would
 * then be credited to what did not produce them.
 */
import type { Manifest } from './manifest.js';

export interface RunIdentity {
  config_hash: string;
  /** The system under test as recorded (`RAW-RAG/local`, `agentic-memory/...`). */
  system: string;
  /** The effective evidence source (retriever after any fallback). */
  source: string;
  data_sha256: string;
  tool_version: string;
}

const LABELS: Record<keyof RunIdentity, string> = {
  config_hash: 'configuration',
  system: 'system',
  source: 'evidence source (effective retriever)',
  data_sha256: 'data file sha256',
  tool_version: 'rawrag version',
};

/** The identity a manifest records (older manifests: what can be read from their fields). */
export function identityOf(m: Partial<Manifest>): Partial<RunIdentity> {
  if (m.identity) return m.identity;
  return {
    config_hash: m.config_hash,
    system: m.system,
    source: m.retriever?.name,
    data_sha256: m.dataset?.sha256,
    tool_version: m.tool?.version,
  };
}

/** Human lines, one per field that differs: `data file sha256: 1a2b3c4d5e (now 9f8e7d6c5b)`. */
export function identityDifferences(prev: Partial<RunIdentity>, now: RunIdentity): string[] {
  const short = (v: string | undefined) => (v === undefined ? 'unknown' : /^[0-9a-f]{20,}$/.test(v) ? v.slice(0, 10) : v);
  return (Object.keys(LABELS) as Array<keyof RunIdentity>)
    .filter((k) => prev[k] !== now[k])
    .map((k) => `${LABELS[k]}: ${short(prev[k])} (now ${short(now[k])})`);
}
