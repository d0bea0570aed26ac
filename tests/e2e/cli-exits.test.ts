/**
 * `rawrag ... --help` and usage errors at every depth of the command tree return their exit code
 * from `run` (src/cli/main.ts) instead of ending the process: commander exits by itself unless told
 * to throw, and a nested command (`systems check`) once was not told; in process (these tests,
 * the slow stage's in-process CLI tests) that ended the test worker with exit 0.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { rawragInProcess } from '../helpers/in-process.js';

/** Every command path below the program: ['run'], ['systems', 'check'], ... */
function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

/** A command in process, then the two turns of the event loop after which it removes its signal guard (src/cli/main.ts). */
async function command(args: string[]) {
  const r = await rawragInProcess(args);
  for (let i = 0; i < 2; i++) await new Promise((res) => setImmediate(res));
  return r;
}

describe('exits at every depth come back from run()', async () => {
  const all = paths(await buildProgram());
  const nested = all.filter((p) => p.length > 1);

  it('the tree has nested commands (systems check among them)', () => {
    expect(nested.map((p) => p.join(' '))).toContain('systems check');
  });

  it('--help of every command returns 0 with its usage, the process still running', async () => {
    const listeners = process.listenerCount('SIGINT');
    let exited: unknown = null;
    const onExit = (code: unknown) => (exited = code);
    process.on('exit', onExit);
    try {
      for (const p of all) {
        const r = await command([...p, '--help']);
        expect(r.code, p.join(' ')).toBe(0);
        expect(r.stdout, p.join(' ')).toMatch(new RegExp(`Usage: rawrag ${p.join(' ')}`));
      }
    } finally {
      process.off('exit', onExit);
    }
    expect(exited).toBeNull();
    // Each command's signal guard went with it.
    expect(process.listenerCount('SIGINT')).toBe(listeners);
  });

  it('a usage error on a nested command (an unknown option, or a required one missing) comes back as a non-zero code', async () => {
    for (const p of nested) {
      const r = await command([...p, '--no-such-option']);
      expect(r.code, p.join(' ')).not.toBe(0);
      expect(r.stderr, p.join(' ')).toMatch(/error: (unknown option '--no-such-option'|required option|missing required argument)/);
    }
  });
});
