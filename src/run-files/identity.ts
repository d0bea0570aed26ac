/**
 * A run's identity: what must be equal for a run directory to be resumed. The config hash alone
 * is not enough: the same config can run a different retriever (a remote one fell back to local),
 * on a changed data file, or with another version of rawrag, and the items already written would
 * then be credited to what did not produce them.
 */

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

/** The manifest fields an identity is read from (src/run-files/manifest.ts). */
interface IdentityFields {
  identity?: RunIdentity;
  config_hash?: string;
  system?: string;
  retriever?: { name: string };
  dataset?: { sha256?: string };
  tool?: { version?: string };
}

/** The identity a manifest records (older manifests: what can be read from their fields). */
export function identityOf(m: IdentityFields): Partial<RunIdentity> {
  if (m.identity) return m.identity;
  return {
    config_hash: m.config_hash,
    system: m.system,
    source: m.retriever?.name,
    data_sha256: m.dataset?.sha256,
    tool_version: m.tool?.version,
  };
}

/**
 * Human lines, one per field that differs: `data file sha256: 1a2b3c4d5e (now 9f8e7d6c5b)`. With
 * both configs at hand, a configuration that differs is told by its keys, not its hashes:
 * `configuration: retrieval.k 15 (now 10); options.categories 1,2,3,4 (now 1,2,3,4,5)`.
 */
export function identityDifferences(prev: Partial<RunIdentity>, now: RunIdentity, configs?: { prev: unknown; now: unknown }): string[] {
  const short = (v: string | undefined) => (v === undefined ? 'unknown' : /^[0-9a-f]{20,}$/.test(v) ? v.slice(0, 10) : v);
  return (Object.keys(LABELS) as Array<keyof RunIdentity>)
    .filter((k) => prev[k] !== now[k])
    .map((k) => {
      const keys = k === 'config_hash' && configs && configs.prev !== undefined ? configDifferences(configs.prev, configs.now) : [];
      return keys.length ? `${LABELS[k]}: ${keys.join('; ')}` : `${LABELS[k]}: ${short(prev[k])} (now ${short(now[k])})`;
    });
}

/** How many differing config keys a message lists. */
const LISTED_KEYS = 8;

/** `path value (now value)` for each leaf that differs between two configs (absent = `unset`). */
export function configDifferences(prev: unknown, now: unknown): string[] {
  const a = leaves(prev);
  const b = leaves(now);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort().filter((k) => a.get(k) !== b.get(k));
  const shown = keys.slice(0, LISTED_KEYS).map((k) => `${k} ${a.get(k) ?? 'unset'} (now ${b.get(k) ?? 'unset'})`);
  return keys.length > LISTED_KEYS ? [...shown, `and ${keys.length - LISTED_KEYS} more`] : shown;
}

function leaves(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else if (value !== undefined) {
    out.set(path, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return out;
}
