/**
 * BEAM aggregates (official report_results.py, spec §3.4): per size and ability, the mean over
 * conversations of each conversation's mean question score; headline per size = mean of the ten
 * ability scores. Plus the paper's efficiency figures per conversation: cumulative add (ingest)
 * time and search time.
 */
import type { SummariseContext } from '../../core/benchmark.js';
import type { ItemRecord } from '../../core/item.js';
import { ABILITIES, SIZES } from './format.js';
import { InputError } from '../../util/errors.js';
import { denominatorTable, denominators } from '../../scoring/denominators.js';
import { parseFlag } from './load.js';

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(2));
const ms = (x: number | null) => (x === null ? '—' : x.toFixed(1));

export const sizeOf = (episode: string): string => episode.split('/')[0]!;

const DEFECTS_FLAG = 'beamOfficialDefects';
export const RUBRIC_FLAG = '--beam-rubric <variant>';
export const RUBRIC_VARIANTS = ['official', 'corrected'] as const;

/**
 * Whether the official rubric scores the run (the default, as upstream); `-B beam-rubric=corrected`
 * selects the corrected one. A run recorded with the older `beamOfficialDefects: true` reads as official.
 */
export function officialRubric(options: Record<string, string | undefined>): boolean {
  if (parseFlag(options.beamOfficialDefects, DEFECTS_FLAG)) return true;
  const v = options.beamRubric ?? 'official';
  if (!(RUBRIC_VARIANTS as readonly string[]).includes(v)) {
    throw new InputError(`'${v}' is not one of ${RUBRIC_VARIANTS.join(', ')}`, { place: '-B beam-rubric' });
  }
  return v === 'official';
}

export interface AbilityRow {
  ability: string;
  n: number;
  errors: number;
  conversations: number;
  coverage_all: number | null;
  coverage_any: number | null;
  /** Official nesting: mean over conversations of the conversation's mean score; null = not judged. */
  score: number | null;
  scored: number;
}

/** Mean over groups of the group mean (official: per conversation, then over conversations). */
function nestedMean(values: Array<{ group: string; value: number }>): number | null {
  const groups = new Map<string, number[]>();
  for (const v of values) {
    const g = groups.get(v.group) ?? [];
    g.push(v.value);
    groups.set(v.group, g);
  }
  return mean([...groups.values()].map((g) => mean(g)!));
}

function abilityRow(ability: string, items: ItemRecord[]): AbilityRow {
  const ok = items.filter((i) => !i.error);
  // Retrieval's figure: an item whose judging failed was still retrieved, so its coverage counts.
  const cov = items.map((i) => i.coverage).filter((c): c is NonNullable<typeof c> => c !== null);
  const scored = ok.filter((i) => typeof i.score === 'number');
  return {
    ability,
    n: items.length,
    errors: items.length - ok.length,
    conversations: new Set(items.map((i) => i.episode)).size,
    coverage_all: cov.length ? cov.filter((c) => c.all).length / cov.length : null,
    coverage_any: cov.length ? cov.filter((c) => c.any).length / cov.length : null,
    score: nestedMean(scored.map((i) => ({ group: i.episode, value: i.score! }))),
    scored: scored.length,
  };
}

/** Per-item mean over judge runs of a numeric field of each run's details (null when absent). */
function runDetailMean(item: ItemRecord, field: string): number | null {
  const runs = (item.details?.judge as { runs?: Array<{ details?: Record<string, unknown> }> } | undefined)?.runs;
  if (!Array.isArray(runs) || runs.length === 0) return null;
  const vals = runs.map((r) => r.details?.[field]);
  return vals.every((v) => typeof v === 'number') ? mean(vals as number[]) : null;
}

/** A size's headline over the given items: the mean of its ability scores (null unless every ability present is scored). */
function sizeHeadline(sized: ItemRecord[]): number | null {
  const rows = ABILITIES.map((a) => abilityRow(a, sized.filter((i) => i.type === a))).filter((r) => r.n > 0);
  const scores = rows.map((r) => r.score).filter((x): x is number => x !== null);
  return scores.length && scores.length === rows.length ? mean(scores) : null;
}

