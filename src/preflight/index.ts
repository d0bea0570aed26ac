/**
 * The pre-flight: everything a run (or every cell of a grid) needs, checked before the first paid
 * request, so that a typo, a missing key, a dead endpoint or a missing data file costs nothing.
 *
 * 0. systems: the checks plugged in below (SERVICE_CHECKS): a system's own needs (a memory service's key,
 *    its URL answering), first, so that a system that cannot run sends nothing else;
 * 1. data: each cell's data file loads and its questions select (what `--dry-run` reads);
 * 2. models: every model each cell calls (reader, judge, retriever, a system's own LLM) is named
 *    as its provider knows it (models.ts: "did you mean gpt-4o-mini?");
 * 3. keys: each has its key, or an endpoint of the user's; a remote retriever without them is an
 *    error unless `--fallback local`;
 * 4. endpoints: each distinct endpoint is reached once (reach.ts; `--no-reach` skips it);
 *
 * All problems are collected and reported together (an InputError, exit 2); nothing is written.
 */
import type { RunConfig } from '../config/schema.js';
import { estimateRun } from '../pipeline/estimate.js';
import type { ModelEntry } from '../providers/models.js';
import { ProviderSession, type Endpoint } from '../providers/session.js';
import type { TransportOptions } from '../providers/transport.js';
import type { Role } from '../providers/usage.js';
import { InputError } from '../util/errors.js';
import { systemOf } from '../systems/registry.js';
import type { SystemPreflight } from '../core/system.js';
import { checkName } from './models.js';
import { reachEndpoint, type ReachedEndpoints, type ReachResult } from './reach.js';

/** One cell to check: its config and the name problems are reported under (null: a single run). */
export interface PreflightCell {
  cfg: RunConfig;
  label: string | null;
}

/**
 * A check of the memory services a cell's system talks to (reachability, version): the problems
 * it finds, one line each. Plug-ins are registered here by the module that owns them; the
 * pre-flight runs each once per cell, after the model checks.
 */
export type ServiceCheck = (cfg: RunConfig, transport: Partial<TransportOptions>) => Promise<SystemPreflight>;
export const SERVICE_CHECKS: ServiceCheck[] = [
  // The system's own needs (a service's key, its URL answering), as its descriptor states them.
  async (cfg) => (await systemOf(cfg).preflight?.(cfg, process.env)) ?? { problems: [], reached: [] },
];

export interface PreflightOptions {
  /** Reach each endpoint once (default true; `--no-reach`). */
  reach?: boolean;
  /** Endpoints this command has already reached (not reached again); those reached here are added. */
  reached?: ReachedEndpoints;
}

export interface PreflightResult {
  /** What the user should know but that does not stop the run (unknown prices, a fallback taken). */
  notes: string[];
  /** Memory-service URLs that answered the systems' probes: the run is handed them (TransportOptions.reachedServices). */
  reachedServices: string[];
}

interface Use {
  role: Role;
  entry: ModelEntry;
  cells: string[];
}

export async function preflight(
  cells: PreflightCell[],
  transport: Partial<TransportOptions>,
  opts: PreflightOptions = {},
): Promise<PreflightResult> {
  const problems: string[] = [];
  const uses = new Map<string, Use>();
  const tag = (c: PreflightCell, line: string) => (c.label ? `${c.label}: ${line}` : line);
  for (const c of cells) {
    try {
      const e = await estimateRun(c.cfg, transport);
      for (const m of e.models) {
        const key = `${m.role}\u0000${m.entry.name}`;
        const u = uses.get(key) ?? { role: m.role, entry: m.entry, cells: [] };
        u.cells.push(c.label ?? '');
        uses.set(key, u);
      }
    } catch (e) {
      // A single run's bad input is reported as it always was (its file and place); a grid's names the cell.
      if (!(e instanceof InputError) || c.label === null) throw e;
      problems.push(tag(c, e.message));
    }
  }
  const session = new ProviderSession({ ...transport, noCache: true });
  try {
    const notes: string[] = [];
    // The systems' own needs first: a system that cannot run at all sends nothing, not even a reachability probe.
    const reachedServices = new Set<string>();
    for (const c of cells)
      for (const check of SERVICE_CHECKS) {
        const r = await check(c.cfg, transport);
        for (const p of r.problems) problems.push(tag(c, p));
        for (const u of r.reached) reachedServices.add(u);
      }
    if (problems.length > 0) throw preflightError(problems);
    await checkUses([...uses.values()], session, opts, problems, notes);
    return { notes: [...new Set(notes)], reachedServices: [...reachedServices] };
  } finally {
    session.close();
  }
}

