/**
 * `rawrag calibrate-judge --labels`: the figures from the labelled answers. The labelled answers
 * here reproduce the public LoCoMo audit's vague-but-topical set (dial481/locomo-audit,
 * ap-baseline/AUDIT_REPORT.md: 1,540 wrong answers, three gpt-4o-mini runs each; 947 accepted by all
 * three runs, 19 by two, 23 by one, 551 by none), so both of its figures must come out: 62.81 % as
 * the mean of the judge runs (the audit's headline) and 62.73 % by majority vote. Every answer is
 * labelled WRONG, so Cohen's kappa is undefined (not 0.000), and the trust margin must come from
 * these labels — not from rule-based probes the judge happened to reject.
 */
import { describe, expect, it } from 'vitest';
import type { ItemRecord } from '../../../src/core/item.js';
import { calibrationFigures } from '../../../src/calibrate/figures.js';
import { renderCalibration } from '../../../src/calibrate/render.js';
import { calibrationLine } from '../../../src/calibrate/collect.js';
import { cohenKappa } from '../../../src/stats/cohen.js';

const TYPES: Array<[string, number]> = [
  ['single-hop', 4],
  ['multi-hop', 1],
  ['temporal', 2],
  ['open-domain', 3],
];

function probe(id: string, kind: string, votes: number[], t: number, label: number | null = null): ItemRecord {
  const [type, typeId] = TYPES[t % TYPES.length]!;
  return {
    id,
    type,
    type_id: typeId,
    score: votes.reduce((a, b) => a + b, 0) / votes.length,
    error: null,
    details: { judge: { votes } },
    meta: { calibration: { kind, of: id.split('~')[0], label, rules: [] } },
  } as unknown as ItemRecord;
}

/** The audit's vote patterns, as labelled WRONG answers spread over the four types. */
function auditVague(): ItemRecord[] {
  const patterns: Array<[number, number[]]> = [
    [947, [1, 1, 1]],
    [19, [1, 1, 0]],
    [23, [1, 0, 0]],
    [551, [0, 0, 0]],
  ];
  const out: ItemRecord[] = [];
  for (const [count, votes] of patterns)
    for (let i = 0; i < count; i++) out.push(probe(`q${out.length}~label-${out.length + 1}`, 'label', votes, out.length, 0));
  return out;
}

/** Rule-based probes this judge handles well: every gold accepted, every perturbation rejected. */
function easyProbes(n: number): ItemRecord[] {
  return Array.from({ length: n }, (_, i) => [
    probe(`p${i}~gold`, 'gold', [1, 1, 1], i),
    probe(`p${i}~specific`, 'specific', [0, 0, 0], i),
    probe(`p${i}~vague`, 'vague', [0, 0, 0], i),
  ]).flat();
}

const ctx = { benchmark: 'locomo', typeOrder: TYPES.map(([t]) => t), judge: { model: 'gpt-4o-mini', protocol: 'p', runs: 3 }, seed: 0 };

describe('calibrate-judge with labels', () => {
  const f = calibrationFigures([...easyProbes(400), ...auditVague()], ctx);
  const text = renderCalibration(f);

  it("reproduces the audit's leniency both ways: 62.81 % (mean of the judge runs) and 62.73 % (majority vote)", () => {
    const wrong = f.labels!.accepted_wrong;
    expect(wrong.n).toBe(1540);
    expect(wrong.accepted).toBe(966);
    expect((100 * wrong.rate!).toFixed(2)).toBe('62.73');
    expect((100 * wrong.mean_runs!).toFixed(2)).toBe('62.81');
    expect(text).toContain('62.73 [');
    expect(text).toMatch(
      /62\.73 \[\d+\.\d\d, \d+\.\d\d\] \(n 1540\) of those you labelled WRONG \(majority vote; 62\.81 % as the mean of the judge runs\)/,
    );
    expect(text).toMatch(/majority vote: an answer is accepted when most of its judge runs accept it/);
    expect(text).toMatch(/mean of the judge runs: each run's acceptance rate, averaged over the runs/);
  });

  it('the trust line comes from the labels, not from probes the judge rejected', () => {
    expect(f.trust_probes.trusted_to!).toBeLessThan(0.01);
    expect(f.trust).toMatchObject({ basis: 'labels', overstates_from: 'labelled WRONG', understates_from: 'gold' });
    expect(f.trust.overstates_by).toBeCloseTo(f.labels!.accepted_wrong.ci95!.high, 12);
    expect(f.trust.trusted_to!).toBeGreaterThan(0.62);
    expect(text).toMatch(/overstate the true accuracy by up to 65\.\d\d points \(answers you labelled WRONG accepted, upper 95 % bound\)/);
    expect(text).toMatch(/trust a score to ±65\.\d\d points/);
    expect(text).not.toMatch(/trust a score to ±0\./);
    expect(calibrationLine({ dir: 'd', label: 'cal', figures: f })).toMatch(/scores trusted to ±65\.\d\d points \(from the labels\)/);
  });

  it('labelled results are split by type, with their own figures', () => {
    const byType = f.labels!.by_type;
    expect(byType.map((t) => t.type)).toEqual(['single-hop', 'multi-hop', 'temporal', 'open-domain']);
    expect(byType.reduce((s, t) => s + t.accepted_wrong.n, 0)).toBe(1540);
    expect(byType.reduce((s, t) => s + t.accepted_wrong.accepted, 0)).toBe(966);
    expect(text).toMatch(/\| single-hop +\| +4 \| +385 \|/);
  });

  it("Cohen's kappa is undefined when every answer carries one label (not 0.000)", () => {
    expect(f.labels!.kappa).toBeNull();
    expect(f.labels!.kappa_undefined_because).toBe('every answer carries the same label');
    expect(text).toContain("Cohen's kappa undefined (every answer carries the same label)");
    expect(text).not.toMatch(/kappa 0\.000/);
    // The formula alone returns 0 here: p_o equals p_e whatever the judge does.
    expect(cohenKappa([true, false, true], [false, false, false])).toMatchObject({
      kappa: null,
      undefined_because: 'b gives one label to every item',
    });
    expect(cohenKappa([true, false, true, false], [true, true, false, false]).kappa).toBeCloseTo(0, 12);
  });

  it('without labels, the margin is the probes, as before', () => {
    const plain = calibrationFigures(easyProbes(50), ctx);
    expect(plain.labels).toBeNull();
    expect(plain.trust).toEqual(plain.trust_probes);
    expect(plain.trust).toMatchObject({ basis: 'probes', overstates_from: 'vague', understates_from: 'gold' });
  });
});