export function summariseBeam(items: ItemRecord[], ctx?: SummariseContext): Record<string, unknown> {
  // The items say which rubric scored them (question meta); the options only for items without it.
  const marked = items.map((i) => i.meta?.official_defects).filter((v): v is boolean => typeof v === 'boolean');
  // Options are parsed by the same function the loader uses (one parse, one default).
  const official = marked.length ? marked.some(Boolean) : officialRubric(ctx?.options ?? {});
  const sizes = SIZES.filter((s) => items.some((i) => sizeOf(i.episode) === s));
  const bySize: Record<string, SizeSummary> = {};
  const tables: Table[] = [];
  for (const size of sizes) {
    const sized = sizeSummary(
      size,
      items.filter((i) => sizeOf(i.episode) === size),
      official,
    );
    bySize[size] = sized.summary;
    tables.push(...sized.tables);
  }
  const conversations = conversationEfficiency(items, new Map((ctx?.dataset.episodes ?? []).map((e) => [e.id, e.meta ?? {}])));
  tables.push(efficiencyTable(conversations));
  return {
    scoring: scoringNote(official),
    sizes: bySize,
    headline: Object.fromEntries(sizes.map((s) => [s, bySize[s]!.headline])),
    efficiency: {
      conversations,
      by_size: Object.fromEntries(
        sizes.map((s) => {
          const cs = conversations.filter((c) => c.size === s);
          const num = (k: string) => cs.map((c) => c[k]).filter((x): x is number => typeof x === 'number');
          return [s, { conversations: cs.length, add_ms_mean: mean(num('add_ms')), search_ms_mean: mean(num('search_ms')) }];
        }),
      ),
    },
    tables,
  };
}

type Table = { title: string; header: string[]; rows: Array<Array<string | number>> };
type SizeSummary = Record<string, unknown> & { headline: number | null };

/** One size's per-ability rows, headline (both rubric variants from the same judge replies) and its tables. */
function sizeSummary(size: string, sized: ItemRecord[], official: boolean): { summary: SizeSummary; tables: Table[] } {
  const rows = ABILITIES.map((a) => abilityRow(a, sized.filter((i) => i.type === a))).filter((r) => r.n > 0);
  const scores = rows.map((r) => r.score).filter((x): x is number => x !== null);
  const complete = rows.length === ABILITIES.length && scores.length === ABILITIES.length;
  const headline = scores.length === rows.length ? mean(scores) : null;
  const coverageAll = mean(rows.map((r) => r.coverage_all).filter((x): x is number => x !== null));
  // Both rubric variants, from the same judge replies (rubric abilities; event ordering has one score).
  const variantOf = (a: string, field: string) =>
    nestedMean(
      sized
        .filter((i) => i.type === a && !i.error)
        .map((i) => ({ group: i.episode, value: a === 'event_ordering' ? i.score : runDetailMean(i, field) }))
        .filter((x): x is { group: string; value: number } => typeof x.value === 'number'),
    );
  const variantMean = (field: string) => {
    const vals = rows.map((r) => variantOf(r.ability, field));
    return vals.every((x) => x !== null) && vals.length ? mean(vals as number[]) : null;
  };
  const officialVariant = variantMean('score_official_int');
  const correctedVariant = variantMean('score_float');
  const d = denominators(sized, sizeHeadline, 'scored');
  const conversationCount = new Set(sized.map((i) => i.episode)).size;
  const summary: SizeSummary = {
    conversations: conversationCount,
    questions: sized.length,
    abilities: rows,
    headline,
    headline_rubric: official ? 'official' : 'corrected',
    headline_complete: complete,
    coverage_all_mean: coverageAll,
    /** The official rubric (int() truncates 0.5 to 0), from the run's judge replies. */
    headline_official_rubric: officialVariant,
    /** The corrected rubric (0.5 kept), from the same replies. */
    headline_corrected_rubric: correctedVariant,
    denominators: d,
  };
  const judged = scores.length > 0;
  const officialHead = `official rubric %${official ? ' (headline)' : ''}`;
  const correctedHead = `corrected rubric, 0.5 kept %${official ? '' : ' (headline)'}`;
  const header = ['ability', 'n', 'coverage all %', 'coverage any %', ...(judged ? [officialHead, correctedHead] : [])];
  const tableRows = rows.map((r) => [
    r.ability,
    r.n,
    pct(r.coverage_all),
    pct(r.coverage_any),
    ...(judged ? [pct(variantOf(r.ability, 'score_official_int')), pct(variantOf(r.ability, 'score_float'))] : []),
  ]);
  tableRows.push([
    `mean over ${rows.length} abilities`,
    sized.length,
    pct(coverageAll),
    pct(mean(rows.map((r) => r.coverage_any).filter((x): x is number => x !== null))),
    ...(judged ? [pct(officialVariant), pct(correctedVariant)] : []),
  ]);
  const tables: Table[] = [{ title: `BEAM ${size}: per ability (${conversationCount} conversations)`, header, rows: tableRows }];
  if (judged) tables.push(denominatorTable(d, `BEAM ${size} headline (${official ? 'official' : 'corrected'} rubric) %`));
  return { summary, tables };
}

