/** `rawrag batch status|collect DIR`: the batch jobs of a run directory (see docs/models.md, Batch). */
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { resolve } from 'node:path';
import { BatchJobs, type CollectReport } from '../../providers/batch/jobs.js';
import { BatchStore, TERMINAL, type BatchUsage } from '../../providers/batch/state.js';
import { ProviderSession } from '../../providers/session.js';
import { defaultTransport } from '../../providers/transport.js';
import { InputError } from '../../util/errors.js';
import { markdownTable } from '../../util/table.js';
import type { BatchedRun } from '../../pipeline/batched.js';
import { acquireRunLock } from '../../run-files/lock.js';
import { batchApi } from '../../providers/batch/loop.js';
import { addCost } from '../../providers/usage.js';
import { nonNegativeInteger, positiveNumber } from '../options.js';

interface BatchFlags {
  cacheDir?: string;
  timeout?: number;
  maxRetries?: number;
  offline?: boolean;
  wait?: boolean;
  /** `batch status`: a busy directory is shown offline rather than refused. */
  statusOnly?: boolean;
}

/** The run's batch jobs, with a provider session writing to the cache the run uses. */
function open(dir: string, flags: BatchFlags): { jobs: BatchJobs; session: ProviderSession; offline: boolean; release(): void } {
  const store = new BatchStore(resolve(dir));
  if (!store.exists())
    throw new InputError('no batch jobs here (batches.json is written by `rawrag run ... --batch`)', { file: store.file });
  const state = store.load();
  const cacheDir = flags.cacheDir ?? state.cache_dir;
  if (!cacheDir) throw new InputError('the run was made with --no-cache: batch replies have no cache to go to', { file: store.file });
  const session = new ProviderSession({
    cacheDir,
    ...(flags.timeout !== undefined ? { timeoutMs: Math.round(flags.timeout * 1000) } : {}),
    ...(flags.maxRetries !== undefined ? { retry: { ...defaultTransport().retry, maxRetries: flags.maxRetries } } : {}),
  });
  // Refreshing and collecting write batches.json: one writer at a time. A status asked while a
  // command is busy with the run (waiting for its batches, say) shows the recorded state instead.
  let lock: ReturnType<typeof acquireRunLock> | null = null;
  let offline = Boolean(flags.offline);
  if (!offline) {
    try {
      lock = acquireRunLock(store.dir);
    } catch (e) {
      if (!(e instanceof InputError) || !flags.statusOnly) throw e;
      process.stderr.write(`note: ${e.message.split(';')[0]}: showing the recorded state\n`);
      offline = true;
    }
  }
  const jobs = new BatchJobs({ dir: store.dir, runId: state.run_id, session, log: (l) => process.stderr.write(l + '\n') });
  jobs.reload();
  return {
    jobs,
    session,
    offline,
    release: () => {
      session.close();
      lock?.release();
    },
  };
}

function table(jobs: BatchJobs): string {
  const rows = jobs.parts.map((p) => [
    p.part,
    p.batch_id ?? '-',
    p.model,
    Object.entries(p.roles)
      .map(([r, n]) => `${n} ${r}`)
      .join(', '),
    p.batch_id === null ? 'not submitted' : p.status,
    p.counts && p.counts.total > 0 ? `${p.counts.completed}/${p.counts.total}` : '-',
    p.counts?.failed ?? 0,
    p.collected ? `${p.collected.stored} stored` : TERMINAL.has(p.status) ? 'not yet' : '-',
  ]);
  return markdownTable(['part', 'batch', 'model', 'requests', 'status', 'completed', 'failed', 'collected'], rows, [
    'r',
    'l',
    'l',
    'l',
    'l',
    'r',
    'r',
    'l',
  ]);
}

