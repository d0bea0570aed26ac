/** Small things a new user trips over in the flags: benchmark name casing, help text. */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import type { RunConfig } from '../../../src/config/schema.js';
import { configFromFlags } from '../../../src/cli/options.js';
import { runCommand } from '../../../src/cli/commands/run.js';
import { judgeCommand } from '../../../src/cli/commands/judge.js';
import { runIdFor } from '../../../src/pipeline/plan.js';

async function configOf(args: string[]): Promise<RunConfig> {
  let cfg: RunConfig | null = null;
  const cmd = runCommand().exitOverride();
  cmd.action((benchmark: string | undefined, _o: unknown, c: Command) => {
    cfg = configFromFlags(c, benchmark);
  });
  await cmd.parseAsync(args, { from: 'user' });
  return cfg!;
}

describe('flags', () => {
  it('`run LoCoMo` is `run locomo`: same benchmark, run id and config hash (no casing in the id)', async () => {
    const upper = await configOf(['LoCoMo', '--limit', '2']);
    const lower = await configOf(['locomo', '--limit', '2']);
    expect(upper.benchmark).toBe('locomo');
    expect(runIdFor(upper)).toBe(runIdFor(lower));
    expect(runIdFor(upper)).toMatch(/^locomo-/);
  });

  it('judge --help states the --system default once', () => {
    const help = judgeCommand().helpInformation();
    const system = help.slice(help.indexOf('--system'), help.indexOf('--setting'));
    expect(system.match(/default/g)).toHaveLength(1);
  });
});
