/**
 * Result vs path (the paper's MEME diagnostic, tracking and cascade after-questions), from the turn
 * ids a system showed its reader — so it applies to every system, not only ranked windows:
 * - result: a shown turn states the answer value (Tr: the latest history value; Cas: the new
 *   cascaded value);
 * - path: the result, and also what leads to it — Tr: every earlier history value (the temporal
 *   order); Cas: the upstream trigger (a turn stating the root entity's new value, the
 *   Change+Delete event) and, for 2-hop chains, each intermediate entity's new value along
 *   `dependency_edges_used`. The dependency rule itself is stated by the turn giving the
 *   conditional value (MEME's gold facts), which the result already requires.
 * rawrag's reading of the paper's one-sentence definition (docs/diagnostics.md).
 */
import type { Question } from '../../core/schema.js';
import type { RawEpisodeT } from './format.js';
import { locate, type FactIndex, type RequiredFact } from './evidence.js';

export interface PathFacts {
  result: RequiredFact[];
  path: RequiredFact[];
}

interface Edge {
  source: string;
  target: string;
}

const valueOf = (v: unknown): string | null => (typeof v === 'string' ? v : Array.isArray(v) && typeof v.at(-1) === 'string' ? (v.at(-1) as string) : null);

/** The facts of an after-question's result and path; null for tasks the diagnostic does not cover. */
export function pathFacts(raw: RawEpisodeT, task: string, required: RequiredFact[], facts: FactIndex): PathFacts | null {
  if (task === 'Tr') return required.length ? { result: required.slice(-1), path: required } : null;
  if (task !== 'Cas' || required.length === 0) return null;
  const target = required[0]!.entity;
  const edges = (raw.dependency_edges_used as Edge[]).filter((e) => typeof e?.source === 'string' && typeof e?.target === 'string');
  const extra: Array<{ entity: string; value: string }> = [];
  // Walk the chain upstream from the asked entity to the root: each intermediate's new value, then the trigger.
  const seen = new Set<string>([target]);
  let node = target;
  for (;;) {
    const up = edges.find((e) => e.target === node);
    if (!up || seen.has(up.source)) break;
    seen.add(up.source);
    const after = up.source === raw.root ? valueOf(raw.root_change?.after) : valueOf((raw.entities[up.source] as { after?: unknown } | undefined)?.after);
    if (after !== null) extra.push({ entity: up.source, value: after });
    node = up.source;
  }
  if (!seen.has(raw.root) && raw.root_change) {
    const after = valueOf(raw.root_change.after);
    if (after !== null) extra.push({ entity: raw.root, value: after });
  }
  return { result: required, path: [...required, ...locate(facts, extra)] };
}

/** Benchmark.shownDiagnostics: result and path coverage from the turns shown (null: not a Tr/Cas after-question, or undecidable). */
export function resultPath(q: Question, shownTurnIds: readonly string[]): Record<string, number | null> {
  const p = q.meta?.path as PathFacts | undefined;
  if (!p) return {};
  const shown = new Set(shownTurnIds);
  const all = (fs: RequiredFact[]) => (fs.some((f) => f.turns.length === 0) ? null : fs.every((f) => f.turns.some((t) => shown.has(t))) ? 1 : 0);
  return { path_result: all(p.result), path_coverage: all(p.path) };
}

/** Benchmark.relevantTurns: the gold turns and, for Tr and Cas after-questions, the path's turns. */
export function relevantTurns(q: Question): string[] {
  const p = q.meta?.path as PathFacts | undefined;
  return [...new Set([...q.evidence, ...(p ? p.path.flatMap((f) => f.turns) : [])])];
}
