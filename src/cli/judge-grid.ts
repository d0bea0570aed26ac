/**
 * `rawrag judge --rejudge SET`: a grid's set folder re-judged run by run, each exactly as
 * `rawrag judge --rejudge RUN` would (the same options), each into its own folder: `--out DIR`
 * gives `DIR/<cell>`; without it, each run's default folder. Stops at the first run that fails.
 */
import type { Command } from 'commander';
import { join } from 'node:path';
import { setRuns } from '../grid/set-runs.js';
import { UsageError } from '../util/errors.js';

/** True when `--rejudge` names a set folder, which was then judged cell by cell here. */
export async function judgeGrid(command: Command, build: () => Command): Promise<boolean> {
  const opts = command.opts();
  const runs = typeof opts.rejudge === 'string' ? setRuns(opts.rejudge) : null;
  if (!runs) return false;
  if (runs.length === 0) throw new UsageError(`--rejudge ${opts.rejudge}: the set folder holds no run yet`);
  const argv = process.argv.slice(process.argv.indexOf('judge') + 1);
  for (const r of runs) {
    const args = withValue(withValue(argv, '--rejudge', r.dir), '--out', opts.out ? join(opts.out as string, r.name) : null);
    process.stderr.write(`== ${r.name}\n`);
    await build().exitOverride().parseAsync(args, { from: 'user' });
  }
  return true;
}

/** `argv` with `flag`'s value replaced (null: the flag dropped). */
function withValue(argv: string[], flag: string, value: string | null): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === flag) {
      i++;
      continue;
    }
    if (a.startsWith(`${flag}=`)) continue;
    out.push(a);
  }
  return value === null ? out : [...out, flag, value];
}
