/**
 * `rawrag import FORMAT FILE --benchmark B`: another harness's result file as a stats-ready run
 * directory (manifest.json, items.jsonl with rawrag's question ids, the file's judge votes kept
 * as each item's votes and score, summary.json), plus answers.jsonl for `rawrag judge` when the
 * file has no votes. Written whole into a temporary folder and renamed, so a refused or failed
 * import leaves nothing behind.
 */
import { RUN_SCHEMA, readRunManifest } from '../run-files/record.js';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { withPath, writeFileDurable } from '../util/checked-write.js';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { RunConfig } from '../config/schema.js';
import { baseItem, type ItemRecord } from '../core/item.js';
import { summarise } from '../reader-judge/summary.js';
import { loadRunInputs } from '../pipeline/plan.js';
import { toolInfo } from '../run-files/manifest.js';
import { InputError } from '../util/errors.js';
import { markdownTable } from '../util/table.js';
import { readImportFile, type ImportFormat } from './formats.js';
import { matchRecords, type MatchedRecord } from './match.js';
import { dataSetting } from '../core/setting.js';
import { judgedSetting } from '../pipeline/judge-answers.js';
import { goldVersionOf } from '../scoring/gold-version.js';

export const DEFAULT_SYSTEM_OF: Record<ImportFormat, string> = {
  'mem0-eval': 'Mem0',
  evermemos: 'EverMemOS',
  memos: 'MemOS',
  jsonl: 'external',
};

export interface ImportRequest {
  format: ImportFormat;
  file: string;
  /** benchmark, data, options (the selection the file is matched against). */
  cfg: RunConfig;
  system: string;
  /**
   * The setting asked for (--setting); default `<data>/<the file's answering model>`, else `<data>/<system>`.
   * Either way its data half is the options' (`locomo/gold=audited/...`).
   */
  setting?: string;
  out: string;
  /** Keep the records the format's own scorer skips (mem0-eval: category 5). */
  keepSkipped?: boolean;
}

/**
 * A file's votes were given by its own judge against the gold the benchmark's data file holds. A
 * question whose gold this import replaces (`-B gold=audited`) would keep a verdict judged against
 * another answer, so such a file is refused (unless the file's own gold is the replacement): import
 * it with the data's gold, then re-judge its answers under the other one with `rawrag judge
 * --rejudge DIR -B gold=...`.
 */
function refuseVotesOnAnotherGold(matched: MatchedRecord[], file: string): void {
  const stale = matched.filter(({ question: q, record: r }) => {
    const g = goldVersionOf(q);
    if (!r.votes?.length || g?.data_answer === undefined || g.data_answer === q.gold) return false;
    return (r.gold ?? g.data_answer).trim() !== q.gold.trim();
  });
  if (stale.length === 0) return;
  const { question: q, record: r } = stale[0]!;
  throw new InputError(
    `${stale.length} of the file's judged answers were judged against another gold than this import's (first: ${q.id}, judged against '${r.gold ?? goldVersionOf(q)!.data_answer}', gold here '${q.gold}'): ` +
      'their votes do not hold under it. Import the file without the gold option, then re-judge the answers: rawrag judge --rejudge <that run directory> -B gold=...',
    { file, place: r.place },
  );
}

/** The benchmark options as flags, for a command line the user may copy (` -B gold=audited`). */
const optionFlags = (options: Record<string, string | undefined>) =>
  Object.entries(options)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` -B ${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}=${v}`)
    .join('');

