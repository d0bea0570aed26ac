/**
 * PersonaMem-v2 aggregates, as inference.py print_evaluation_stats breaks them down: accuracy
 * overall and by pref_type, updated, who and conversation_scenario. Every selected row counts in
 * the denominator (a reply without a letter is wrong); rows that failed (errors) are reported apart.
 */
import type { SummariseContext } from '../../core/benchmark.js';
import type { ItemRecord } from '../../core/item.js';
import { denominatorTable, denominators, type Denominators } from '../../scoring/denominators.js';
import { PREF_TYPES } from './format.js';
import { DEFAULT_MCQ_PROTOCOL } from './options.js';

interface Row {
  n: number;
  scored: number;
  correct: number;
  accuracy: number | null;
}

export type PersonamemSummary = {
  protocol: string;
  headline: 'multiple-choice accuracy over all rows';
  overall: Row;
  by_pref_type: Record<string, Row>;
  by_updated: Record<string, Row>;
  by_who: Record<string, Row>;
  by_conversation_scenario: Record<string, Row>;
  /** Replies from which no letter could be read (counted wrong). */
  no_letter: number;
  /** Accuracy over all rows (failed = wrong, official) and over the rows that did not fail, failures by stage. */
  denominators: Denominators;
  tables: Array<{ title: string; header: string[]; rows: Array<Array<string | number>> }>;
};

function rowOf(items: ItemRecord[]): Row {
  const scored = items.filter((i) => !i.error && i.score !== null);
  const correct = scored.reduce((s, i) => s + i.score!, 0);
  return { n: items.length, scored: scored.length, correct, accuracy: scored.length ? correct / items.length : null };
}

function groupBy(items: ItemRecord[], key: string, order: readonly string[] = []): Record<string, Row> {
  const values = [...new Set(items.map((i) => String(i.meta?.[key] ?? '')))];
  values.sort((a, b) => (order.includes(a) ? order.indexOf(a) : order.length) - (order.includes(b) ? order.indexOf(b) : order.length) || a.localeCompare(b));
  return Object.fromEntries(values.map((v) => [v, rowOf(items.filter((i) => String(i.meta?.[key] ?? '') === v))]));
}

function pct(x: number | null): string {
  return x === null ? '—' : (100 * x).toFixed(2);
}

export function summarisePersonamem(items: ItemRecord[], ctx?: SummariseContext): PersonamemSummary {
  const protocols = [...new Set(items.map((i) => String(i.meta?.protocol ?? '')))].filter(Boolean);
  const protocol = protocols.join(', ') || ctx?.options.mcqProtocol || DEFAULT_MCQ_PROTOCOL;
  const overall = rowOf(items);
  const d = denominators(items, (its) => rowOf(its).accuracy, 'all_n');
  const by_pref_type = groupBy(items, 'pref_type', PREF_TYPES);
  const by_updated = groupBy(items, 'updated');
  const by_who = groupBy(items, 'who');
  const table = (title: string, groups: Record<string, Row>) => ({
    title,
    header: ['group', 'n', 'correct', 'accuracy %'],
    rows: [...Object.entries(groups).map(([k, r]) => [k, r.n, r.correct, pct(r.accuracy)]), ['overall', overall.n, overall.correct, pct(overall.accuracy)]],
  });
  return {
    protocol,
    headline: 'multiple-choice accuracy over all rows',
    overall,
    by_pref_type,
    by_updated,
    by_who,
    by_conversation_scenario: groupBy(items, 'conversation_scenario'),
    no_letter: items.filter((i) => i.metrics.mcq_letter_found === 0).length,
    denominators: d,
    tables: [
      denominatorTable(d, 'PersonaMem-v2 accuracy %'),
      table(`PersonaMem-v2 accuracy by preference type (protocol ${protocol})`, by_pref_type),
      table('by updated', by_updated),
      table('by who', by_who),
    ],
  };
}
