/** Small things a new user trips over in the flags: benchmark name casing, help text. */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import type { RunConfig } from '../../../src/config/schema.js';
import { configFromFlags } from '../../../src/cli/options.js';
import { runCommand } from '../../../src/cli/commands/run.js';
import { judgeCommand } from '../../../src/cli/commands/judge.js';
import { runIdFor } from '../../../src/pipeline/plan.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/cli.js';

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

  it('--limit N keeps its hash; --limit A-B is a range; a bad range is a usage error', async () => {
    const n = await configOf(['locomo', '--limit', '20']);
    expect(n.limit).toBe(20);
    expect((await configOf(['locomo', '--limit', '11-20'])).limit).toBe('11-20');
    await expect(configOf(['locomo', '--limit', '20-11'])).rejects.toThrow(/'20-11' is not a range A-B with 1 <= A <= B/);
    await expect(configOf(['locomo', '--limit', '0-3'])).rejects.toThrow(/not a range/);
  });

  it('--reader none is no reader (the run of no --reader), also over a config naming one; --judge none stays; --epochs 1 is the default', async () => {
    const dir = tempDir('rawrag-flags-');
    const file = join(dir, 'cfg.yaml');
    writeFileSync(file, 'reader:\n  model: gpt-4o-mini\njudge:\n  model: gpt-4o\n');
    const none = await configOf(['locomo', '--config', file, '--reader', 'none']);
    const plain = await configOf(['locomo']);
    expect(none.reader.model).toBeNull();
    expect(runIdFor(none)).toBe(runIdFor({ ...plain, judge: none.judge }));
    const judgeNone = await configOf(['locomo', '--config', file, '--judge', 'none']);
    expect(judgeNone.reader.model).toBe('gpt-4o-mini');
    expect(judgeNone.judge.model).toBe('none');
    expect(runIdFor(judgeNone)).not.toBe(runIdFor(await configOf(['locomo', '--config', file])));
    const one = await configOf(['locomo', '--epochs', '1']);
    expect('epochs' in one).toBe(false);
    expect(runIdFor(one)).toBe(runIdFor(plain));
    const three = await configOf(['locomo', '--epochs', '3']);
    expect(three.epochs).toBe(3);
    expect(runIdFor(three)).not.toBe(runIdFor(plain));
  });

  it('judge --help states the --system default once', () => {
    const help = judgeCommand().helpInformation();
    const system = help.slice(help.indexOf('--system'), help.indexOf('--setting'));
    expect(system.match(/default/g)).toHaveLength(1);
  });
});
