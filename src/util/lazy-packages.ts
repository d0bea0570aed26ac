/**
 * CommonJS packages loaded on first use instead of at start-up: most commands, an offline
 * `rawrag run` among them, never open a SQLite file, draw a seeded sample or read a CSV, and every
 * package imported up front is read and compiled at each start (~30 ms for these three).
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type Seedrandom from 'seedrandom';

const require = createRequire(import.meta.url);

export type Database = BetterSqlite3.Database;
export type Statement = BetterSqlite3.Statement;

/** `new Database(path, options)` of better-sqlite3. */
export function openDatabase(path: string, options?: BetterSqlite3.Options): Database {
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  return new Database(path, options);
}

/** seedrandom's ARC4 generator for `seed`. */
export function seedrandom(seed: string): Seedrandom.PRNG {
  return (require('seedrandom') as typeof Seedrandom)(seed);
}

/** csv-parse's synchronous parser. */
export function csvParse(): (typeof import('csv-parse/sync'))['parse'] {
  return (require('csv-parse/sync') as typeof import('csv-parse/sync')).parse;
}
