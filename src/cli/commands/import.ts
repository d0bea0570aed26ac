/** `rawrag import FORMAT FILE --benchmark B`: other harnesses' result files as stats-ready run directories. */
import { printOut } from '../../util/stdout.js';
import { Command, InvalidArgumentError } from 'commander';
import { mergeLayers, resolveConfig, type PartialConfig } from '../../config/load.js';
import { listBenchmarks } from '../../benchmarks/registry.js';
import { IMPORT_FORMATS, type ImportFormat } from '../../import/formats.js';
import { DEFAULT_SYSTEM_OF, importResults } from '../../import/write.js';
import { hashOf } from '../../util/hash.js';
import { fromRoot } from '../../util/paths.js';
import { RunConfigSchema } from '../../systems/registry.js';
import { sha256Hex } from '../../util/fsx.js';
import { readFileSync } from 'node:fs';
import { addBenchmarkOptionFlag } from '../options.js';
import { givenBenchmarkOptions } from '../benchmark-options.js';

function format(value: string): ImportFormat {
  if (!(IMPORT_FORMATS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`'${value}' is not one of ${IMPORT_FORMATS.join(', ')}.`);
  return value as ImportFormat;
}

export function importCommand(): Command {
  const cmd = new Command('import')
    .description(
      "Turn another harness's result file (mem0, EverMemOS, MemOS, JSON lines) into a stats-ready run directory with rawrag's question ids",
    )
    .argument('<format>', `${IMPORT_FORMATS.join(' | ')}`, format)
    .argument('<file>', "the result file (EverMemOS eval_results.json, MemOS *_judged.json, mem0's evals.py output, or JSON lines)")
    .requiredOption(
      '--benchmark <name>',
      `benchmark the file answered: ${listBenchmarks()
        .map((b) => b.name)
        .join(' | ')}`,
    )
    .option('--system <name>', 'the system in the manifest and in `rawrag stats` (default by format: Mem0, EverMemOS, MemOS, external)')
    .option(
      '--setting <name>',
      "the benchmark-setting `rawrag stats` groups by (default <data>/<the file's answering model>, so it pairs with RAW-RAG read by that model, else <data>/<system>; the data half from the options: locomo/gpt-4o-mini, locomo/gold=audited/gpt-4o-mini)",
    )
    .option('--keep-skipped', "keep the records the format's own scorer skips (mem0-eval: category 5, which Mem0's evals.py drops)")
    .option('--data <path>', "the benchmark's data file the questions are matched against (default: the bundled copy)");
  addBenchmarkOptionFlag(cmd);
  cmd
    .option('--out <dir>', 'run directory (default results/import-<benchmark>-<system>-<hash>)')
    .action(async (fmt: ImportFormat, file: string, _o: unknown, command: Command) => {
      const opts = command.opts();
      const given = (key: string) => command.getOptionValueSource(key) === 'cli';
      const flags: PartialConfig = { benchmark: String(opts.benchmark).toLowerCase() };
      if (given('data')) flags.data = opts.data;
      const benchOpts = givenBenchmarkOptions(
        (opts.benchmarkOption as string[] | undefined) ?? [],
        listBenchmarks().find((b) => b.name === flags.benchmark),
        listBenchmarks(),
      );
      if (Object.keys(benchOpts).length) flags.options = benchOpts;
      // No judge is resolved: rawrag's judge scores nothing here (the file's votes are its own judge's), so the manifest names none.
      const cfg = resolveConfig(mergeLayers(flags), 'command line', RunConfigSchema);
      const system = (opts.system as string | undefined) ?? DEFAULT_SYSTEM_OF[fmt];
      let sha = '';
      try {
        sha = sha256Hex(readFileSync(file, 'utf8'));
      } catch {
        sha = 'unreadable'; // importResults names the file and the reason
      }
      const out =
        (opts.out as string | undefined) ??
        fromRoot('results', `import-${cfg.benchmark}-${system}-${hashOf({ cfg, sha }, 10)}`.replace(/[^A-Za-z0-9._-]/g, '_'));
      const r = await importResults({
        format: fmt,
        file,
        cfg,
        system,
        out,
        keepSkipped: opts.keepSkipped === true,
        ...(opts.setting ? { setting: opts.setting as string } : {}),
      });
      printOut(r.text + '\n');
    });
  return cmd;
}
