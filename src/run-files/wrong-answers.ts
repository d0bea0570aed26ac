/**
 * `rawrag show RUN --wrong`: the questions a run answered wrong, each told apart by whether its
 * evidence covered the gold — a reading failure (every gold evidence turn was shown, the answer is
 * still wrong), a partial retrieval (some shown), a retrieval failure (none shown) — most useful
 * first. Read from items.jsonl as written (rawrag runs or an external system's minimal lines).
 */

/** Why an answer went wrong, as far as coverage tells. */
export type FailureKind = 'reading' | 'partial' | 'retrieval' | 'unknown';

/**
 * The order of the list: reading failures first (the reader had everything it needed: a prompt,
 * reader or gold problem, and the cases a retriever cannot fix), then partial retrievals (often
 * multi-hop: one gold turn missing), then retrieval failures (no gold turn reached the reader),
 * then items with no gold evidence to check.
 */
export const KIND_ORDER: readonly FailureKind[] = ['reading', 'partial', 'retrieval', 'unknown'];

export const KIND_TEXT: Record<FailureKind, string> = {
  reading: 'reading failure',
  partial: 'partial retrieval',
  retrieval: 'retrieval failure',
  unknown: 'coverage unknown',
};

/** An answer is wrong when the judge's mean score is below this (the report's ✗: score < 0.5, a majority of 3 votes). */
export const WRONG_BELOW = 0.5;

export interface WrongAnswer {
  id: string;
  type: string | null;
  episode: string | null;
  kind: FailureKind;
  score: number;
  votes: number[] | null;
  /** All / any gold evidence shown to the reader (null: the question has no gold evidence, or it was not recorded). */
  coverage: { all: boolean; any: boolean } | null;
  /** Gold evidence turns, those shown to the reader and those not (empty when items.jsonl has no turn lists). */
  gold_turns: string[];
  gold_shown: string[];
  gold_missed: string[];
  question: string | null;
  gold: string | null;
  answer: string | null;
}

export interface WrongAnswers {
  /** Items with a score and no error. */
  judged: number;
  /** Wrong answers of each kind, over every wrong answer (not only those listed). */
  counts: Record<FailureKind, number>;
  /** Items that failed (an error recorded): not answers, not listed. */
  failed: number;
  /** Items without a score (not judged): not listed. */
  unjudged: number;
  /** Every wrong answer, most useful first. */
  wrong: WrongAnswer[];
}

export function wrongAnswers(items: Array<Record<string, unknown>>): WrongAnswers {
  const out: WrongAnswers = { judged: 0, counts: { reading: 0, partial: 0, retrieval: 0, unknown: 0 }, failed: 0, unjudged: 0, wrong: [] };
  const order = new Map<WrongAnswer, number>();
  for (const item of items) {
    if (item.error !== null && item.error !== undefined) {
      out.failed++;
      continue;
    }
    if (typeof item.score !== 'number') {
      out.unjudged++;
      continue;
    }
    out.judged++;
    if (item.score >= WRONG_BELOW) continue;
    const w = wrongAnswer(item, item.score);
    out.counts[w.kind]++;
    order.set(w, order.size);
    out.wrong.push(w);
  }
  // Kind, then unanimous verdicts before split ones (lowest score first), then the run's question order.
  out.wrong.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.score - b.score || order.get(a)! - order.get(b)!);
  return out;
}

