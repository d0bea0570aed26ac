/**
 * `set.json`, the set folder's manifest: which cells the grid has and where, so the folder says what
 * it holds and `rawrag run` with the same command resumes it. Each cell's status is its own run
 * directory's manifest, never copied here: the file is the same on every machine of a sharded grid,
 * so set folders merge by copying.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../util/errors.js';
import { readJsonFile, writeJsonAtomic } from '../util/fsx.js';
import { hashOf } from '../util/hash.js';
import type { Cell } from './cells.js';
import type { RunConfig } from '../config/schema.js';
import type { Invocation } from '../run-files/invocation.js';

export const SET_FILE = 'set.json';

export interface SetCell {
  name: string;
  benchmark: string;
  system: string;
  retriever: string;
  reader: string | null;
  config_file: string | null;
  config_hash: string;
  /** The cell's whole config: `rawrag resume` runs a cell that never started from it (absent in older set folders). */
  config?: RunConfig;
}

export interface SetManifest {
  format: 'rawrag.set/1';
  /** Cells in grid order (a later command's cells are added; a name's latest config wins). */
  cells: SetCell[];
  /** The grid command's options besides the configs, without secrets (`rawrag resume` goes on with them). */
  invocation?: Invocation;
  created_at: string;
  updated_at: string;
}

function setCell(c: Cell): SetCell {
  return {
    name: c.name,
    benchmark: c.cfg.benchmark,
    system: c.cfg.system,
    retriever: c.cfg.retrieval.retriever,
    reader: c.cfg.reader.model,
    config_file: c.configFile,
    config_hash: hashOf(c.cfg),
    config: c.cfg,
  };
}

/** Refuses a folder that is neither empty nor a set folder; reads set.json when there is one. */
export function readSet(dir: string): SetManifest | null {
  const path = join(dir, SET_FILE);
  if (existsSync(path)) {
    const m = readJsonFile(path) as SetManifest | null;
    if (!m || m.format !== 'rawrag.set/1' || !Array.isArray(m.cells))
      throw new InputError('not a rawrag set manifest (format rawrag.set/1)', { file: path });
    return m;
  }
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new InputError('output folder exists, is not empty and holds no set.json (rawrag set manifest); choose another --out', {
      file: dir,
    });
  return null;
}

/** Writes set.json with this grid's cells (and those an earlier command of the folder had), before any cell runs. */
export function writeSet(dir: string, cells: Cell[], previous: SetManifest | null, invocation?: Invocation): SetManifest {
  const now = new Date().toISOString();
  const mine = cells.map(setCell);
  const names = new Set(mine.map((c) => c.name));
  const m: SetManifest = {
    format: 'rawrag.set/1',
    cells: [...(previous?.cells ?? []).filter((c) => !names.has(c.name)), ...mine],
    ...((invocation ?? previous?.invocation) ? { invocation: invocation ?? previous!.invocation } : {}),
    created_at: previous?.created_at ?? now,
    updated_at: now,
  };
  mkdirSync(dir, { recursive: true });
  writeJsonAtomic(join(dir, SET_FILE), m);
  return m;
}
