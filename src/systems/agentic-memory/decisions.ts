/**
 * The agentic memory system's write-decision log (src/core/write-decisions.ts is the format): for
 * every item the extractor returned, what the write path decided and did, in the `write_decisions`
 * table of the run's memory.sqlite, written in the batch's own transaction (so a killed run never
 * holds decisions for a batch it did not store, nor the reverse).
 *
 * How the validation layer's outcomes map onto the four operations:
 * - a new item: ADD;
 * - an item that supersedes an older version (same attribute, or flagged `updates`): UPDATE of the
 *   old item, old text -> new text (one per superseded item); an `updates` flag with no item to
 *   update: UPDATE naming no item (malformed), stored as an ADD;
 * - a duplicate merged into an existing item: NONE (that item, its text and the proposed one);
 *   flagged `updates` but restating the stored sentence: UPDATE of that item, applied NONE (no-op);
 * - an item below the confidence floor: NONE (low-confidence);
 * - with `memory.mutations: false` (add-only, `-S mutations=false`) an UPDATE is applied as an ADD: the
 *   new item is stored and the old one stays active;
 * - an item over the write cap: applied NONE (stored forgotten, reason write-cap);
 * - an unparsable extractor reply: one malformed NONE for the batch.
 */
import type Database from 'better-sqlite3';
import type { WriteDecision } from '../../core/write-decisions.js';

const TABLE = `CREATE TABLE IF NOT EXISTS write_decisions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_id TEXT NOT NULL,
  scope INTEGER NOT NULL,
  batch_key TEXT NOT NULL,
  decision TEXT NOT NULL
)`;

function ensure(db: Database.Database): void {
  db.exec(TABLE);
}

/** Collects a batch's decisions; `flush` writes them (call it inside the batch's transaction). */
export class DecisionRecorder {
  private readonly pending: WriteDecision[] = [];

  constructor(
    private readonly owner: string,
    private readonly scope: number,
    private readonly batchKey: string,
  ) {}

  add(d: Omit<WriteDecision, 'episode' | 'batch'>): void {
    this.pending.push({ episode: this.owner, batch: this.batchKey, ...d });
  }

  /**
   * The decisions for an item that is not a duplicate: UPDATE of each item it supersedes, an
   * UPDATE naming none when it is flagged `updates` with nothing to update, else ADD. Recorded by
   * `apply` once the write path knows what it did (`applied` defaults to the proposal, or ADD in add-only mode).
   */
  proposals(
    newId: string,
    item: { content: string; updates: boolean },
    replaced: ReadonlyArray<{ memory_id: string; content: string }>,
    mutations: boolean,
  ): { apply(applied?: 'NONE', reason?: string): void } {
    const text = item.content.trim();
    const list: Array<Omit<WriteDecision, 'episode' | 'batch'>> = replaced.length
      ? replaced.map((m) => ({ operation: 'UPDATE', memory_id: m.memory_id, old_text: m.content, new_text: text }))
      : item.updates
        ? [{ operation: 'UPDATE', memory_id: null, old_text: null, new_text: text, applied: 'ADD', reason: 'no-target' }]
        : [{ operation: 'ADD', memory_id: newId, old_text: null, new_text: text }];
    return {
      apply: (applied, reason) => {
        for (const d of list) {
          if (applied) this.add({ ...d, applied, reason });
          else if (d.operation === 'UPDATE' && d.memory_id !== null && !mutations) this.add({ ...d, applied: 'ADD', reason: 'add-only' });
          else this.add(d);
        }
      },
    };
  }

  flush(db: Database.Database): void {
    ensure(db);
    // A batch applied again (a retried batch) replaces its earlier decisions.
    // A batch applied again replaces its earlier decisions; the malformed replies before it stay on record.
    db.prepare(
      "DELETE FROM write_decisions WHERE owner_id = ? AND scope = ? AND batch_key = ? AND json_extract(decision, '$.status') IS NOT 'malformed'",
    ).run(this.owner, this.scope, this.batchKey);
    const ins = db.prepare('INSERT INTO write_decisions (owner_id, scope, batch_key, decision) VALUES (?, ?, ?, ?)');
    for (const d of this.pending) ins.run(this.owner, this.scope, this.batchKey, JSON.stringify(d));
    this.pending.length = 0;
  }
}

/**
 * The decisions of a store in write order. A store holds one history per (episode, horizon):
 * benchmarks with several horizons per episode (MEME) replay the shared prefix, so only the
 * longest horizon of each episode is read, once.
 */
export function readDecisions(db: Database.Database): WriteDecision[] {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'write_decisions'").get();
  if (!has) return [];
  const rows = db
    .prepare(
      `SELECT d.decision FROM write_decisions d
       JOIN (SELECT owner_id, MAX(scope) AS scope FROM write_decisions GROUP BY owner_id) m ON m.owner_id = d.owner_id AND m.scope = d.scope
       ORDER BY d.owner_id, d.seq`,
    )
    .all() as Array<{ decision: string }>;
  return rows.map((r, i) => ({ ...(JSON.parse(r.decision) as WriteDecision), seq: i }));
}

/** An extractor reply that did not parse is one malformed proposal for its batch (provider failures are not proposals). */
export function recordFailedBatch(db: Database.Database, owner: string, scope: number, batchKey: string, error: string): void {
  if (!/^extractor reply /.test(error)) return;
  ensure(db);
  const d: WriteDecision = {
    episode: owner,
    batch: batchKey,
    operation: 'NONE',
    memory_id: null,
    old_text: null,
    new_text: null,
    status: 'malformed',
    reason: error.slice(0, 300),
  };
  db.prepare('INSERT INTO write_decisions (owner_id, scope, batch_key, decision) VALUES (?, ?, ?, ?)').run(
    owner,
    scope,
    batchKey,
    JSON.stringify(d),
  );
}

/** `rawrag memory purge`: an owner's decisions go with the rest of its data. */
export function purgeDecisions(db: Database.Database, owner: string): number {
  ensure(db);
  return db.prepare('DELETE FROM write_decisions WHERE owner_id = ?').run(owner).changes;
}
