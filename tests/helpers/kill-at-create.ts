/**
 * The batch tests' kill during a create: `rawrag ARGS` (the built CLI, a real process) is killed -9
 * once the peer has received its batch create (`created()` grew by one), while the create's reply
 * is held back, so the run never learns the batch's id.
 */
import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, ROOT } from './cli.js';

/** Kills the run at its first batch create; its stderr until then. */
export async function killAtCreate(args: string[], env: Record<string, string | undefined>, created: () => number): Promise<string> {
  const before = created();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } as NodeJS.ProcessEnv });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (c, sig) => r(sig === 'SIGKILL' ? -9 : c)));
  for (let i = 0; i < 400 && created() === before; i++) await new Promise((r) => setTimeout(r, 50));
  expect(created(), stderr).toBe(before + 1);
  child.kill('SIGKILL');
  expect(await exited).toBe(-9);
  return stderr;
}
