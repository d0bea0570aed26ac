/**
 * Reading and purging an agentic memory run's stores (`rawrag memory show | purge | audit`, through
 * the descriptor's `store` capability): what the SQL is lives here, beside the stores.
 */
import { join, resolve } from 'node:path';
import { purgeOwner } from './purge.js';
import { MEMORY_DB_FILE, MemoryStore, type MemoryRow } from './store.js';
import { InputError } from '../../util/errors.js';
import type { WriteDecision } from '../../core/write-decisions.js';
import { readDecisions } from './decisions.js';

function storeOf(run: string, readonly: boolean): MemoryStore {
  return new MemoryStore(join(resolve(run), MEMORY_DB_FILE), { create: false, readonly });
}

function checkOwner(store: MemoryStore, owner: string): void {
  const owners = store.owners();
  if (!owners.includes(owner)) {
    const list = owners.length > 8 ? `${owners.slice(0, 8).join(', ')}, ...` : owners.join(', ');
    throw new InputError(`owner '${owner}' has nothing in this store (owners: ${list || 'none'})`, { file: store.path, place: '--owner' });
  }
}

/** `rawrag memory show`: the items of a run's store, with their source events and version chains (text or JSON). */
export function showStore(runDir: string, opts: { owner?: string; all?: boolean; json?: boolean }): string {
  const store = storeOf(runDir, true);
  try {
    if (opts.owner) checkOwner(store, opts.owner);
    const owners = opts.owner ? [opts.owner] : store.owners();
    if (opts.json) {
      const out = owners.map((o) => ({
        owner: o,
        memories: store
          .memories(o)
          .map(({ embedding, ...m }) => ({ ...m, dims: embedding.length, source_event: store.event(m.source_event_id) })),
      }));
      return JSON.stringify(out, null, 2);
    }
    const lines: string[] = [`${store.path}`];
    for (const owner of owners) lines.push(...renderOwner(store, owner, Boolean(opts.all)));
    return lines.join('\n');
  } finally {
    store.close();
  }
}

/** `rawrag memory purge`: purge.ts (lock, store, response cache, verified byte by byte). */
export async function purgeStoreOwner(runDir: string, owner: string, opts: { cacheDir?: string }): Promise<string> {
  return purgeOwner(resolve(runDir), owner, opts);
}

function renderOwner(store: MemoryStore, owner: string, all: boolean): string[] {
  const items = store.memories(owner);
  const byId = new Map(items.map((m) => [m.memory_id, m]));
  const scopes = [...new Set(items.map((m) => m.scope))];
  const out: string[] = [];
  for (const scope of scopes) {
    const inScope = items.filter((m) => m.scope === scope);
    const active = inScope.filter((m) => m.status === 'active');
    out.push(
      '',
      `${owner} (history of ${scope} turns): ${inScope.length} items, ${active.length} active, ${inScope.length - active.length} superseded or forgotten`,
    );
    for (const m of all ? inScope : active) out.push(...renderItem(store, m));
    // Version chains: each superseded item followed down to the item now active.
    const heads = inScope.filter((m) => m.status === 'superseded' && !inScope.some((o) => o.superseded_by === m.memory_id));
    if (heads.length) out.push('  version chains:');
    for (const head of heads) {
      const chain: MemoryRow[] = [head];
      let cur: MemoryRow | undefined = head;
      while (cur?.superseded_by && chain.length < 100) {
        cur = byId.get(cur.superseded_by);
        if (cur) chain.push(cur);
      }
      out.push('    ' + chain.map((m) => `"${m.content}" [${m.memory_id}, ${m.status}, ${m.created_at ?? 'undated'}]`).join('\n      -> '));
    }
  }
  return out;
}

function renderItem(store: MemoryStore, m: MemoryRow): string[] {
  const ev = store.event(m.source_event_id);
  const status =
    m.status === 'superseded'
      ? `superseded by ${m.superseded_by}`
      : m.status === 'forgotten' && m.forgotten_reason
        ? `forgotten (${m.forgotten_reason}${m.forgotten_at ? ` at ${m.forgotten_at}` : ''}: ${m.forgotten_note ?? ''})`
        : m.status;
  return [
    `  ${m.memory_id}  ${status}  [${m.created_at ?? 'undated'}] ${m.content}`,
    `      ${m.memory_type}; entities: ${m.entities.join(', ') || '-'}${m.attribute ? `; attribute ${m.attribute}` : ''}; importance ${m.importance}; confidence ${m.confidence}` +
      `${m.merged_count ? `; merged ${m.merged_count}` : ''}${m.key_attribute ? '; key attribute (never decays)' : ''}`,
    `      source ${m.source_event_id} (turns ${m.source_turns.join(', ')}): ${ev ? `${ev.participants.join(', ')}: "${clip(ev.content)}"` : '(event missing)'}`,
  ];
}

function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/** `rawrag memory audit` on an agentic memory run: its store's decisions. */
export function storeDecisions(runDir: string): WriteDecision[] {
  const store = storeOf(runDir, true);
  try {
    return readDecisions(store.db);
  } finally {
    store.close();
  }
}
