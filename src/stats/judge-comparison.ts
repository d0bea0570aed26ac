/**
 * Judge vs judge (`rawrag stats` over a run and its re-judged copy, `rawrag judge --rejudge`): in
 * a benchmark-setting judged by two or more judges (a judge = model, plus its prompt when not the
 * official one), per system the agreement of the two judges' verdicts on the same answers (an
 * item is accepted when its score, the mean of its judge runs, is >= 0.5): Cohen's kappa and %
 * agreement; each judge's leaderboard over the questions both judged; and marks where the
 * ranking, or a pairwise significance verdict (exact McNemar, p < 0.05, on the same questions),
 * differs between the judges.
 */
import type { LoadedRun, StatItem } from './load.js';
import { inHeadline } from './aggregations.js';
import { MICRO_AGGREGATION, type Aggregation } from '../core/aggregation.js';
import { cohenKappa } from './cohen.js';
import { mcnemarExact } from './tests.js';

const ALPHA = 0.05;

export interface JudgeLeaderboardRow {
  system: string;
  accuracy: number;
  rank: number;
}

export interface JudgePairwise {
  a: string;
  b: string;
  /** Per judge: accuracy(a) - accuracy(b) on the common questions, McNemar p, and the verdict. */
  by_judge: Array<{ judge: string; diff: number; p: number; verdict: 'a better' | 'b better' | 'no difference' }>;
  changes: boolean;
}

export interface JudgeComparison {
  benchmark: string;
  setting: string;
  judges: [string, string];
  systems: Array<{
    system: string;
    n: number;
    agreement: number | null;
    kappa: number | null;
    accuracy: [number, number];
    rank: [number, number];
    rank_changes: boolean;
  }>;
  leaderboards: Array<{ judge: string; rows: JudgeLeaderboardRow[] }>;
  pairwise: JudgePairwise[];
}

const accepted = (i: StatItem) => (i.score as number) >= 0.5;
const usable = (i: StatItem | undefined): i is StatItem => !!i && i.error === null && i.score !== null;

/** `aggregation` gives a benchmark's headline rule (its adapter's declaration), as `analyse` receives it. */
export function compareJudges(
  runs: LoadedRun[],
  aggregation: (benchmark: string) => Aggregation | undefined = () => undefined,
): JudgeComparison[] {
  const bySetting = new Map<string, LoadedRun[]>();
  for (const r of runs) {
    if (!r.judge) continue;
    const key = JSON.stringify([r.benchmark, r.setting]);
    bySetting.set(key, [...(bySetting.get(key) ?? []), r]);
  }
  const out: JudgeComparison[] = [];
  for (const group of bySetting.values()) {
    const judges = [...new Set(group.map((r) => r.judge!))].sort();
    for (let x = 0; x < judges.length; x++) {
      for (let y = x + 1; y < judges.length; y++) {
        const c = comparePair(group, judges[x]!, judges[y]!, aggregation(group[0]!.benchmark) ?? MICRO_AGGREGATION);
        if (c) out.push(c);
      }
    }
  }
  return out;
}

function comparePair(group: LoadedRun[], ja: string, jb: string, agg: Aggregation): JudgeComparison | null {
  const runOf = (system: string, judge: string) => group.find((r) => r.system === system && r.judge === judge);
  const systems = [...new Set(group.map((r) => r.system))].sort().filter((s) => runOf(s, ja) && runOf(s, jb));
  if (systems.length === 0) return null;
  // Per system and judge: id -> item, headline questions only.
  const items = (s: string, j: string) =>
    new Map(
      runOf(s, j)!
        .items.filter((i) => inHeadline(agg, i.type ?? ''))
        .map((i) => [i.id, i] as const),
    );
  const table = new Map(systems.map((s) => [s, { a: items(s, ja), b: items(s, jb) }]));
  // The questions every system has a verdict for under both judges: leaderboards and tests are on the same items.
  const common = [...table.get(systems[0]!)!.a.keys()].filter((id) =>
    systems.every((s) => usable(table.get(s)!.a.get(id)) && usable(table.get(s)!.b.get(id))),
  );
  const acc = (s: string, side: 'a' | 'b') =>
    common.length ? common.reduce((sum, id) => sum + table.get(s)![side].get(id)!.score!, 0) / common.length : 0;
  const rank = (side: 'a' | 'b') => {
    const sorted = [...systems].sort((p, q) => acc(q, side) - acc(p, side) || (p < q ? -1 : 1));
    return new Map(sorted.map((s, i) => [s, i + 1]));
  };
  const ra = rank('a');
  const rb = rank('b');
  const rows = systems.map((s) => {
    const t = table.get(s)!;
    const ids = [...t.a.keys()].filter((id) => usable(t.a.get(id)) && usable(t.b.get(id)));
    const k = cohenKappa(
      ids.map((id) => accepted(t.a.get(id)!)),
      ids.map((id) => accepted(t.b.get(id)!)),
    );
    return {
      system: s,
      n: k.n,
      agreement: k.agreement,
      kappa: k.kappa,
      accuracy: [acc(s, 'a'), acc(s, 'b')] as [number, number],
      rank: [ra.get(s)!, rb.get(s)!] as [number, number],
      rank_changes: ra.get(s) !== rb.get(s),
    };
  });
  const pairwise: JudgePairwise[] = [];
  for (let x = 0; x < systems.length; x++) {
    for (let y = x + 1; y < systems.length; y++) {
      const [a, b] = [systems[x]!, systems[y]!];
      const by_judge = (['a', 'b'] as const).map((side) => {
        let onlyA = 0;
        let onlyB = 0;
        for (const id of common) {
          const va = accepted(table.get(a)![side].get(id)!);
          const vb = accepted(table.get(b)![side].get(id)!);
          if (va && !vb) onlyA++;
          else if (vb && !va) onlyB++;
        }
        const p = mcnemarExact(onlyA, onlyB);
        const diff = acc(a, side) - acc(b, side);
        const verdict: JudgePairwise['by_judge'][number]['verdict'] =
          p >= ALPHA ? 'no difference' : onlyA > onlyB ? 'a better' : 'b better';
        return { judge: side === 'a' ? ja : jb, diff, p, verdict };
      });
      pairwise.push({ a, b, by_judge, changes: by_judge[0]!.verdict !== by_judge[1]!.verdict });
    }
  }
  const board = (side: 'a' | 'b', r: Map<string, number>) =>
    systems.map((s) => ({ system: s, accuracy: acc(s, side), rank: r.get(s)! })).sort((p, q) => p.rank - q.rank);
  return {
    benchmark: group[0]!.benchmark,
    setting: group[0]!.setting,
    judges: [ja, jb],
    systems: rows,
    leaderboards: [
      { judge: ja, rows: board('a', ra) },
      { judge: jb, rows: board('b', rb) },
    ],
    pairwise,
  };
}
