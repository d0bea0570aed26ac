/**
 * Where the opponents' own libraries live: one virtual environment per system under
 * RAWRAG_SYSTEMS_DIR (default `<rawrag's cache>/systems`), `<dir>/<system>/venv/` beside
 * `<dir>/<system>/installed.json` (what `rawrag systems install` put there: library, version,
 * source, interpreter, date, a digest of `pip freeze`). Kept between runs, so a multi-GB install
 * happens once; a run that starts a system for you reads it from here.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveCacheDir } from '../../providers/cache.js';
import { readJsonFile } from '../../util/fsx.js';

export interface InstalledRecord {
  system: string;
  library: { name: string; version: string };
  /** `package index` or the checkout's path and commit. */
  source: { kind: 'index'; packages: string[] } | { kind: 'checkout'; dir: string; commit: string; repo: string; packages: string[] };
  python: { path: string; version: string };
  date: string;
  /** sha256 of `pip freeze` right after the install (what exactly is in the environment). */
  freeze_sha256: string;
  /** Lines of `pip freeze` naming the library (its exact installed version). */
  freeze_library: string[];
  notes: string[];
}

/** RAWRAG_SYSTEMS_DIR, else `systems/` under rawrag's cache (--cache-dir, RAWRAG_CACHE_DIR, XDG, ~/.cache/rawrag). */
export function systemsDir(env: NodeJS.ProcessEnv = process.env, cacheDir: string | null = null): string {
  if (env.RAWRAG_SYSTEMS_DIR) return resolve(env.RAWRAG_SYSTEMS_DIR);
  return join(resolveCacheDir(cacheDir, env), 'systems');
}

export interface SystemPaths {
  root: string;
  venv: string;
  python: string;
  pip: string;
  record: string;
}

export function systemPaths(system: string, dir: string): SystemPaths {
  const root = join(dir, system);
  const venv = join(root, 'venv');
  return {
    root,
    venv,
    python: join(venv, 'bin', 'python'),
    pip: join(venv, 'bin', 'pip'),
    record: join(root, 'installed.json'),
  };
}

/** The install record of `system`, or null when it is not installed (or its environment is gone). */
export function installedRecord(system: string, dir: string): InstalledRecord | null {
  const p = systemPaths(system, dir);
  if (!existsSync(p.record) || !existsSync(p.python)) return null;
  return readJsonFile(p.record) as InstalledRecord;
}
