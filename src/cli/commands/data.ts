/** `rawrag data list|pull`: the benchmarks' official data files, fetched and verified. */
import { printOut } from '../../util/stdout.js';
import { onInterruptSay } from '../../util/interrupt.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import type { Benchmark } from '../../core/benchmark.js';
import { getBenchmark, listBenchmarks } from '../../benchmarks/registry.js';
import { describeBenchmarkOption } from '../benchmark-options.js';
import { pullFile, type PullResult } from '../../benchmarks/download.js';
import { InputError, UsageError } from '../../util/errors.js';
import { hasUrlCredentials } from '../../util/url-credentials.js';
import { projectRoot } from '../../util/paths.js';
import { markdownTable } from '../../util/table.js';
import { positiveInt } from '../options.js';

/** The variant pulled when none is named: the benchmark's `--variant` default, else its first. */
function defaultVariant(b: Benchmark): string {
  const fromOption = b.options.find((o) => o.key === 'variant')?.defaultValue;
  return fromOption && b.downloads?.[fromOption] ? fromOption : Object.keys(b.downloads ?? {})[0]!;
}

function downloadsOf(b: Benchmark, root: string = projectRoot()): Record<string, NonNullable<Benchmark['downloads']>[string]> {
  if (!b.downloads || Object.keys(b.downloads).length === 0) {
    // Say what is true of this benchmark: its data is bundled (the default file is there), or it is not.
    const bundled = existsSync(resolve(root, b.defaultData));
    const how = bundled
      ? `its data is bundled with rawrag (${b.defaultData})`
      : `nothing of it is bundled: obtain it from its authors (docs/${b.name}.md says where) and pass --data PATH`;
    throw new InputError(`${b.name} has no files rawrag can download; ${how}`, { place: 'benchmark argument' });
  }
  return b.downloads;
}