/** Efficiency per conversation: add = the ingest work shared out to its questions; search = their retrieval time. */
function conversationEfficiency(items: ItemRecord[], episodesMeta: Map<string, Record<string, unknown>>): Array<Record<string, unknown>> {
  const conversations: Array<Record<string, unknown>> = [];
  for (const episode of [...new Set(items.map((i) => i.episode))]) {
    const own = items.filter((i) => i.episode === episode);
    const shares = own.map((i) => i.timings.ingest_share_ms).filter((x): x is number => typeof x === 'number');
    const searches = own.map((i) => i.timings.retrieve_ms).filter((x): x is number => typeof x === 'number');
    const meta = episodesMeta.get(episode) ?? {};
    const messages = typeof meta.messages === 'number' ? meta.messages : null;
    const add = shares.length ? shares.reduce((a, b) => a + b, 0) : null;
    conversations.push({
      episode,
      size: sizeOf(episode),
      messages,
      characters: typeof meta.characters === 'number' ? meta.characters : null,
      questions: own.length,
      add_ms: add,
      add_ms_per_message: add !== null && messages ? add / messages : null,
      search_ms: searches.length ? searches.reduce((a, b) => a + b, 0) : null,
      search_ms_per_question: mean(searches),
    });
  }
  return conversations;
}

function efficiencyTable(conversations: Array<Record<string, unknown>>): Table {
  return {
    title: 'Efficiency per conversation (add = ingest: serialise, window, index; search = retrieval per question, summed)',
    header: ['conversation', 'messages', 'questions', 'add ms', 'add ms / message', 'search ms', 'search ms / question'],
    rows: conversations.map((c) => [
      c.episode as string,
      (c.messages as number | null) ?? '—',
      c.questions as number,
      ms(c.add_ms as number | null),
      c.add_ms_per_message === null ? '—' : (c.add_ms_per_message as number).toFixed(3),
      ms(c.search_ms as number | null),
      ms(c.search_ms_per_question as number | null),
    ]),
  };
}

function scoringNote(official: boolean): Record<string, string> {
  return {
    variant: official ? 'official' : 'corrected',
    flag: '-B beam-rubric',
    description: official
      ? "official rubric (default, as upstream compute_metrics.py): int() truncates 0.5 to 0 (a string score fails the item), the judge sees the literal <question>, a NaN tau fails the item; the corrected rubric (0.5 kept) from the same replies is printed beside it"
      : "corrected rubric (-B beam-rubric=corrected): rubric scores keep 0.5, the judge prompt's <question> is filled, an undefined tau counts 1 for identical single-item orderings else 0.5; the official int() variant from the same replies is printed beside it",
    event_ordering: 'tau_norm = (Kendall tau-b + 1) / 2 over LLM-aligned answer lines (the official report uses tau_norm only)',
  };
}
