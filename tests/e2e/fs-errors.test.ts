/**
 * Filesystem trouble is the user's situation (issue 20, item 7): one line naming the path and the
 * cause, exit 2, no stack trace, no temp files left. Disk-full and read-only cases mount a small
 * tmpfs and run only where that is allowed (root in a container); the rest run everywhere.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';
import { writeFileAtomic } from '../../src/util/fsx.js';

const work = tempDir();
const env = { RAWRAG_CACHE_DIR: cacheWithWordVectors(join(work, 'cache')) };
const mounts: string[] = [];

function tmpfs(options: string): string | null {
  const dir = join(work, `mnt-${mounts.length}`);
  mkdirSync(dir);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
  if (r.status !== 0) return null;
  mounts.push(dir);
  return dir;
}
afterAll(() => {
  for (const m of mounts) execFileSync('umount', [m]);
});

function expectOneLine(r: { code: number; stderr: string }, path: string, cause: RegExp): void {
  expect(r.code).toBe(2);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('rawrag: error:'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toContain(path);
  expect(errors[0]).toMatch(cause);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
}

describe('--out that cannot be written', () => {
  it('names a file: ENOTDIR, exit 2', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    expectOneLine(
      await rawragInProcess(['run', 'locomo', '--limit', '2', '--out', file, '--no-progress'], env),
      file,
      /\(ENOTDIR|\(EEXIST/,
    );
    expectOneLine(
      await rawragInProcess(['run', 'locomo', '--limit', '2', '--out', join(file, 'sub'), '--no-progress'], env),
      join(file, 'sub'),
      /not a folder \(ENOTDIR/,
    );
  });

  it('read-only: EACCES / EROFS, exit 2', async () => {
    let dir: string | null;
    if (process.getuid?.() === 0) dir = tmpfs('ro,size=64k');
    else {
      dir = join(work, 'readonly');
      mkdirSync(dir);
      chmodSync(dir, 0o555);
    }
    if (!dir) return; // neither a non-root user nor allowed to mount: nothing to test here
    expectOneLine(
      await rawragInProcess(['run', 'locomo', '--limit', '2', '--out', join(dir, 'run'), '--no-progress'], env),
      join(dir, 'run'),
      /(permission denied|read-only file system|cannot create this folder) \((EACCES|EROFS|EPERM|ENOENT)/,
    );
  });

  it('disk full mid-run: ENOSPC names the run folder, no temp files left', async () => {
    const dir = tmpfs('size=48k');
    if (!dir) return; // mounting needs privileges this machine does not give
    const out = join(dir, 'run');
    expectOneLine(
      await rawragInProcess(['run', 'locomo', '--limit', '60', '--out', out, '--no-progress'], env),
      out,
      /no space left on device \(ENOSPC/,
    );
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('writeFileAtomic', () => {
  it('removes its temp file when the final rename fails', () => {
    const dir = tempDir();
    const target = join(dir, 'manifest.json');
    mkdirSync(join(target, 'occupied'), { recursive: true }); // a non-empty folder where the file should go
    expect(() => writeFileAtomic(target, '{}')).toThrow(/EISDIR|ENOTEMPTY|EEXIST|EPERM/);
    expect(readdirSync(dir)).toEqual(['manifest.json']);
  });
});