/** A file's place under its benchmark's folder (datasets/<benchmark>/), which the table names once. */
function shortPath(path: string, benchmark: string): string {
  const prefix = `datasets/${benchmark}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** `rawrag data list`: one table per benchmark, files named under its folder (fits a 100-column terminal). */
function listData(name: string | undefined, opts: { root?: string; urls?: boolean }): void {
  const root = resolve(opts.root ?? projectRoot());
  const benches = name ? [getBenchmark(name)] : listBenchmarks().filter((b) => b.downloads && Object.keys(b.downloads).length);
  // One table per benchmark, files named under its folder: fits a 100-column terminal.
  const out: string[] = [];
  for (const b of benches) {
    const rows: Array<Array<string | number>> = [];
    for (const [variant, files] of Object.entries(downloadsOf(b, root))) {
      for (const f of files) {
        const row = [
          variant === defaultVariant(b) ? `${variant} *` : variant,
          shortPath(f.path, b.name),
          f.sha256 ? 'pinned' : 'no',
          existsSync(resolve(root, f.path)) ? 'yes' : 'no',
        ];
        if (opts.urls) row.push(f.url);
        rows.push(row);
      }
    }
    const header = ['variant', 'file', 'sha256', 'present', ...(opts.urls ? ['url'] : [])];
    out.push(
      `${b.name} (datasets/${b.name}/)`,
      markdownTable(
        header,
        rows,
        header.map(() => 'l' as const),
      ),
      '',
    );
  }
  out.push("* default variant; --urls adds each file's source URL");
  printOut(out.join('\n') + '\n');
}

/** `rawrag data pull`: each file of the chosen variants downloaded (resumable) and checked against its pinned sha256. */
async function pullData(
  name: string,
  opts: {
    variant?: string;
    all?: boolean;
    allowUnpinned?: boolean;
    baseUrl?: string;
    root?: string;
    force?: boolean;
    retries?: number;
  },
): Promise<void> {
  const b = getBenchmark(name);
  const downloads = downloadsOf(b);
  let variants: string[];
  if (opts.all) variants = Object.keys(downloads);
  else {
    const v = opts.variant ?? defaultVariant(b);
    if (!downloads[v])
      throw new InputError(`${b.name} has no variant '${v}' (known: ${Object.keys(downloads).join(', ')})`, { place: '--variant' });
    variants = [v];
  }
  const root = resolve(opts.root ?? projectRoot());
  const baseUrl = opts.baseUrl ?? process.env.RAWRAG_DATA_BASE_URL ?? null;
  // A mirror's user name and password would be printed with every line naming the URL, and fetch
  // refuses such a URL anyway (each try "no connection"): refused at once, naming where it came from.
  if (baseUrl && hasUrlCredentials(baseUrl)) {
    const why = 'a URL with a user name or password is refused: it would be printed, and the download cannot send it; give the mirror URL without it';
    if (opts.baseUrl) throw new UsageError(`--base-url: ${why}`);
    throw new InputError(why, { place: 'RAWRAG_DATA_BASE_URL' });
  }
  const results: Array<{ variant: string; r: PullResult }> = [];
  for (const variant of variants) {
    for (const file of downloads[variant]!) {
      const progress = terminalProgress(file.path);
      // Ctrl-C mid-download keeps what arrived (resumed by a Range request next time): say so.
      const unsay = onInterruptSay(() => {
        progress.clear();
        return `the partial download of ${file.path} is kept; the same command resumes it`;
      });
      try {
        const r = await pullFile(file, {
          root,
          baseUrl,
          allowUnpinned: opts.allowUnpinned,
          force: opts.force,
          retries: opts.retries,
          log: (line) => {
            progress.clear();
            process.stderr.write(`${file.path}: ${line}\n`);
          },
          progress: progress.update,
        });
        progress.clear();
        results.push({ variant, r });
        const how = r.status === 'present' ? 'already present' : `downloaded from ${r.url}`;
        const check = r.pinned ? 'sha256 verified' : 'NOT verified (no pinned sha256)';
        printOut(`${variant}: ${r.path}: ${how}, ${r.bytes} bytes, ${check}\n  sha256 ${r.sha256}\n`);
      } finally {
        unsay();
        progress.clear();
      }
    }
  }
}

export function dataCommand(): Command {
  const data = new Command('data').description("The benchmarks' official data files: list them, download and verify them");
  data
    .command('list')
    .description('List the downloadable files per benchmark and variant, whether a sha256 is pinned, and whether they are present')
    .argument('[benchmark]', 'only this benchmark')
    .option('--root <dir>', 'folder the datasets/ paths are under (default: the project folder)')
    .option('--urls', "add each file's source URL (a wide table)")
    .action(listData);
  data
    .command('options')
    .description("List each benchmark's own options: -B key=value on run, ablate and judge, or a config file's options: section")
    .argument('[benchmark]', 'only this benchmark')
    .action((name: string | undefined) => {
      printOut(benchmarkOptionsText(name ? [getBenchmark(name)] : listBenchmarks()) + '\n');
    });
  data
    .command('pull')
    .description("Download a benchmark's official files into datasets/<benchmark>/ (resumable, sha256-verified)")
    .argument('<benchmark>', 'benchmark whose files to fetch')
    .option('--variant <name>', "which release (see `rawrag data list`; default: the benchmark's default)")
    .option('--all', 'every variant')
    .option('--allow-unpinned', 'also download files that have no pinned sha256 (the computed sha256 is printed)')
    .option('--base-url <url>', 'fetch each file by name from this location instead (mirror; env RAWRAG_DATA_BASE_URL)')
    .option('--root <dir>', 'folder the datasets/ paths are resolved under (default: the project folder)')
    .option('--force', 'download again even if the file is present')
    .option('--retries <n>', 'automatic resumes after a dropped connection (default 3)', positiveInt)
    .action(pullData);
  return data;
}

/** A one-line byte counter on stderr when it is a terminal. */
function terminalProgress(label: string): { update(done: number, total: number | null): void; clear(): void } {
  if (!process.stderr.isTTY) return { update() {}, clear() {} };
  let shown = false;
  let last = 0;
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      const mb = (x: number) => (x / 1e6).toFixed(1);
      process.stderr.write(`\r${label}: ${mb(done)}${total ? ` / ${mb(total)}` : ''} MB`);
      shown = true;
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}

/** `rawrag data options`: one block per benchmark, each option as `-B key=<value>` with its description. */
export function benchmarkOptionsText(benchmarks: readonly Benchmark[]): string {
  const out: string[] = [];
  for (const b of benchmarks) {
    out.push(`${b.name}:`);
    if (b.options.length === 0) out.push('  (no options of its own)');
    for (const o of b.options) {
      const { flag, description } = describeBenchmarkOption(o);
      out.push(`  ${flag}`, ...wrap(description, 96).map((l) => `      ${l}`));
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
