/**
 * A command's output files, landing together or not at all. Each file is first written whole to a
 * temporary file in its own folder (checked, fsynced: `stage`); when every file is staged, one
 * synchronous step renames them all into place (`commit`). JavaScript runs one thing at a time, so
 * a SIGINT/SIGTERM handler (src/util/interrupt.ts) runs before the commit or after it, never between
 * two renames: an interrupted command leaves the old set or the new one. A rename that fails
 * mid-commit (a folder where a file should go) puts the files already renamed back from hard-link
 * backups of the old ones. Every failure path removes the temporary files.
 */
import { existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { withPath, writeFileDurable } from './checked-write.js';

interface Staged {
  path: string;
  tmp: string;
  /** The file existed before this set (an old version stays until the commit). */
  existed: boolean;
}

/** Sets being staged now (the interrupt handler discards them), and the files committed by this command. */
const active = new Set<OutputSet>();
let committed: string[] = [];

export class OutputSet {
  private readonly staged = new Map<string, Staged>();
  /** Files of an earlier run of the command that this set replaces by nothing: removed at the commit. */
  private readonly retired = new Set<string>();
  private state: 'open' | 'committed' | 'discarded' = 'open';

  constructor() {
    active.add(this);
  }

  /** Writes `data` for `path` to a temporary file beside it; the file at `path` is untouched until `commit`. */
  stage(path: string, data: string | Uint8Array): void {
    if (this.state !== 'open') throw new Error(`output set already ${this.state}`);
    const final = resolve(path);
    const tmp = join(dirname(final), `.${basename(final)}.${process.pid}.tmp`);
    const existed = this.staged.get(final)?.existed ?? existsSync(final);
    try {
      writeFileDurable(tmp, data);
    } catch (e) {
      rmSync(tmp, { force: true });
      this.staged.delete(final);
      throw withPath(e, final, tmp);
    }
    this.staged.set(final, { path: final, tmp, existed });
  }

  /**
   * An older output of this command that the new set has no counterpart for (a judges.csv with no
   * judge comparison now, the page of a benchmark no longer in the report): it goes at the commit,
   * in the same synchronous step as the renames, so the folder never mixes two sets.
   */
  retire(path: string): void {
    if (this.state !== 'open') throw new Error(`output set already ${this.state}`);
    this.retired.add(resolve(path));
  }

  /** The temporary file holding what is staged for `path` (a renderer that reads a staged file), or null. */
  stagedFile(path: string): string | null {
    return this.staged.get(resolve(path))?.tmp ?? null;
  }

  get paths(): string[] {
    return [...this.staged.keys()];
  }

  /** What is staged: each path, and whether a file was there before. */
  entries(): Array<{ path: string; existed: boolean }> {
    return [...this.staged.values()].map((s) => ({ path: s.path, existed: s.existed }));
  }

  /** Renames every staged file into place, in one synchronous step; on failure the old files are put back. */
  commit(): string[] {
    if (this.state !== 'open') throw new Error(`output set already ${this.state}`);
    const done: Array<{ path: string; backup: string | null }> = [];
    let current = '';
    try {
      for (const s of this.staged.values()) {
        current = s.path;
        const backup = s.existed ? backupOf(s.path) : null;
        try {
          renameSync(s.tmp, s.path);
        } catch (e) {
          if (backup) rmSync(backup, { force: true });
          throw e;
        }
        done.push({ path: s.path, backup });
      }
    } catch (e) {
      for (const d of done.reverse()) {
        try {
          if (d.backup) renameSync(d.backup, d.path);
          else rmSync(d.path, { force: true });
        } catch {
          // best effort: the error below names the file that failed
        }
      }
      this.discard();
      throw withPath(e, current, this.staged.get(current)?.tmp);
    }
    for (const d of done) if (d.backup) rmSync(d.backup, { force: true });
    for (const path of this.retired) if (!this.staged.has(path)) rmSync(path, { force: true });
    this.state = 'committed';
    active.delete(this);
    const paths = done.map((d) => d.path);
    committed.push(...paths);
    return paths;
  }

  /** Removes the temporary files; the files at their paths stay as they were. */
  discard(): void {
    if (this.state === 'committed') return;
    for (const s of this.staged.values()) rmSync(s.tmp, { force: true });
    this.state = 'discarded';
    active.delete(this);
  }
}

/** A hard link to the old file, so a failed commit can put it back; null where links are not supported. */
function backupOf(path: string): string | null {
  const backup = join(dirname(path), `.${basename(path)}.${process.pid}.old`);
  try {
    rmSync(backup, { force: true });
    linkSync(path, backup);
    return backup;
  } catch {
    return null;
  }
}

/**
 * Stages a command's outputs with `fill`, then commits them together; on any failure (a full disk,
 * a bad input found late) nothing is committed and no temporary file is left.
 */
export async function writeOutputs<T>(fill: (set: OutputSet) => T | Promise<T>): Promise<{ value: T; paths: string[] }> {
  const set = new OutputSet();
  try {
    const value = await fill(set);
    return { value, paths: set.commit() };
  } finally {
    set.discard();
  }
}

/** A new command starts: the files it commits are counted from here (what an interrupt says was kept). */
export function resetCommittedOutputs(): void {
  committed = [];
}

/**
 * On an interrupt: discards every set being staged and says what that leaves — the old files (the
 * signal came before the commit), the new ones (after it), or null when nothing was being written.
 */
export function settleOutputsOnInterrupt(): string | null {
  const staged = [...active].flatMap((s) => s.entries());
  for (const s of [...active]) s.discard();
  if (staged.length > 0) {
    const old = staged.filter((s) => s.existed).map((s) => s.path);
    return old.length > 0
      ? `before its outputs were written: the previous ${describeFiles(old)} kept as ${old.length === 1 ? 'it was' : 'they were'}, nothing new written`
      : `before its outputs were written: nothing written (${describeFiles(staged.map((s) => s.path))} not created)`;
  }
  if (committed.length > 0) return `after its outputs were written: the new ${describeFiles(committed)} kept`;
  return null;
}

/** `a, b and c`, or `9 files in DIR (a, b, c, ...)`. */
export function describeFiles(paths: string[]): string {
  const unique = [...new Set(paths)];
  if (unique.length <= 3) return unique.join(', ');
  const dirs = new Set(unique.map((p) => dirname(p)));
  const names = unique.slice(0, 3).map((p) => basename(p));
  return `${unique.length} files${dirs.size === 1 ? ` in ${[...dirs][0]}` : ''} (${names.join(', ')}, ...)`;
}
