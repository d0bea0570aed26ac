/**
 * The reader's protocol as a run's config asks for it: the benchmark's official reader, or — with
 * `--reader-prompt FILE` — the same reader (answer parsing, budget) sending the user's template
 * instead of the official prompt. Every such change is a deviation from the protocol, listed by
 * `protocolDeviations` (manifest.json `deviations`, `rawrag protocol`, the run's summary).
 */
import { readFileSync } from 'node:fs';
import type { RunConfig } from '../config/schema.js';
import { renderEvidence, type ChatMessage, type ReaderProtocol, type Scoring } from '../core/protocol.js';
import type { Question } from '../core/schema.js';
import { InputError } from '../util/errors.js';
import { sha256Hex } from '../util/fsx.js';
import { displayPath } from '../util/paths.js';

/** The slots a reader template may use; `{{evidence}}` and `{{question}}` are required. */
export const TEMPLATE_SLOTS = ['evidence', 'question', 'question_date', 'options'] as const;

export interface ReaderTemplate {
  file: string;
  sha256: string;
  text: string;
}

/** Reads and checks a reader template: known `{{slots}}` only, evidence and question present. */
export function readReaderTemplate(file: string, expectSha256?: string): ReaderTemplate {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the reader prompt (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  const sha256 = sha256Hex(text);
  if (expectSha256 && sha256 !== expectSha256)
    throw new InputError(
      `the reader prompt changed since the run was configured (sha256 ${sha256.slice(0, 12)}, recorded ${expectSha256.slice(0, 12)}): give it again with --reader-prompt, or use another --out`,
      { file },
    );
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    for (const m of line.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
      if (!(TEMPLATE_SLOTS as readonly string[]).includes(m[1]!))
        throw new InputError(`unknown slot {{${m[1]}}} (known: ${TEMPLATE_SLOTS.map((s) => `{{${s}}}`).join(', ')})`, {
          file,
          place: `line ${i + 1}`,
        });
    }
  });
  for (const slot of ['evidence', 'question'])
    if (!new RegExp(`\\{\\{\\s*${slot}\\s*\\}\\}`).test(text)) throw new InputError(`the template has no {{${slot}}} slot`, { file });
  return { file, sha256, text };
}

/** Fills the slots in one pass (a value holding braces is never expanded again). */
export function fillTemplate(template: string, q: Question, evidence: string): string {
  const options = q.options?.length ? q.options.map((o, i) => `(${String.fromCharCode(97 + i)}) ${o}`).join('\n') : '';
  const values: Record<string, string> = { evidence, question: q.text, question_date: q.questionDate ?? '', options };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
}

/** The official reader with the user's template as its one user message. */
export function templatedReader(official: ReaderProtocol, t: ReaderTemplate): ReaderProtocol {
  return {
    ...official,
    id: `${official.id}+prompt:${t.sha256.slice(0, 12)}`,
    source: `user template ${t.file} (sha256 ${t.sha256}) in place of ${official.source}`,
    render(q, evidence): ChatMessage[] {
      return [{ role: 'user', content: fillTemplate(t.text, q, renderEvidence(evidence)) }];
    },
  };
}

/** The reader protocol a run with `cfg` sends: the template's when the config names one. */
export function readerProtocolFor(cfg: RunConfig, scoring: Scoring): ReaderProtocol {
  const file = cfg.reader.promptFile;
  if (!file) return scoring.reader;
  return templatedReader(scoring.reader, readReaderTemplate(file, cfg.reader.promptSha256 ?? undefined));
}

/** Human sentences: where the config departs from the benchmark's reader protocol (empty = none). */
export function protocolDeviations(cfg: RunConfig): string[] {
  const out: string[] = [];
  if (cfg.reader.temperature !== 0) out.push(`reader temperature ${cfg.reader.temperature} (protocol: 0)`);
  if (cfg.reader.maxTokens === 'none') out.push("reader max_tokens never sent (protocol: the benchmark's official budget)");
  else if (typeof cfg.reader.maxTokens === 'number')
    out.push(`reader max_tokens ${cfg.reader.maxTokens} for every question (protocol: the benchmark's official budget)`);
  if (cfg.reader.promptFile)
    out.push(
      `reader prompt replaced by ${displayPath(cfg.reader.promptFile)} (sha256 ${cfg.reader.promptSha256 ?? '?'}; protocol: the official prompt files)`,
    );
  if (cfg.judge.temperature !== 0) out.push(`judge temperature ${cfg.judge.temperature} (protocol: 0)`);
  return out;
}