function wrongAnswer(item: Record<string, unknown>, score: number): WrongAnswer {
  const cov = item.coverage as { all?: boolean; any?: boolean } | boolean | null | undefined;
  const coverage =
    cov === null || cov === undefined
      ? null
      : typeof cov === 'boolean'
        ? { all: cov, any: cov }
        : { all: Boolean(cov.all), any: Boolean(cov.any) };
  const kind: FailureKind = coverage === null ? 'unknown' : coverage.all ? 'reading' : coverage.any ? 'partial' : 'retrieval';
  const strings = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  const gold = strings(item.gold_evidence);
  const shown = new Set(strings(item.evidence_turns));
  const details = (item.details ?? {}) as { judge?: { votes?: unknown } };
  const votes = Array.isArray(details.judge?.votes) ? details.judge.votes : Array.isArray(item.judge) ? item.judge : null;
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: String(item.id),
    type: text(item.type),
    episode: text(item.episode),
    kind,
    score,
    votes: votes ? (votes as number[]) : null,
    coverage,
    gold_turns: gold,
    gold_shown: gold.filter((t) => shown.has(t)),
    gold_missed: gold.filter((t) => !shown.has(t)),
    question: text(item.question),
    gold: text(item.gold),
    answer: text(item.answer),
  };
}

/** What a wrong answer's evidence held: `all 2 gold turns shown`, `1 of 3 gold turns shown (missed D2:4, D2:5)`. */
export function coverageText(w: WrongAnswer): string {
  if (w.coverage === null) return 'no gold evidence to check';
  const n = w.gold_turns.length;
  if (n === 0) return w.coverage.all ? 'evidence sufficient (the answer was shown)' : 'evidence not sufficient (the answer was not shown)';
  if (w.gold_missed.length === 0) return `all ${n} gold turn${n === 1 ? '' : 's'} shown`;
  return `${w.gold_shown.length} of ${n} gold turn${n === 1 ? '' : 's'} shown (missed ${w.gold_missed.join(', ')})`;
}

/** One line of text, cut to `max` characters. */
function oneLine(s: string | null, max: number): string {
  if (s === null) return '(not in items.jsonl)';
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** The header: how many were wrong, of each kind, and what is not listed. */
export function wrongSummaryLine(r: WrongAnswers): string {
  const kinds = [
    `${r.counts.reading} reading (all gold evidence shown)`,
    `${r.counts.partial} partial retrieval (some shown)`,
    `${r.counts.retrieval} retrieval (none shown)`,
    ...(r.counts.unknown ? [`${r.counts.unknown} with no gold evidence to check`] : []),
  ];
  const left = [
    ...(r.failed ? [`${plural(r.failed, 'failed item')} (rawrag run --retry-errors)`] : []),
    ...(r.unjudged ? [`${r.unjudged} not judged`] : []),
  ];
  return `${r.wrong.length} of ${r.judged} judged answers wrong (score < ${WRONG_BELOW}): ${kinds.join(', ')}${left.length ? `; not listed: ${left.join(', ')}` : ''}`;
}

/** The list as text: a header, then one block per wrong answer (at most `limit`; 0 = all). */
export function renderWrongAnswers(r: WrongAnswers, head: string, dir: string, limit: number): string {
  const shown = limit > 0 ? r.wrong.slice(0, limit) : r.wrong;
  const width = String(shown.length).length;
  const lines = [
    head,
    wrongSummaryLine(r),
    'order: reading failures, partial retrievals, retrieval failures, then no gold evidence; within each, unanimous judges first (lowest score), then question order',
  ];
  shown.forEach((w, i) => {
    const votes = w.votes ? ` (votes ${w.votes.join(' ')})` : '';
    const pad = ' '.repeat(width + 2);
    lines.push(
      '',
      `${String(i + 1).padStart(width)}. ${w.id} · ${w.type ?? 'untyped'} · ${KIND_TEXT[w.kind]}: ${coverageText(w)} · score ${w.score.toFixed(2)}${votes}`,
      `${pad}question: ${oneLine(w.question, 200)}`,
      `${pad}gold:     ${oneLine(w.gold, 200)}`,
      `${pad}answer:   ${oneLine(w.answer, 300)}`,
    );
  });
  lines.push('');
  if (shown.length < r.wrong.length) lines.push(`${shown.length} of ${r.wrong.length} shown (--limit 0 shows all)`);
  if (shown.length)
    lines.push(
      `rawrag show ${dir} ${shown[0]!.id} prints an item's retrieval, requests and replies (--out FOLDER: one log file per listed item)`,
    );
  return lines.join('\n') + '\n';
}
