/**
 * Whether a write log can show mutations at all. A memory service that returns only ADD events (it
 * never changes or deletes a stored memory, e.g. one that drops duplicates silently) makes every
 * mutation share 0 % by construction: an audit or a summary that printed that figure without
 * saying so would read as a measurement. The service's own word (its probe: version, add-only)
 * comes first; without it, the events tell: only ADD returned in N adds.
 */
import type { Operation } from './write-decisions.js';

export interface AddOnlyEvidence {
  system: string;
  /** What the service said about itself before its first add (null: nothing). */
  probe: { version: string | null; add_only: boolean | null; notes?: string[] } | null;
  /** Adds whose events the service reported. */
  adds: number;
  events: Partial<Record<Operation, number>>;
}

export interface AddOnlyVerdict {
  /** The service said it is add-only (probe), rather than it being read from the events. */
  declared: boolean;
  statement: string;
}

const mutating = (e: Partial<Record<Operation, number>>) => (e.UPDATE ?? 0) + (e.DELETE ?? 0) + (e.NONE ?? 0);

/** The add-only statement, or null when the service mutated (or said it can) or returned nothing to judge by. */
export function addOnlyVerdict(e: AddOnlyEvidence): AddOnlyVerdict | null {
  const version = e.probe?.version ? ` ${e.probe.version}` : '';
  if (e.probe?.add_only === true)
    return {
      declared: true,
      statement: `${e.system}${version} is add-only (the service says so): it returns only ADD events and never changes or deletes a stored memory, so its UPDATE+DELETE share is 0 % by construction, not a measurement`,
    };
  if (e.probe?.add_only === false || e.adds === 0 || (e.events.ADD ?? 0) === 0 || mutating(e.events) > 0) return null;
  return {
    declared: false,
    statement: `${e.system}${version} returned only ADD events in ${e.adds} adds: it behaves as an add-only service (its version could not be read), so its UPDATE+DELETE share is 0 % by construction, not a measurement`,
  };
}
