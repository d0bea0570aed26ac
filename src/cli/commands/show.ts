/**
 * `rawrag show RUN_DIR ID...`: an item's readable request/response log (src/pipeline/item-log.ts);
 * `--out FOLDER` writes one log file per item instead (every item when no ID is given).
 * `rawrag show RUN_DIR --wrong`: the questions answered wrong, retrieval vs reading failures
 * (src/run-files/wrong-answers.ts), as text or `--json`.
 */
import { readRunManifest } from '../../run-files/record.js';
import { printOut } from '../../util/stdout.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { findItem, openItemLog, renderItemLog, type ItemLogContext } from '../../pipeline/item-log.js';
import type { ItemRecord } from '../../core/item.js';
import { RunDir } from '../../run-files/run-dir.js';
import { renderWrongAnswers, wrongAnswers, wrongSummaryLine, KIND_ORDER } from '../../run-files/wrong-answers.js';
import { InputError, UsageError } from '../../util/errors.js';
import { nonNegativeInteger } from '../../util/flags.js';
import { writeOutputs } from '../../util/output-set.js';
import { setRuns } from '../../grid/set-runs.js';
import { groupFailures, renderFailures } from '../../run-files/failures.js';
import { statusFacts, statusLabel } from '../../run-files/status.js';

/** An item id as a file name: `conv-26:q0` -> `conv-26_q0.log`. */
export function logFileName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]+/g, '_')}.log`;
}

interface ShowOptions {
  out?: string;
  wrong?: boolean;
  failures?: boolean;
  json?: boolean;
  limit?: number;
}

/** The default number of wrong answers listed (`--limit 0`: all). */
export const WRONG_LIMIT = 20;

export function showCommand(): Command {
  return new Command('show')
    .description(
      "An item of a run as a readable log: question and gold, the ranked windows, the reader's request as sent and its reply, each judge run's request, reply and verdict, metrics, usage and timings; " +
        'or (--wrong) the questions answered wrong, each a reading failure (all gold evidence shown) or a retrieval failure (some or none shown), reading failures first',
    )
    .argument('<dir>', 'a run directory, or a grid set folder (each of its runs in turn; no id: a line per run)')
    .argument('[ids...]', 'item ids as items.jsonl names them (e.g. conv-26:q0)')
    .option(
      '--out <folder>',
      'write one <id>.log file per item into FOLDER (every item when no id is given; with --wrong: the items listed)',
    )
    .option(
      '--wrong',
      'list the answers judged wrong (score < 0.5): reading failures (all gold evidence shown) first, then partial and full retrieval failures',
    )
    .option(
      '--failures',
      'list why items failed: the reasons grouped (stage and message) with counts and a fix hint, then every failed item with its message',
    )
    .option('--json', 'with --wrong or --failures: print JSON instead of text')
    .option('--limit <n>', `with --wrong: list at most N answers (default ${WRONG_LIMIT}; 0 = all)`, nonNegativeInteger)
    .action(async (dir: string, ids: string[], opts: ShowOptions) => {
      const runs = setRuns(dir);
      if (runs) return showGrid(dir, runs, ids, opts);
      if (opts.wrong && opts.failures) throw new UsageError('--wrong lists wrong answers, --failures failed items: give one');
      if (opts.wrong) return showWrong(dir, ids, opts);
      if (opts.failures) return showFailures(dir, ids, opts);
      if (opts.json || opts.limit !== undefined) throw new UsageError('--json and --limit go with --wrong or --failures');
      if (ids.length === 0 && !opts.out) throw new UsageError('give an item id (or --out FOLDER for a log file per item, or --wrong)');
      const { ctx, items } = await openItemLog(dir);
      const chosen = ids.length ? ids.map((id) => findItem(items, id, dir)) : items;
      if (!opts.out) {
        printOut(chosen.map((i) => renderItemLog(i, ctx)).join('\n'));
        return;
      }
      await writeLogs(chosen, ctx, opts.out);
    });
}

/**
 * A grid's set folder: each run under its cell's name. No id: one line per run (status, n,
 * headline); ids: each run's log of them; --wrong: each judged run's wrong answers (`--json`: one
 * object per run), `--out`: a sub-folder per cell.
 */
async function showGrid(dir: string, runs: Array<{ name: string; dir: string }>, ids: string[], opts: ShowOptions): Promise<void> {
  if (!opts.wrong && ids.length === 0 && !opts.out) {
    const { runLine } = await import('./runs.js');
    const lines = runs.map((r) => {
      const l = runLine(r.dir);
      const head = l.headline ? `${l.headline.metric} ${(100 * l.headline.value).toFixed(2)} %` : '—';
      return `${r.name}: ${l.status}, ${l.n}${l.selected !== null && l.selected !== l.n ? `/${l.selected}` : ''} questions, ${head}`;
    });
    printOut(`${dir}: ${runs.length} runs (rawrag show ${dir} ID, or --wrong)\n${lines.join('\n')}\n`);
    return;
  }
  const json: unknown[] = [];
  for (const r of runs) {
    const sub = opts.out ? { ...opts, out: join(opts.out, r.name) } : opts;
    if (opts.wrong) {
      const shown = await wrongOf(r.dir, ids, sub).catch((e: unknown) => skipUnjudged(e, r.name));
      if (opts.json) json.push(...(shown.trim() ? [JSON.parse(shown)] : []));
      else printOut(`== ${r.name}\n${shown}\n`);
      continue;
    }
    const { ctx, items } = await openItemLog(r.dir);
    const chosen = ids.length ? ids.flatMap((id) => items.filter((i) => i.id === id)) : items;
    if (sub.out) await writeLogs(chosen, ctx, sub.out);
    else printOut(`== ${r.name}\n${chosen.map((i) => renderItemLog(i, ctx)).join('\n')}\n`);
  }
  if (opts.json) printOut(JSON.stringify(json, null, 2) + '\n');
}

/** A run without a judge in a grid: said, not an error of the whole command. */
function skipUnjudged(e: unknown, name: string): string {
  if (!(e instanceof InputError)) throw e;
  process.stderr.write(`note: ${name}: ${e.message.split('\n')[0]}\n`);
  return '';
}

/** The logs land together or not at all (src/util/output-set.ts). */
async function writeLogs(items: ItemRecord[], ctx: ItemLogContext, out: string): Promise<void> {
  mkdirSync(out, { recursive: true });
  await writeOutputs((set) => {
    for (const item of items) set.stage(join(out, logFileName(String(item.id))), renderItemLog(item, ctx));
  });
  printOut(`${items.length} item log${items.length === 1 ? '' : 's'} written to ${out}\n`);
}

async function showWrong(dir: string, ids: string[], opts: ShowOptions): Promise<void> {
  printOut(await wrongOf(dir, ids, opts));
}

/** What `show --wrong` prints for one run (text or JSON); with `--out`, the listed items' logs are written too. */
async function wrongOf(dir: string, ids: string[], opts: ShowOptions): Promise<string> {
  if (ids.length) throw new UsageError('--wrong lists the wrong answers itself: give item ids or --wrong, not both');
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const manifest = readRunManifest(dir).manifest as Record<string, unknown>;
  const items = new RunDir(dir).readItems() as unknown as Array<Record<string, unknown>>;
  const r = wrongAnswers(items);
  if (r.judged === 0) {
    throw new InputError(
      `no judged answer in this run (${items.length} items${r.failed ? `, ${r.failed} failed` : ''}): --wrong needs a run with a reader and a judge`,
      { file: join(dir, 'items.jsonl') },
    );
  }
  const limit = opts.limit ?? WRONG_LIMIT;
  const listed = limit > 0 ? r.wrong.slice(0, limit) : r.wrong;
  let text: string;
  const head = `${manifest.system}${typeof manifest.name === 'string' ? ` [${manifest.name}]` : ''} · ${manifest.setting} · ${dir}`;
  if (opts.json) {
    const { wrong, ...counts } = r;
    const json = {
      dir,
      system: manifest.system,
      name: manifest.name ?? null,
      setting: manifest.setting,
      ...counts,
      wrong_total: wrong.length,
    };
    text = JSON.stringify({ ...json, order: KIND_ORDER, summary: wrongSummaryLine(r), wrong: listed }, null, 2) + '\n';
  } else text = renderWrongAnswers(r, head, dir, limit);
  if (opts.out) {
    const { ctx, items: records } = await openItemLog(dir);
    await writeLogs(
      listed.map((w) => findItem(records, w.id, dir)),
      ctx,
      opts.out,
    );
  }
  return text;
}

/** `--failures`: why the run's items failed, grouped with counts and a fix hint, then each failed item (`--limit`, default all). */
function showFailures(dir: string, ids: string[], opts: ShowOptions): void {
  if (ids.length) throw new UsageError('--failures lists the failed items itself: give item ids or --failures, not both');
  // Through the run record (src/run-files/record.ts): validated, an older version upgraded.
  const manifest = readRunManifest(dir).manifest as Record<string, unknown>;
  const items = new RunDir(dir).readItems() as unknown as Array<{ id: string; error: { stage: string; message: string } | null }>;
  const failed = items.filter((i) => i.error);
  const groups = groupFailures(failed);
  const status = statusLabel(statusFacts(manifest));
  const listed = opts.limit ? failed.slice(0, opts.limit) : failed;
  if (opts.json) {
    printOut(
      JSON.stringify(
        { dir, status, items: items.length, failed: failed.length, groups, failures: listed.map((i) => ({ id: i.id, ...i.error })) },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  const head = `${String(manifest.system)}${typeof manifest.name === 'string' ? ` [${manifest.name}]` : ''} · ${String(manifest.setting)} · ${dir}: ${status}`;
  if (failed.length === 0) {
    printOut(`${head}\nno failed items (${items.length} items)\n`);
    return;
  }
  const lines = [
    head,
    `${failed.length} of ${items.length} items failed, for ${groups.length} reason${groups.length === 1 ? '' : 's'}:`,
    ...renderFailures(groups, groups.length),
    '',
    `failed items${listed.length < failed.length ? ` (first ${listed.length} of ${failed.length}; --limit 0 for all)` : ''}:`,
    ...listed.map((i) => `  ${i.id}  ${i.error!.stage}: ${i.error!.message.split('\n')[0]}`),
    '',
    `redo them: the run's command with --retry-errors --out ${dir}; one item's log: rawrag show ${dir} ID`,
  ];
  printOut(lines.join('\n') + '\n');
}
