/**
 * Model names, checked before anything is sent: a name the registry lists is known (and priced);
 * another is checked against its provider's known models (a near miss is a typo: "did you mean
 * gpt-4o-mini?") and, when the endpoint lists its models, against that list.
 */
import type { ModelEntry, ModelRegistry } from '../providers/models.js';
import type { Role } from '../providers/usage.js';
import { didYouMean } from './suggest.js';

export interface NameCheck {
  /** An error: the name is a near miss of a known one, or the endpoint does not serve it. */
  problem: string | null;
  /** What the user should know (the model's price is not known). */
  note: string | null;
}

/** The names a model may be a typo of: its provider's registry models (every chat model for a bare name). */
function knownNames(reg: ModelRegistry, entry: ModelEntry): string[] {
  const chat = Object.values(reg.models).filter((m) => m.kind === entry.kind);
  const same = chat.filter((m) => m.provider === entry.provider);
  return (same.length > 0 ? same : chat).map((m) => m.name);
}

/** The id sent on the wire (the part after a provider prefix). */
export function wireName(entry: ModelEntry): string {
  return entry.apiModel ?? entry.name;
}

/**
 * The check of one model. `listed`: the ids its endpoint lists (null: it lists none). A model the
 * endpoint lists is served there whatever the registry says; otherwise a near miss of a known name
 * is an error, and so is a name a listing endpoint does not serve.
 */
export function checkName(reg: ModelRegistry, role: Role, entry: ModelEntry, listed: string[] | null): NameCheck {
  if (!entry.unlisted) return { problem: null, note: null };
  const wire = wireName(entry);
  const what = `${role} model '${entry.name}'`;
  const unpriced = {
    problem: null,
    note: `${what} is not in rawrag's model table: its cost is unknown (add it with --models FILE to price it)`,
  };
  if (listed?.includes(wire)) return unpriced;
  const provider = reg.providers[entry.provider];
  if (!provider?.anyModel) {
    const near = didYouMean(wire, knownNames(reg, entry));
    if (near) return { problem: `${what} is not a model rawrag knows: did you mean ${near}?`, note: null };
  }
  if (listed) {
    const near = didYouMean(wire, listed);
    const shown = listed.slice(0, 8).join(', ') + (listed.length > 8 ? ', ...' : '');
    return {
      problem: `${what} is not served at its endpoint${near ? `: did you mean ${near}?` : ` (it serves ${shown})`}`,
      note: null,
    };
  }
  return unpriced;
}
