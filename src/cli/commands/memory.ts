/**
 * `rawrag memory show | purge`: a run's memory store, through its system's `store` capability
 * (src/core/system.ts): what it holds, and deleting one owner's data physically.
 */
import { readRunManifest } from '../../run-files/record.js';
import { printOut } from '../../util/stdout.js';
import { Command, InvalidArgumentError } from 'commander';
import { RunConfigSchema, storeOfRun, type System } from '../../systems/registry.js';
import type { RunConfig } from '../../config/schema.js';
import { mergeLayers, type PartialConfig } from '../../config/load.js';
import { UsageError } from '../../util/errors.js';
import { addSystemOptionFlag } from '../options.js';
import { systemOptionLayer } from '../system-options.js';
import { auditLayers, renderLayers } from '../../memory-audit/layers.js';
import { decisionSource } from '../../memory-audit/sources.js';
import { positiveInt, integer } from '../../util/flags.js';
import { onInterruptSay } from '../../util/interrupt.js';

/**
 * The run's config with `-S` overrides (a service that moved to another URL since the run), or
 * undefined when none were given: the store then reads the manifest's own.
 */
function configWithOptions(runDir: string, system: System, pairs: string[] | undefined): RunConfig | undefined {
  if (!pairs?.length) return undefined;
  const manifest = readRunManifest(runDir).manifest as { config?: PartialConfig };
  const merged = mergeLayers(manifest?.config ?? {}, systemOptionLayer(system, pairs).layer);
  const parsed = RunConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`-S: ${issue.path.slice(1).join('.') || issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

function layerArg(value: string): 'proposals' | 'events' {
  if (value !== 'proposals' && value !== 'events') throw new InvalidArgumentError(`'${value}' is not one of proposals, events.`);
  return value;
}

export function memoryCommand(): Command {
  const cmd = new Command('memory').description('Read, purge or audit the memory store of a run whose system keeps one');
  cmd
    .command('show')
    .description('List memory items with their source events and version chains')
    .argument('[dir]', 'run directory')
    .option('--run <dir>', 'run directory (same as the argument)')
    .option('--owner <id>', 'only this owner (an episode id)')
    .option('--all', 'also list superseded items in full (default: active items, then the version chains)')
    .option('--json', 'print the items as JSON')
    .action((dir: string | undefined, opts: { run?: string; owner?: string; all?: boolean; json?: boolean }) => {
      const { runDir, store } = storeOfRun(dir ?? opts.run);
      printOut(store.show(runDir, opts) + '\n');
    });
  const purge = cmd
    .command('purge')
    .description("Delete an owner's data physically from the run's memory store (and its cached ingest replies), verified by reading back")
    .argument('[dir]', 'run directory')
    .requiredOption('--owner <id>', 'the owner (episode id) to delete')
    .option('--run <dir>', 'run directory (same as the argument)')
    .option('--cache-dir <dir>', 'response cache folder holding the ingest replies (default as for rawrag run)');
  addSystemOptionFlag(purge).action(
    async (dir: string | undefined, opts: { owner: string; run?: string; cacheDir?: string; systemOption?: string[] }) => {
      const { runDir, store, system } = storeOfRun(dir ?? opts.run);
      const config = configWithOptions(runDir, system, opts.systemOption);
      const unsay = onInterruptSay(() => `what was deleted so far is recorded in ${runDir}; the same command deletes the rest`);
      try {
        printOut((await store.purge(runDir, opts.owner, { cacheDir: opts.cacheDir, config })) + '\n');
      } finally {
        unsay();
      }
    },
  );
  cmd
    .command('audit')
    .description(
      "The write audit of runs or decision logs in three layers, each over its own denominator: proposals (what the write LLM proposed, NONE included: the paper's audit), returned events (what a memory service said it did), effective changes (what changed in the store); an add-only service named as such",
    )
    .argument('<runs...>', 'run directories or decision-log files (JSONL: episode, operation, memory_id, old_text, new_text)')
    .option('--benchmark <name>', "the benchmark an imported log belongs to (prints the paper's figures for it)")
    .option(
      '--proposals <file>',
      "a proposal log (the same JSONL format) to audit beside a run's returned events, e.g. the proposals mem0ai < 2.0 logs",
    )
    .option(
      '--layer <layer>',
      'what a decision-log file given directly records: proposals (default, unless its lines say layer "event") or events',
      layerArg,
    )
    .option('--no-episodes', 'leave out the per-episode table')
    .option('--resamples <n>', 'bootstrap resamples over episodes (default 2000)', positiveInt)
    .option('--seed <n>', 'bootstrap seed (default 0)', integer)
    .option('--json', 'print the audits as JSON')
    .action(
      (
        runs: string[],
        opts: {
          benchmark?: string;
          proposals?: string;
          layer?: 'proposals' | 'events';
          episodes?: boolean;
          resamples?: number;
          seed?: number;
          json?: boolean;
        },
      ) => {
        const audits = runs.map((r) => auditLayers(decisionSource(r, opts), { resamples: opts.resamples, seed: opts.seed }));
        printOut(
          opts.json
            ? JSON.stringify({ audits }, null, 2) + '\n'
            : audits.map((a) => renderLayers(a, { episodes: opts.episodes })).join('\n\n') + '\n',
        );
      },
    );
  return cmd;
}