function cost(label: string, usage: Record<string, BatchUsage>): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(4)}`);
  const roles = Object.entries(usage);
  if (roles.length === 0) return `${label}: nothing collected`;
  const all = roles.reduce<number | null>((s, [, u]) => addCost(s, u.cost_usd), 0);
  return `${label} at batch prices: ${usd(all)} (${roles.map(([r, u]) => `${r} ${u.replies} replies ${usd(u.cost_usd)}`).join('; ')})`;
}

function summary(dir: string, jobs: BatchJobs, r: CollectReport): string {
  const lines = [
    `collected ${r.stored} replies into the response cache; ${r.failed} requests failed; ${r.resubmitted} unfinished requests resubmitted`,
  ];
  for (const l of r.lost) lines.push(`LOST: ${l}`);
  const failures = jobs.failures().size;
  if (failures > 0)
    lines.push(
      `${failures} requests failed inside batches: the next \`rawrag run\` makes them item errors; \`rawrag run ... --retry-errors\` sends them again`,
    );
  const live = jobs.live().length;
  lines.push(
    live > 0
      ? `${live} batches still running: \`rawrag batch collect ${dir}\` again later (or with --wait)`
      : `all batches collected: \`rawrag run\` with the same flags (and --out ${dir}) finishes the run from the cache`,
  );
  return lines.join('\n');
}

export function batchCommand(): Command {
  const cmd = new Command('batch').description(
    'Batch jobs of a run made with `rawrag run --batch`: their state, and collecting their replies into the cache',
  );
  const common = (c: Command) =>
    c
      .exitOverride()
      .argument('<dir>', 'run directory')
      .option('--cache-dir <dir>', 'response cache to fill (default: the one the run used, recorded in batches.json)')
      .option('--timeout <seconds>', 'per-request timeout (default 120)', positiveNumber)
      .option('--max-retries <n>', 'retries after a failed request (default 8)', nonNegativeInteger);
  cmd.addCommand(
    common(new Command('status'))
      .description('ask the provider for the state of every batch of the run and print it')
      .option('--offline', 'print the recorded state without asking the provider')
      .action(async (dir: string, flags: BatchFlags) => {
        const { jobs, release, offline } = open(dir, { ...flags, statusOnly: true });
        try {
          if (!offline) await batchApi(() => jobs.refresh());
          const failures = jobs.failures().size;
          printOut(`${table(jobs)}\n${failures > 0 ? `${failures} requests recorded as failed\n` : ''}`);
        } finally {
          release();
        }
      }),
  );
  cmd.addCommand(
    common(new Command('collect'))
      .description('download the results of finished batches into the response cache (expired batches: resubmit the unfinished requests)')
      .option('--wait', 'poll (with backoff) until every batch has finished, collecting as they do')
      .action(async (dir: string, flags: BatchFlags) => {
        const { jobs, release } = open(dir, flags);
        try {
          await batchApi(() => jobs.refresh());
          const r = await batchApi(() => (flags.wait ? jobs.wait() : jobs.collect()));
          printOut(
            `${table(jobs)}\n\n${summary(dir, jobs, r)}\n${cost('cost of this collection', r.usage)}\n${cost('cost of all batch replies of the run', jobs.usage())}\n`,
          );
        } finally {
          release();
        }
      }),
  );
  return cmd;
}

/** The lines `rawrag run --batch` prints after the run's report (or instead of it, when batches are still running). */
export function renderBatched(b: BatchedRun, resume: string): string {
  const usd = (x: number | null) => (x === null ? 'unknown' : `$${x.toFixed(4)}`);
  const lines = ['', 'Batch jobs:', table(b.jobs)];
  const u = b.jobs.usage();
  const roles = Object.entries(u).map(([r, x]) => `${r} ${x.replies}`);
  lines.push(
    `replies from batches: ${roles.join(', ') || 'none'}; cost at batch prices ${usd(b.cost.batch_usd)} (interactive prices: ${usd(b.cost.interactive_usd)})`,
  );
  for (const l of b.loop.collected.lost) lines.push(`LOST: ${l}`);
  const failures = b.jobs.failures().size;
  if (failures > 0) lines.push(`${failures} requests failed inside batches (item errors); ${resume} --retry-errors sends them again`);
  if (!b.outcome) {
    const live = b.jobs.live().length;
    lines.push(
      live > 0
        ? `${live} batch jobs running (the provider has up to 24 h). Nothing is lost if this machine stops.`
        : 'batch results are ready: run the command again to collect them and go on.',
    );
    lines.push(`resume: ${resume}   (or: rawrag batch status ${b.dir})`);
  }
  return lines.join('\n');
}
