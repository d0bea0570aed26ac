/** The run directories of a grid's set folder (set.json), for commands that take a run or a grid alike. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSet, SET_FILE } from './set-manifest.js';

/** The cells of `dir` that have a run directory, in grid order; null when `dir` is not a set folder. */
export function setRuns(dir: string): Array<{ name: string; dir: string }> | null {
  if (!existsSync(join(dir, SET_FILE))) return null;
  const set = readSet(dir)!;
  return set.cells.map((c) => ({ name: c.name, dir: join(dir, c.name) })).filter((c) => existsSync(join(c.dir, 'manifest.json')));
}