/** A path as the user would type it: relative below the working directory. */
const shown = (p: string) => (relative(process.cwd(), p).startsWith('..') ? p : relative(process.cwd(), p));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function importResults(req: ImportRequest): Promise<{ dir: string; text: string; items: ItemRecord[] }> {
  const imported = readImportFile(req.format, req.file, { keepSkipped: req.keepSkipped });
  const { benchmark, dataset, questions } = await loadRunInputs(req.cfg);
  const selected = { ...dataset, questions };
  const matched = matchRecords(imported, selected, benchmark.name);
  refuseVotesOnAnotherGold(matched, imported.file);
  // Another gold or question set is another setting, as for `run` and `judge`: never paired with the release's.
  // The model that answered names it, as a rawrag run's reader does: the import pairs with RAW-RAG read by that model.
  const setting = judgedSetting(dataSetting(benchmark, req.cfg.options, dataset), req.setting, imported.answerModel ?? req.system);
  const dir = resolve(req.out);
  const manifestPath = join(dir, 'manifest.json');
  if (existsSync(manifestPath)) {
    const m = readRunManifest(dir).manifest as { imported_from?: { sha256?: string } };
    if (m.imported_from?.sha256 !== imported.sha256)
      throw new InputError('this folder holds another run (not an import of this file): use another --out', { file: dir });
  }
  const order = new Map(questions.map((q, i) => [q.id, i]));
  matched.sort((a, b) => order.get(a.question.id)! - order.get(b.question.id)!);
  const items = matched.map(({ question, record }) => {
    const item = baseItem(question, benchmark.name);
    item.answer = record.answer;
    if (record.votes && record.votes.length) {
      item.score = mean(record.votes);
      item.details.judge = { votes: record.votes, model: imported.judge, source: 'imported' };
    }
    item.details.import = { format: imported.format, place: record.place, gold_in_file: record.gold };
    return item;
  });
  const voted = items.filter((i) => i.score !== null);
  const now = new Date().toISOString();
  const runId = basename(dir);
  const manifest = {
    schema: RUN_SCHEMA,
    format: 'rawrag.import/1',
    run_id: runId,
    system: req.system,
    benchmark: benchmark.name,
    setting,
    status: 'complete',
    ...(imported.judge ? { judge: imported.judge } : {}),
    ...(imported.answerModel ? { reader: imported.answerModel } : {}),
    imported_from: {
      format: imported.format,
      file: resolve(req.file),
      sha256: imported.sha256,
      records: imported.records.length,
      claimed_accuracy: imported.claimed,
      answer_model: imported.answerModel,
      judge_model: imported.judge,
      notes: imported.notes,
    },
    config: req.cfg,
    dataset: { ...dataset.source, warnings: [] },
    questions: { selected: items.length, done: items.length, errors: 0, of_benchmark: questions.length },
    tool: toolInfo(),
    created_at: now,
    updated_at: now,
    finished_at: now,
  };
  const summary = {
    schema: RUN_SCHEMA,
    run_id: runId,
    system: req.system,
    benchmark: benchmark.name,
    setting,
    ...summarise(items, benchmark.typeOrder),
  };
  // Everything into a sibling folder first; one rename makes it appear whole.
  const tmp = join(dirname(dir), `.${basename(dir)}.import-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    writeFileDurable(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    writeFileDurable(join(tmp, 'items.jsonl'), items.map((i) => JSON.stringify(i) + '\n').join(''));
    writeFileDurable(join(tmp, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
    writeFileDurable(join(tmp, 'answers.jsonl'), items.map((i) => JSON.stringify({ id: i.id, answer: i.answer }) + '\n').join(''));
    replaceFolder(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    // Named by where it was going, not by the temporary folder.
    const at = (e as NodeJS.ErrnoException).path;
    throw withPath(e, at?.startsWith(tmp) ? join(dir, at.slice(tmp.length)) : dir, at);
  }
  const byType = new Map<string, number[]>();
  for (const i of voted) byType.set(i.type, [...(byType.get(i.type) ?? []), i.score!]);
  const rank = (t: string) => (benchmark.typeOrder.indexOf(t) + benchmark.typeOrder.length + 1) % (benchmark.typeOrder.length + 1);
  const rows = [...byType]
    .sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]))
    .map(([t, s]) => [t, s.length, (mean(s) * 100).toFixed(2)]);
  if (voted.length) rows.push(['overall', voted.length, (mean(voted.map((i) => i.score!)) * 100).toFixed(2)]);
  const models = [imported.answerModel && `answers by ${imported.answerModel}`, imported.judge && `judged by ${imported.judge}`].filter(
    Boolean,
  );
  const lines = [
    `imported ${items.length} answers of ${req.system} on ${benchmark.name} from ${req.file} (${imported.format}; ${items.length} of the ${questions.length} selected questions)`,
    `setting: ${setting}${models.length ? ` (${models.join(', ')})` : ''}`,
    ...imported.notes.map((n) => `NOTE: ${n}`),
    '',
    voted.length ? markdownTable(['type', 'n judged', 'mean judge score %'], rows) : 'no judge votes in the file',
  ];
  if (imported.claimed !== null) lines.push('', `the file's own accuracy: ${(imported.claimed * 100).toFixed(2)} %`);
  if (voted.length < items.length)
    lines.push(
      '',
      `NOTE: ${items.length - voted.length} answers carry no judge votes; judge them as rawrag does with: rawrag judge ${shown(join(dir, 'answers.jsonl'))} --benchmark ${benchmark.name} --system ${req.system}${optionFlags(req.cfg.options)}`,
    );
  lines.push(`run directory: ${shown(dir)}`);
  return { dir, text: lines.join('\n'), items };
}

/** Puts the folder `from` at `to`: an old folder there is moved aside first and put back if the rename fails. */
function replaceFolder(from: string, to: string): void {
  const aside = join(dirname(to), `.${basename(to)}.old-${process.pid}`);
  const had = existsSync(to);
  if (had) {
    rmSync(aside, { recursive: true, force: true });
    renameSync(to, aside);
  }
  try {
    renameSync(from, to);
  } catch (e) {
    if (had) renameSync(aside, to);
    throw e;
  }
  if (had) rmSync(aside, { recursive: true, force: true });
}
