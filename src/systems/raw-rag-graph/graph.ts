/**
 * The entity graph of raw-rag-graph, kept in the run's ingest store (ingest.sqlite): which turns
 * mention which entity, and the relations between entities, per (episode, visibility horizon).
 * Written once from the stored replies, in one transaction; read by the expansion.
 */
import type { StepStore } from '../../ingest-llm/step-store.js';

export interface Mention {
  entity: string;
  turn: number;
}

export interface Relation {
  a: string;
  b: string;
  relation: string;
}

export function entityKey(name: string): string {
  return name.replace(/\s+/g, ' ').trim().toLowerCase();
}

function ensureTables(store: StepStore): void {
  store.db
    .exec(`CREATE TABLE IF NOT EXISTS graph_mentions (owner_id TEXT NOT NULL, scope INTEGER NOT NULL, entity TEXT NOT NULL, turn INTEGER NOT NULL,
      PRIMARY KEY (owner_id, scope, entity, turn));
    CREATE TABLE IF NOT EXISTS graph_relations (owner_id TEXT NOT NULL, scope INTEGER NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, relation TEXT NOT NULL,
      PRIMARY KEY (owner_id, scope, a, b, relation));`);
}

/** Replaces the graph of (owner, scope) with these mentions and relations. */
export function writeGraph(store: StepStore, owner: string, scope: number, mentions: Mention[], relations: Relation[]): void {
  ensureTables(store);
  const db = store.db;
  const m = db.prepare('INSERT OR IGNORE INTO graph_mentions VALUES (?, ?, ?, ?)');
  const r = db.prepare('INSERT OR IGNORE INTO graph_relations VALUES (?, ?, ?, ?, ?)');
  db.transaction(() => {
    db.prepare('DELETE FROM graph_mentions WHERE owner_id = ? AND scope = ?').run(owner, scope);
    db.prepare('DELETE FROM graph_relations WHERE owner_id = ? AND scope = ?').run(owner, scope);
    for (const x of mentions) m.run(owner, scope, x.entity, x.turn);
    for (const x of relations) r.run(owner, scope, x.a, x.b, x.relation);
  })();
}

export interface EntityGraph {
  /** Entities mentioned by each turn. */
  entitiesOf: Map<number, string[]>;
  /** Turns mentioning each entity, in history order. */
  turnsOf: Map<string, number[]>;
  /** Neighbours of each entity with the number of relations linking them. */
  neighbours: Map<string, Map<string, number>>;
}

export function readGraph(store: StepStore, owner: string, scope: number): EntityGraph {
  ensureTables(store);
  const g: EntityGraph = { entitiesOf: new Map(), turnsOf: new Map(), neighbours: new Map() };
  const mentions = store.db
    .prepare('SELECT entity, turn FROM graph_mentions WHERE owner_id = ? AND scope = ? ORDER BY turn, entity')
    .all(owner, scope) as Mention[];
  for (const { entity, turn } of mentions) {
    g.entitiesOf.set(turn, [...(g.entitiesOf.get(turn) ?? []), entity]);
    g.turnsOf.set(entity, [...(g.turnsOf.get(entity) ?? []), turn]);
  }
  const rels = store.db
    .prepare('SELECT a, b FROM graph_relations WHERE owner_id = ? AND scope = ? ORDER BY a, b')
    .all(owner, scope) as Array<{
    a: string;
    b: string;
  }>;
  const link = (x: string, y: string) => {
    const n = g.neighbours.get(x) ?? new Map<string, number>();
    n.set(y, (n.get(y) ?? 0) + 1);
    g.neighbours.set(x, n);
  };
  for (const { a, b } of rels)
    if (a !== b) {
      link(a, b);
      link(b, a);
    }
  return g;
}

export function graphSize(store: StepStore): { entities: number; relations: number; mentions: number } {
  ensureTables(store);
  const one = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
  return {
    entities: one('SELECT COUNT(*) AS n FROM (SELECT DISTINCT owner_id, scope, entity FROM graph_mentions)'),
    relations: one('SELECT COUNT(*) AS n FROM graph_relations'),
    mentions: one('SELECT COUNT(*) AS n FROM graph_mentions'),
  };
}
