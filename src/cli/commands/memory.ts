/**
 * `rawrag memory show | purge`: read an agentic memory run's stores, and delete one owner's data
 * physically (event log, memory index, extraction log, and the extraction replies in the
 * response cache), verified by reading the database back.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import Database from 'better-sqlite3';
import { CACHE_FILE, resolveCacheDir } from '../../providers/cache.js';
import { MEMORY_DB_FILE, MemoryStore, type MemoryRow } from '../../memory/store.js';
import { InputError, UsageError } from '../../util/errors.js';

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

/** The run directory, positional as in every other command (`--run DIR` kept as its older spelling). */
export function runDirArg(dir: string | undefined, run: string | undefined): string {
  if (dir !== undefined && run !== undefined && resolve(dir) !== resolve(run)) throw new UsageError(`two run directories given: ${dir} and --run ${run}`);
  const chosen = dir ?? run;
  if (chosen === undefined) throw new UsageError('missing the run directory (rawrag memory show DIR)');
  return chosen;
}

export function memoryCommand(): Command {
  const cmd = new Command('memory').description("Read or purge an agentic memory run's stores (<run dir>/memory.sqlite)");
  cmd
    .command('show')
    .description('List memory items with their source events and version chains')
    .argument('[dir]', 'run directory of a --system agentic-memory run')
    .option('--run <dir>', 'the same as the positional run directory')
    .option('--owner <id>', 'only this owner (an episode id)')
    .option('--all', 'also list superseded items in full (default: active items, then the version chains)')
    .option('--json', 'print the items as JSON')
    .action((dir: string | undefined, opts: { run?: string; owner?: string; all?: boolean; json?: boolean }) => {
      const store = storeOf(runDirArg(dir, opts.run), true);
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
          process.stdout.write(JSON.stringify(out, null, 2) + '\n');
          return;
        }
        const lines: string[] = [`${store.path}`];
        for (const owner of owners) lines.push(...renderOwner(store, owner, Boolean(opts.all)));
        process.stdout.write(lines.join('\n') + '\n');
      } finally {
        store.close();
      }
    });
  cmd
    .command('purge')
    .description(
      "Delete an owner's data physically: event log, memory index, extraction log (+ VACUUM), and its extraction replies in the response cache",
    )
    .argument('[dir]', 'run directory of a --system agentic-memory run')
    .requiredOption('--owner <id>', 'the owner (episode id) to delete')
    .option('--run <dir>', 'the same as the positional run directory')
    .option('--cache-dir <dir>', 'response cache folder holding the extraction replies (default as for rawrag run)')
    .action((dir: string | undefined, opts: { owner: string; run?: string; cacheDir?: string }) => {
      const run = runDirArg(dir, opts.run);
      const store = storeOf(run, false);
      let removed: { events: number; memories: number; extractions: number };
      let keys: string[];
      try {
        checkOwner(store, opts.owner);
        keys = (
          store.db.prepare("SELECT request_key FROM extractions WHERE owner_id = ? AND request_key != ''").all(opts.owner) as Array<{
            request_key: string;
          }>
        ).map((r) => r.request_key);
        removed = store.purgeOwner(opts.owner);
      } finally {
        store.close();
      }
      // Verified by reading the file back through a fresh connection.
      const check = storeOf(run, true);
      const left = check.ownerCounts(opts.owner);
      check.close();
      if (left.events + left.memories + left.extractions > 0)
        throw new Error(`purge of '${opts.owner}' left rows behind: ${JSON.stringify(left)}`);
      const cacheRows = purgeCachedReplies(resolveCacheDir(opts.cacheDir), keys);
      process.stdout.write(
        `purged owner ${opts.owner} from ${check.path}: ${removed.events} events, ${removed.memories} memories, ${removed.extractions} extraction rows deleted; ` +
          `read back: 0 rows left; database vacuumed\n` +
          `response cache: ${cacheRows} extraction replies deleted\n` +
          `note: the run's items.jsonl still holds this owner's questions, answers and recalled text; delete or rewrite it if it must go too\n`,
      );
    });
  return cmd;
}

function purgeCachedReplies(cacheDir: string, keys: string[]): number {
  const file = join(cacheDir, CACHE_FILE);
  if (keys.length === 0 || !existsSync(file)) return 0;
  const db = new Database(file);
  try {
    db.pragma('busy_timeout = 5000');
    const del = db.prepare('DELETE FROM responses WHERE key = ?');
    const n = db.transaction(() => keys.reduce((s, k) => s + del.run(k).changes, 0))();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.exec('VACUUM');
    return n;
  } finally {
    db.close();
  }
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
