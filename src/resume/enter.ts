/** Going on with a recorded command: its options put back, its working folder entered. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { applyInvocation } from '../run-files/invocation.js';
import { recordedInvocation, type ResumeTarget } from './target.js';

/** Path options typed now: made absolute before the recorded working folder is entered. */
const PATH_OPTIONS = ['out', 'cacheDir', 'models'];

/**
 * Applies a target's recorded options to `cmd` (the ones typed now win) and enters the working
 * folder the command first ran in when it still exists (relative paths in the recorded config and
 * options are that folder's). Returns a line saying what is resumed.
 */
export function enterResume(cmd: Command, t: ResumeTarget): string {
  for (const key of PATH_OPTIONS) {
    const v = cmd.opts()[key];
    if (typeof v === 'string' && cmd.getOptionValueSource(key) === 'cli') cmd.setOptionValueWithSource(key, resolve(v), 'cli');
  }
  const inv = recordedInvocation(t);
  const applied = applyInvocation(cmd, inv);
  if (inv && inv.cwd !== process.cwd() && existsSync(inv.cwd)) process.chdir(inv.cwd);
  const what = t.kind === 'run' ? `run ${t.manifest.run_id}` : `grid of ${t.set.cells.length} cells`;
  return `resuming ${what} from what ${t.dir} recorded${applied.length ? ` (options: ${applied.map(flagName).join(' ')})` : ''}`;
}

function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}
