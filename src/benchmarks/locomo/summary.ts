/**
 * LoCoMo's benchmark summary: the labels the judge actually sent (Mem0 scores `label == "CORRECT"`
 * exactly, so a lower-case or padded label counts WRONG; how often that happened is reported) and
 * the accuracy over all N beside the accuracy over the items that did not fail.
 */
import type { ItemRecord } from '../../core/item.js';
import { denominatorTable, denominators, type Denominators } from '../../scoring/denominators.js';
import { judgeLabel } from './scoring.js';
import type { SummariseContext } from '../../core/benchmark.js';
import { goldSummary, goldTables, type GoldSummary } from './gold-summary.js';
import { adversarialSummary, adversarialTable, type AdversarialSummary } from './gold-summary.js';

export interface LabelCounts {
  /** Judge replies read (one per judge run). */
  replies: number;
  CORRECT: number;
  WRONG: number;
  /** Any other label, as sent (e.g. `correct`), with its count: scored WRONG as Mem0 does. */
  other: Record<string, number>;
  other_total: number;
}

export interface LocomoSummary {
  judge_labels: LabelCounts;
  denominators: Denominators;
  /** Which gold scored the run, the ceiling it implies, and the score under both golds (docs/judging.md). */
  gold: GoldSummary;
  /** Category 5, its own row: the official rule and the judge's "declines" verdict. */
  adversarial: AdversarialSummary | null;
  tables: Array<{ title: string; header: string[]; rows: Array<Array<string | number>> }>;
}

/** Counts the labels of every judge reply kept in the items (details.judge.runs[].raw). */
export function countLabels(items: ItemRecord[]): LabelCounts {
  const out: LabelCounts = { replies: 0, CORRECT: 0, WRONG: 0, other: {}, other_total: 0 };
  for (const item of items) {
    const runs = (item.details?.judge as { runs?: Array<{ raw?: unknown }> } | undefined)?.runs;
    if (!Array.isArray(runs)) continue;
    for (const r of runs) {
      if (typeof r.raw !== 'string') continue;
      let label: string;
      try {
        label = judgeLabel(r.raw);
      } catch {
        continue;
      }
      out.replies++;
      if (label === 'CORRECT' || label === 'WRONG') out[label]++;
      else {
        out.other[label] = (out.other[label] ?? 0) + 1;
        out.other_total++;
      }
    }
  }
  return out;
}

const accuracy = (items: ItemRecord[]) => {
  const scored = items.filter((i) => !i.error && i.score !== null);
  return scored.length ? scored.reduce((s, i) => s + i.score!, 0) / items.length : null;
};

export function summariseLocomo(allItems: ItemRecord[], ctx?: SummariseContext): LocomoSummary {
  const judge_labels = countLabels(allItems);
  // The headline is categories 1-4; the adversarial category is summarised on its own.
  const items = allItems.filter((i) => i.type_id !== 5);
  // Mem0's script judges every question or stops: the official denominator is all of them.
  const d = denominators(items, accuracy, 'all_n');
  const gold = goldSummary(items, ctx?.options.gold);
  const adversarial = adversarialSummary(allItems.filter((i) => i.type_id === 5));
  const tables: LocomoSummary['tables'] = [];
  if (items.some((i) => !i.error && i.score !== null)) tables.push(denominatorTable(d, 'LoCoMo accuracy %'));
  tables.push(...goldTables(gold));
  if (adversarial) tables.push(adversarialTable(adversarial));
  if (judge_labels.other_total > 0) {
    tables.push({
      title: `Judge labels other than exactly CORRECT / WRONG (scored WRONG, as Mem0's label == "CORRECT"): ${judge_labels.other_total} of ${judge_labels.replies} replies`,
      header: ['label', 'replies'],
      rows: Object.entries(judge_labels.other)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([l, c]) => [JSON.stringify(l), c]),
    });
  }
  return { judge_labels, denominators: d, gold, adversarial, tables };
}
