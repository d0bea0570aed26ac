/** The judge-vs-judge section of `rawrag stats` (Markdown) and its CSV. */
import { stringify } from 'csv-stringify/sync';
import { markdownTable } from '../util/table.js';
import type { JudgeComparison } from './judge-comparison.js';

const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(2));
const num = (x: number | null) => (x === null ? '—' : x.toFixed(3));

export function renderJudgeComparisons(cs: JudgeComparison[]): string {
  if (cs.length === 0) return '';
  const out: string[] = ['## Judge vs judge', ''];
  for (const c of cs) {
    const [ja, jb] = c.judges;
    out.push(`### ${c.benchmark} / ${c.setting}: ${ja} vs ${jb}`, '');
    out.push(
      'Agreement on the same answers (accepted = item score >= 0.5); accuracy over the questions both judges scored for every system; ' +
        '† = the rank differs between the judges:',
      '',
    );
    out.push(
      markdownTable(
        ['system', 'n', 'agreement %', "Cohen's kappa", `accuracy % (${ja})`, `accuracy % (${jb})`, `rank (${ja})`, `rank (${jb})`],
        c.systems.map((s) => [
          s.system + (s.rank_changes ? ' †' : ''),
          s.n,
          pct(s.agreement),
          num(s.kappa),
          pct(s.accuracy[0]),
          pct(s.accuracy[1]),
          s.rank[0],
          s.rank[1],
        ]),
      ),
      '',
    );
    for (const lb of c.leaderboards) {
      out.push(`Leaderboard under ${lb.judge}: ${lb.rows.map((r) => `${r.rank}. ${r.system} ${pct(r.accuracy)}`).join(' · ')}`);
    }
    if (c.pairwise.length) {
      out.push('', 'Pairwise verdicts (exact McNemar on the same questions, p < 0.05); ‡ = the verdict differs between the judges:', '');
      out.push(
        markdownTable(
          ['a', 'b', `diff (${ja})`, `p (${ja})`, `verdict (${ja})`, `diff (${jb})`, `p (${jb})`, `verdict (${jb})`, ''],
          c.pairwise.map((p) => [
            p.a,
            p.b,
            pct(p.by_judge[0]!.diff),
            p.by_judge[0]!.p.toPrecision(3),
            p.by_judge[0]!.verdict,
            pct(p.by_judge[1]!.diff),
            p.by_judge[1]!.p.toPrecision(3),
            p.by_judge[1]!.verdict,
            p.changes ? '‡' : '',
          ]),
        ),
      );
    }
    out.push('');
  }
  return out.join('\n');
}

export function judgeComparisonCsv(cs: JudgeComparison[]): string {
  const rows = cs.flatMap((c) =>
    c.systems.map((s) => [
      c.benchmark,
      c.setting,
      c.judges[0],
      c.judges[1],
      s.system,
      s.n,
      s.agreement,
      s.kappa,
      s.accuracy[0],
      s.accuracy[1],
      s.rank[0],
      s.rank[1],
    ]),
  );
  return stringify([
    ['benchmark', 'setting', 'judge_a', 'judge_b', 'system', 'n', 'agreement', 'kappa', 'accuracy_a', 'accuracy_b', 'rank_a', 'rank_b'],
    ...rows,
  ]);
}
