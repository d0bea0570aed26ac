/**
 * LoCoMo gold versions: `-B gold=audited` applies the bundled errata (derived from a public audit
 * of the ground truth) to the gold answers and evidence of the questions they name, and every
 * corrected question carries the other version's answer; the summary prints the ceiling.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ROOT } from '../../helpers/cli.js';
import { locomo } from '../../../src/benchmarks/locomo/index.js';
import { loadErrata } from '../../../src/benchmarks/locomo/gold.js';
import { goldSummary } from '../../../src/benchmarks/locomo/gold-summary.js';
import { baseItem } from '../../../src/core/item.js';

const path = join(ROOT, 'datasets/locomo/locomo10.json');

describe('LoCoMo -B gold', () => {
  it('audited changes the gold of exactly the questions the errata correct; original keeps the release', async () => {
    const errata = loadErrata();
    const original = await locomo.load({ path, options: {} });
    const audited = await locomo.load({ path, options: { gold: 'audited' } });
    expect(original.questions).toHaveLength(1540);
    const changed = audited.questions.filter((q, i) => q.gold !== original.questions[i]!.gold);
    const answerErrata = errata.errata.filter((e) => e.affects_answer);
    expect(answerErrata).toHaveLength(99);
    expect(changed.map((q) => q.id).sort()).toEqual(answerErrata.map((e) => e.id).sort());
    // The charity race: "last Saturday" said on Thursday 25 May 2023 (the audit's TEMPORAL_ERROR).
    const race = audited.questions.find((q) => q.id === 'conv-26:q5')!;
    expect(original.questions.find((q) => q.id === 'conv-26:q5')!.gold).toBe('The sunday before 25 May 2023');
    expect(race.gold).toMatch(/^The Saturday before 25 May 2023/);
    expect(race.meta?.gold).toMatchObject({ version: 'audited', error_kind: 'TEMPORAL_ERROR', other: { version: 'original', answer: 'The sunday before 25 May 2023' } });
    // A citation-only erratum moves the evidence, not the answer.
    const cite = errata.errata.find((e) => !e.affects_answer && e.corrected_evidence.join() !== e.original_evidence.join())!;
    const q = audited.questions.find((x) => x.id === cite.id)!;
    expect(q.gold).toBe(cite.original_answer);
    expect(q.evidence).toEqual(cite.corrected_evidence);
    expect(original.questions.find((x) => x.id === cite.id)!.meta?.gold).toMatchObject({ other: null });
  });

  it('the ceiling: 99 of 1,540 original golds are wrong (93.57 %), per category as the audit reports', async () => {
    const ds = await locomo.load({ path, options: {} });
    const items = ds.questions.map((q) => baseItem(q, 'locomo'));
    const g = goldSummary(items, 'original');
    const byType: Record<string, (typeof g.rows)[number]> = Object.fromEntries(g.rows.map((r) => [r.type, r]));
    expect(byType.overall!).toMatchObject({ n: 1540, wrong_original: 99, original: null });
    expect((100 * byType.overall!.ceiling!).toFixed(2)).toBe('93.57');
    expect(['multi-hop', 'temporal', 'open-domain', 'single-hop'].map((t) => byType[t]!.wrong_original)).toEqual([28, 26, 9, 36]);
  });

  it('an unknown gold version is an input error naming -B gold', async () => {
    await expect(locomo.load({ path, options: { gold: 'fixed' } })).rejects.toThrow(/unknown gold version 'fixed'/);
  });
});

describe('LoCoMo gold errata files', () => {
  it('a malformed errata file is an input error naming the file and the place', async () => {
    const { writeFileSync } = await import('node:fs');
    const { tempDir } = await import('../../helpers/cli.js');
    const file = join(tempDir(), 'errata.json');
    const good = JSON.parse((await import('node:fs')).readFileSync(join(ROOT, 'datasets/locomo/gold-errata.json'), 'utf8'));
    writeFileSync(file, JSON.stringify({ ...good, errata: [{ ...good.errata[0], affects_answer: 'yes' }] }));
    expect(() => loadErrata(file)).toThrow(/not a LoCoMo gold errata file/);
    try {
      loadErrata(file);
    } catch (e) {
      expect((e as Error).message).toMatch(/errata\.json: errata\[0\]\.affects_answer: /);
      expect((e as { place?: string }).place).toMatch(/errata\[0\]\.affects_answer/);
    }
    writeFileSync(file, JSON.stringify({ ...good, errata: [good.errata[0], good.errata[0]] }));
    expect(() => loadErrata(file)).toThrow(/corrected twice/);
  });

  it('every bundled entry matches the bundled data, and its source names the audit record', async () => {
    const errata = loadErrata();
    expect(errata.source).toMatchObject({ repository: 'https://github.com/dial481/locomo-audit', file: 'errors.json' });
    expect(errata.source.licence).toMatch(/CC BY-NC 4\.0/);
    const ds = await locomo.load({ path, options: {} });
    const byId = new Map(ds.questions.map((q) => [q.id, q]));
    for (const e of errata.errata) {
      expect(byId.get(e.id)?.text, e.id).toBe(e.question);
      expect(e.source).toMatch(/^errors\.json locomo_\d_qa\d+$/);
    }
  });
});
