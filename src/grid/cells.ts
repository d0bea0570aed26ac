/**
 * A grid's cells: one run config per combination of the listed config files, benchmarks, readers,
 * systems and retrievers (the caller derives each, so every other flag applies to every cell), each
 * named by what it runs and given a run directory under the set folder. The same command always
 * gives the same cells, names and order, so it resumes the whole set, and `--shard I/N` splits them
 * the same way on every machine.
 */
import { basename, extname, join, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import { hashOf } from '../util/hash.js';
import { fromRoot } from '../util/paths.js';

export interface Cell {
  /** The cell's name, also its run directory's name under the set folder. */
  name: string;
  cfg: RunConfig;
  /** The config file it read (null: none). */
  configFile: string | null;
  dir: string;
  /** 1-based position in the grid (what --shard counts). */
  index: number;
}

/** A shard of a grid (`--shard I/N`): this machine runs cells I, I+N, I+2N, ... */
export interface Shard {
  index: number;
  count: number;
}

/** `a,b ,c` -> ['a', 'b', 'c'] (empty entries dropped). */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The axes a grid may list on the command line. */
export type Axis = 'benchmark' | 'system' | 'retriever' | 'reader';
const AXES: Axis[] = ['benchmark', 'system', 'retriever', 'reader'];

/**
 * A cell's name, file-name safe: `<benchmark>-<system>-<retriever>-<reader>`; a cell read from a
 * config file is named by the file (`<config>`), followed by the values of the axes the command
 * line lists (`<config>-<reader>` for `--config configs/paper/ --reader a,b`).
 */
export function cellName(cfg: RunConfig, configFile: string | null, listed: ReadonlySet<Axis> = new Set()): string {
  const value: Record<Axis, string> = {
    benchmark: cfg.benchmark,
    system: cfg.system,
    retriever: cfg.retrieval.retriever,
    reader: cfg.reader.model ?? 'retrieval',
  };
  const parts = configFile
    ? [basename(configFile, extname(configFile)), ...AXES.filter((a) => listed.has(a)).map((a) => value[a])]
    : AXES.map((a) => value[a]);
  return parts.join('-').replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * The cells in the order given, named, one per distinct config (a repeat is dropped and reported);
 * names that would collide get the config's hash. `out`: the set folder (default results/set-<hash>).
 */
export function gridCells(
  configs: Array<{ cfg: RunConfig; configFile: string | null }>,
  out: string | null,
  listed: ReadonlySet<Axis> = new Set(),
): { cells: Cell[]; setDir: string; repeats: string[] } {
  const seen = new Map<string, string>();
  const repeats: string[] = [];
  const unique: Array<{ cfg: RunConfig; configFile: string | null; name: string }> = [];
  for (const c of configs) {
    const hash = hashOf(c.cfg);
    const name = cellName(c.cfg, c.configFile, listed);
    const first = seen.get(hash);
    if (first !== undefined) {
      repeats.push(`${name} is the same run as ${first}: run once`);
      continue;
    }
    seen.set(hash, name);
    unique.push({ ...c, name });
  }
  const counts = new Map<string, number>();
  for (const u of unique) counts.set(u.name, (counts.get(u.name) ?? 0) + 1);
  const named = unique.map((u) => ({ ...u, name: counts.get(u.name)! > 1 ? `${u.name}-${hashOf(u.cfg, 8)}` : u.name }));
  const setDir = resolve(out ?? fromRoot('results', `set-${hashOf(named.map((u) => hashOf(u.cfg)).sort(), 10)}`));
  const cells = named.map((u, i) => ({ name: u.name, cfg: u.cfg, configFile: u.configFile, dir: join(setDir, u.name), index: i + 1 }));
  return { cells, setDir, repeats };
}

/** The cells a shard runs. */
export function shardOf(cells: Cell[], shard: Shard | null): Cell[] {
  return shard ? cells.filter((c) => (c.index - 1) % shard.count === shard.index - 1) : cells;
}