/**
 * The pre-flight of named models alone, for a command that runs no system and reads no history
 * (`rawrag judge`: its judge model): names, keys and endpoints, as `preflight` checks them.
 */
export async function preflightModels(
  models: ReadonlyArray<{ role: Role; name: string }>,
  transport: Partial<TransportOptions>,
  opts: PreflightOptions = {},
): Promise<PreflightResult> {
  const session = new ProviderSession({ ...transport, noCache: true });
  try {
    const problems: string[] = [];
    const notes: string[] = [];
    const uses = models.map((m) => ({ role: m.role, entry: session.model(m.name, m.role), cells: [''] }));
    await checkUses(uses, session, opts, problems, notes);
    return { notes: [...new Set(notes)], reachedServices: [] };
  } finally {
    session.close();
  }
}

/** Keys, then each endpoint reached once, then each name against the registry and its endpoint's list; throws with every problem. */
async function checkUses(
  uses: Use[],
  session: ProviderSession,
  opts: PreflightOptions,
  problems: string[],
  notes: string[],
): Promise<void> {
  const reachable = checkKeys(uses, session, problems, notes);
  const lists = opts.reach === false ? new Map<string, ReachResult>() : await reachAll(reachable, session, problems, opts.reached);
  for (const u of uses) {
    const a = reachable.find((r) => r.use === u);
    const listed = a ? (lists.get(endpointKey(u.entry, a.endpoint))?.models ?? null) : null;
    const check = checkName(session.registry, u.role, u.entry, listed);
    if (check.problem) problems.push(check.problem);
    if (check.note) notes.push(check.note);
  }
  if (problems.length > 0) throw preflightError(problems);
}

/** Keys and endpoints: a model without them is a problem (a retriever's only without `--fallback local`). */
function checkKeys(uses: Use[], session: ProviderSession, problems: string[], notes: string[]): Array<{ use: Use; endpoint: Endpoint }> {
  const out: Array<{ use: Use; endpoint: Endpoint }> = [];
  for (const u of uses) {
    const a = session.availability(u.entry, u.role);
    if (a.ok) {
      out.push({ use: u, endpoint: a.endpoint });
      continue;
    }
    const retrieval = u.role === 'embed' || u.role === 'rerank';
    if (retrieval && session.transport.fallback === 'local') notes.push(`${a.reason}: the local retriever runs instead (--fallback local)`);
    else problems.push(retrieval ? `${a.reason} (or add --fallback local to run the local retriever instead)` : a.reason);
  }
  return out;
}

function endpointKey(entry: ModelEntry, ep: Endpoint): string {
  return `${entry.protocol}\u0000${ep.baseUrl}\u0000${ep.apiKey}`;
}

/** Each distinct endpoint (protocol, base URL, key) reached once, all at once; those in `before` (this command's earlier pre-flights) not again. */
async function reachAll(
  reachable: Array<{ use: Use; endpoint: Endpoint }>,
  session: ProviderSession,
  problems: string[],
  before: ReachedEndpoints = new Map(),
): Promise<Map<string, ReachResult>> {
  const byKey = new Map<string, { use: Use; endpoint: Endpoint }>();
  const known = new Map<string, ReachResult>();
  for (const r of reachable) {
    const key = endpointKey(r.use.entry, r.endpoint);
    const earlier = before.get(key);
    if (earlier && !earlier.problem) known.set(key, earlier);
    else if (!byKey.has(key)) byKey.set(key, r);
  }
  const timeout = Math.min(session.transport.timeoutMs, 15_000);
  const results = await Promise.all(
    [...byKey.entries()].map(
      async ([key, r]) => [key, await reachEndpoint(r.use.entry.protocol, r.endpoint, r.use.entry.keyEnv, timeout)] as const,
    ),
  );
  for (const [key, res] of results) {
    before.set(key, res);
    if (!res.problem) continue;
    const r = byKey.get(key)!;
    problems.push(session.secrets.scrub(`${r.use.role} model '${r.use.entry.name}': ${res.problem}`));
  }
  return new Map([...known, ...results]);
}

function preflightError(problems: string[]): InputError {
  const unique = [...new Set(problems)];
  return new InputError(
    `pre-flight: ${unique.length === 1 ? 'a problem' : `${unique.length} problems`} before anything was sent:\n  - ${unique.join('\n  - ')}`,
  );
}
