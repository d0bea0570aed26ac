/**
 * Which runs `rawrag stats` compares with which: duplicate runs (same config hash) collapse to one,
 * and families are benchmark + setting + judge model.
 */
import type { LoadedRun } from './load.js';

/** Runs of the same system, benchmark and setting with the same config hash are one run: keep the most complete. */
export function dedupeByConfigHash(runs: LoadedRun[]): { runs: LoadedRun[]; duplicates: Array<{ dir: LoadedRun; kept: LoadedRun }> } {
  const groups = new Map<string, LoadedRun[]>();
  for (const r of runs) {
    const key = r.configHash ? JSON.stringify([r.system, r.benchmark, r.setting, r.configHash]) : `dir:${r.dir}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(r);
  }
  const duplicates: Array<{ dir: LoadedRun; kept: LoadedRun }> = [];
  const keep = new Set<LoadedRun>();
  for (const g of groups.values()) {
    const scoredCount = (r: LoadedRun) => r.items.filter((i) => i.score !== null && i.error === null).length;
    const best = [...g].sort(
      (a, b) => scoredCount(b) - scoredCount(a) || b.items.length - a.items.length || (a.label < b.label ? -1 : 1),
    )[0]!;
    keep.add(best);
    for (const r of g) if (r !== best) duplicates.push({ dir: r, kept: best });
  }
  return { runs: runs.filter((r) => keep.has(r)), duplicates };
}

/**
 * Families = benchmark + setting + judge model: accuracies from different judges are not
 * comparable, so runs of one benchmark-setting judged by different models are reported apart.
 * A run that does not state its judge joins the family of the only judge seen (said so), or, with
 * several judges, a family of its own.
 */
export function groupFamilies(runs: LoadedRun[]): Array<{ runs: LoadedRun[]; judge: string | null; notes: string[] }> {
  const bySetting = new Map<string, LoadedRun[]>();
  for (const r of runs) {
    const key = JSON.stringify([r.benchmark, r.setting]);
    if (!bySetting.has(key)) bySetting.set(key, []);
    bySetting.get(key)!.push(r);
  }
  const out: Array<{ key: string; runs: LoadedRun[]; judge: string | null; notes: string[] }> = [];
  for (const [key, group] of bySetting) {
    const judges = [...new Set(group.map((r) => r.judge ?? null).filter((j): j is string => j !== null))].sort();
    const scored = (r: LoadedRun) => r.items.some((i) => i.score !== null && i.error === null);
    if (judges.length <= 1) {
      const notes = group
        .filter((r) => (r.judge ?? null) === null && scored(r) && judges.length === 1)
        .map((r) => `${r.system} (${r.label}): judge model not stated; grouped with the runs judged by ${judges[0]}`);
      out.push({ key, runs: group, judge: judges[0] ?? null, notes });
      continue;
    }
    const split = `runs of this benchmark-setting were judged by different models (${judges.join(', ')}): each judge is reported separately`;
    for (const j of [...judges, null]) {
      const members = group.filter((r) => (r.judge ?? null) === j);
      if (members.length === 0) continue;
      out.push({
        key: JSON.stringify([key, j ?? '']),
        runs: members,
        judge: j,
        notes: [split + (j === null ? '; these runs do not state their judge' : '')],
      });
    }
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
