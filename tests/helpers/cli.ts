/** Runs the real CLI (bin/rawrag.js -> dist/) in a child process, as a user would. */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'rawrag.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function rawrag(args: string[], env: Record<string, string | undefined> = {}): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Async variant, for tests that run a loopback server in the same process. */
export function rawragAsync(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((res) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
  });
}

export function tempDir(prefix = 'rawrag-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
