/**
 * What a LoCoMo summary says about its gold (`-B gold`) and about category 5: the share of the
 * selected questions whose original gold the errata call wrong (the ceiling a perfect system
 * reaches under the original gold), the score under the run's gold and under the other one (the
 * other from item.details.other_gold: re-judged, not re-read), and the adversarial row.
 */
import type { ItemRecord } from '../../core/item.js';
import { goldVersionOf, type OtherGoldScore } from '../../scoring/gold-version.js';
import { parseGold, type GoldVersion } from './gold.js';
import { CATEGORY_NAMES } from './categories.js';

type Table = { title: string; header: string[]; rows: Array<Array<string | number>> };

interface GoldRow {
  type: string;
  n: number;
  /** Questions whose original gold answer the errata correct. */
  wrong_original: number;
  /** 1 - wrong_original / n: the best a perfectly right system scores under the original gold. */
  ceiling: number | null;
  /** Accuracy over all n (failed count 0) under each gold; null when the run was not judged. */
  original: number | null;
  audited: number | null;
}

export interface GoldSummary {
  version: GoldVersion;
  rows: GoldRow[];
  /** Questions corrected by the errata that were re-judged under the other gold (missing: an older item). */
  rejudged: number;
  missing_other: number;
}

export function goldSummary(items: ItemRecord[], option: string | undefined): GoldSummary {
  const version = parseGold(option);
  const judged = items.some((i) => !i.error && i.score !== null);
  let rejudged = 0;
  let missing = 0;
  const scoreUnder = (i: ItemRecord, v: GoldVersion): number => {
    if (i.error || i.score === null) return 0;
    const other = goldVersionOf(i)?.other;
    if (!other || v === version) return i.score;
    const o = i.details?.other_gold as OtherGoldScore | undefined;
    return o && typeof o.score === 'number' ? o.score : i.score;
  };
  for (const i of items) {
    if (!goldVersionOf(i)?.other || i.error || i.score === null) continue;
    const o = i.details?.other_gold as OtherGoldScore | undefined;
    if (o && typeof o.score === 'number') rejudged++;
    else missing++;
  }
  const row = (type: string, group: ItemRecord[]): GoldRow => {
    const wrong = group.filter((i) => goldVersionOf(i)?.other).length;
    const mean = (v: GoldVersion) => (judged && group.length && missing === 0 ? group.reduce((s, i) => s + scoreUnder(i, v), 0) / group.length : null);
    return {
      type,
      n: group.length,
      wrong_original: wrong,
      ceiling: group.length ? 1 - wrong / group.length : null,
      original: mean('original'),
      audited: mean('audited'),
    };
  };
  const order = [4, 1, 2, 3];
  const rows = order
    .map((c) => row(CATEGORY_NAMES[c]!, items.filter((i) => i.type_id === c)))
    .filter((r) => r.n > 0)
    .concat([row('overall', items)]);
  return { version, rows, rejudged, missing_other: missing };
}

const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(2));

export function goldTables(g: GoldSummary): Table[] {
  const overall = g.rows[g.rows.length - 1]!;
  if (overall.n === 0) return [];
  const judged = overall.original !== null;
  const header = ['type', 'n', 'wrong original gold', 'ceiling %', ...(judged ? ['accuracy original gold %', 'accuracy audited gold %'] : [])];
  const title =
    `Gold: ${g.version}${g.version === 'original' ? ' (the official protocol)' : ' (errata applied)'}; ` +
    `${overall.wrong_original} of ${overall.n} questions have a wrong original gold per the audit (datasets/locomo/gold-errata.json): ` +
    `ceiling ${pct(overall.ceiling)} %` +
    (judged ? `; the ${g.rejudged} corrected questions were judged under both golds, nothing re-read` : '') +
    (g.missing_other ? `; ${g.missing_other} corrected questions have no score under the other gold (items written before it existed): both-gold scores not shown` : '');
  return [
    {
      title,
      header,
      rows: g.rows.map((r) => [r.type, r.n, r.wrong_original, pct(r.ceiling), ...(judged ? [pct(r.original), pct(r.audited)] : [])]),
    },
  ];
}

export interface AdversarialSummary {
  n: number;
  failed: number;
  /** Failed at judging: the answer exists, so the official rule still scores it (the judge column counts it 0). */
  failed_at_judge: number;
  /** LoCoMo's rule (evaluation.py): the answer says "no information available" / "not mentioned"; over all n. */
  official_rule: number | null;
  /** The judge asked whether the answer correctly declines (rawrag's prompt); over all n; null when not judged. */
  judge_declines: number | null;
}

export function adversarialSummary(items: ItemRecord[]): AdversarialSummary | null {
  if (items.length === 0) return null;
  const ok = items.filter((i) => !i.error);
  // The rule needs only the answer: its score (computed before the judge ran) stands when the judge failed.
  const rule = items.map((i) => i.metrics.f1).filter((v): v is number => typeof v === 'number');
  const judged = ok.filter((i) => i.score !== null);
  return {
    n: items.length,
    failed: items.length - ok.length,
    failed_at_judge: items.filter((i) => i.error?.stage === 'judge').length,
    official_rule: rule.length ? rule.reduce((a, b) => a + b, 0) / items.length : null,
    judge_declines: judged.length ? judged.reduce((s, i) => s + i.score!, 0) / items.length : null,
  };
}

function failedNote(a: AdversarialSummary): string {
  if (!a.failed) return '';
  const before = a.failed - a.failed_at_judge;
  const parts = [
    ...(before ? [`${before} failed before judging (count 0 in both columns)`] : []),
    ...(a.failed_at_judge ? [`${a.failed_at_judge} failed at judging (count 0 for the judge; the official rule scores their answers)`] : []),
  ];
  return `, ${parts.join(', ')}`;
}

export function adversarialTable(a: AdversarialSummary): Table {
  return {
    title: `Category 5 (adversarial): its own row, not in the headline — ${a.n} questions${failedNote(a)}`,
    header: ['type', 'id', 'n', 'official rule %', 'judge: correctly declines %'],
    rows: [['adversarial', 5, a.n, pct(a.official_rule), pct(a.judge_declines)]],
  };
}
