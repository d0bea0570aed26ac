import { fileURLToPath } from 'node:url';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { existsSync } from 'node:fs';

/** The project root (the folder holding package.json), whether running from src/ or dist/. */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(resolve(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('rawrag: cannot locate the project root (package.json)');
}

export function fromRoot(...parts: string[]): string {
  return resolve(projectRoot(), ...parts);
}

/** A path as a user reads it: relative to the working directory when inside it, else as recorded. */
export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
