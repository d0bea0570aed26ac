/**
 * The agentic memory's complete persisted store as the store oracle reads it: every memory item of
 * the run's memory.sqlite, superseded and forgotten ones included (the paper's complete-store
 * oracle exports the final snapshot; this store never deletes a row, so nothing overwritten is lost).
 */
import { join, resolve } from 'node:path';
import type { StoreRecord } from '../../core/store-record.js';
import { MEMORY_DB_FILE, MemoryStore } from './store.js';

interface Row {
  memory_id: string;
  owner_id: string;
  scope: number;
  content: string;
  source_turns: string;
  created_at: string | null;
  status: string;
}

export function exportMemoryStore(runDir: string): StoreRecord[] {
  const store = new MemoryStore(join(resolve(runDir), MEMORY_DB_FILE), { create: false, readonly: true });
  try {
    const rows = store.db
      .prepare('SELECT memory_id, owner_id, scope, content, source_turns, created_at, status FROM memories ORDER BY owner_id, scope, seq')
      .all() as Row[];
    return rows.map((r) => ({
      episode: r.owner_id,
      text: r.content,
      source_turns: JSON.parse(r.source_turns) as string[],
      date: r.created_at,
      scope: r.scope,
      status: r.status,
      id: r.memory_id,
    }));
  } finally {
    store.close();
  }
}
