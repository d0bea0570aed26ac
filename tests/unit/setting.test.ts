/**
 * The benchmark-setting names the data a run was measured on (variant, size, subset, question
 * set), inferred from the file where the flag is not given, so `rawrag stats` never pairs an
 * oracle run with an S run, or BEAM sizes with each other. Fixtures are copies of the real release
 * files (tests/fixtures/*\/SOURCE.md).
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunConfigSchema } from '../../src/systems/registry.js';
import { resolveConfig } from '../../src/config/load.js';
import type { Benchmark } from '../../src/core/benchmark.js';
import { dataSetting } from '../../src/core/setting.js';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { variantFromName } from '../../src/benchmarks/longmemeval/load.js';
import { judgedSetting } from '../../src/pipeline/judge-answers.js';
import { executeRun } from '../../src/pipeline/run.js';
import { groupFamilies } from '../../src/stats/families.js';
import { loadRun } from '../../src/stats/load.js';
import { ROOT, tempDir } from '../helpers/cli.js';

const FIX = join(ROOT, 'tests/fixtures');
const quiet = { log() {} };

async function settingOf(name: string, data: string, options: Record<string, string> = {}): Promise<string> {
  const b = getBenchmark(name);
  return dataSetting(b, options, await b.load({ path: data, options }));
}

describe('the data half of the benchmark-setting', () => {
  it('LongMemEval: the variant is read from the file name (oracle vs s_cleaned), the default release keeps the short name', async () => {
    expect(await settingOf('longmemeval', join(FIX, 'longmemeval/longmemeval_oracle.sample.json'))).toBe('longmemeval/variant=oracle');
    expect(await settingOf('longmemeval', join(FIX, 'longmemeval/longmemeval_s_cleaned.sample.json'))).toBe('longmemeval');
    expect(variantFromName('/d/longmemeval_s_cleaned.dev100.json')).toBe('s_cleaned');
    expect(variantFromName('/d/longmemeval_m.json')).toBe('m');
    expect(variantFromName('/d/original/longmemeval_oracle.json')).toBe('oracle_original');
    expect(variantFromName('/d/haystacks.json')).toBeNull();
  });

  it('LongMemEval: a flag that contradicts the file is recorded as given, with an important warning', async () => {
    const b = getBenchmark('longmemeval');
    const ds = await b.load({ path: join(FIX, 'longmemeval/longmemeval_oracle.sample.json'), options: { variant: 's_cleaned' } });
    expect(dataSetting(b, { variant: 's_cleaned' }, ds)).toBe('longmemeval');
    const important = ds.warnings.filter((w) => w.important).map((w) => w.message);
    expect(important.some((m) => /look like the oracle release, not s_cleaned/.test(m))).toBe(true);
  });

  it('BEAM: the size comes from the folder; MemoryAgentBench: subset and the splits really read; LoCoMo: categories normalised', async () => {
    expect(await settingOf('beam', join(FIX, 'beam/100K'))).toBe('beam/size=100K');
    const cr = join(FIX, 'memoryagentbench/Conflict_Resolution.sample.json');
    expect(await settingOf('memoryagentbench', cr, { subset: 'all' })).toBe('memoryagentbench/subset=all/splits=Conflict_Resolution');
    expect(await settingOf('memoryagentbench', cr, { sources: 'factconsolidation_sh_6k' })).toBe(
      'memoryagentbench/splits=Conflict_Resolution/sources=factconsolidation_sh_6k',
    );
    const locomo = join(ROOT, 'datasets/locomo/locomo10.json');
    expect(await settingOf('locomo', locomo, { categories: '4,3,2,1' })).toBe('locomo');
    expect(await settingOf('locomo', locomo, { categories: '1,2,3,4,5' })).toBe('locomo/categories=1,2,3,4,5');
  });

  it("any adapter's option can declare itself part of the setting (data, not a name test)", () => {
    const gold = { flags: '--gold <v>', key: 'gold', description: '', defaultValue: 'original', definesSetting: true };
    const b = { name: 'bench', options: [gold, { flags: '--style <s>', key: 'style', description: '' }] } as unknown as Benchmark;
    expect(dataSetting(b, { gold: 'audited', style: 'x' })).toBe('bench/gold=audited');
    expect(dataSetting(b, {})).toBe('bench');
  });
});

describe('rawrag stats never pairs different data', () => {
  it('an oracle run and an S run land in two benchmark-settings', async () => {
    const dirs: string[] = [];
    for (const file of ['longmemeval_oracle.sample.json', 'longmemeval_s_cleaned.sample.json']) {
      const cfg = resolveConfig({ benchmark: 'longmemeval', data: join(FIX, 'longmemeval', file) }, 'test', RunConfigSchema);
      dirs.push((await executeRun({ cfg, out: join(tempDir(), 'run') }, quiet)).dir);
    }
    const runs = dirs.map(loadRun);
    expect(runs.map((r) => r.setting)).toEqual(['longmemeval/variant=oracle/no-reader', 'longmemeval/no-reader']);
    expect(groupFamilies(runs)).toHaveLength(2);
  }, 60_000);

  it('rawrag judge: a --setting that does not name the data is refused', () => {
    expect(judgedSetting('longmemeval/variant=oracle', undefined, 'mine')).toBe('longmemeval/variant=oracle/mine');
    expect(judgedSetting('longmemeval/variant=oracle', 'longmemeval/variant=oracle/gpt-4o', 'mine')).toBe(
      'longmemeval/variant=oracle/gpt-4o',
    );
    expect(() => judgedSetting('longmemeval/variant=oracle', 'longmemeval/gpt-4o', 'mine')).toThrow(/does not name the data/);
    expect(() => judgedSetting('longmemeval', 'longmemeval/variant=oracle/gpt-4o', 'mine')).toThrow(/does not name the data/);
  });
});

describe("the release's sha256, where it is known", () => {
  it('a file named like the release but with other bytes is an important warning (LoCoMo, LongMemEval S-cleaned)', async () => {
    const dir = tempDir();
    const locomo = join(dir, 'locomo10.json');
    writeFileSync(locomo, readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8') + '\n');
    const edited = await getBenchmark('locomo').load({ path: locomo, options: {} });
    expect(edited.warnings[0]).toMatchObject({ important: true, message: expect.stringMatching(/named like the release but its sha256/) });
    const bundled = await getBenchmark('locomo').load({ path: join(ROOT, 'datasets/locomo/locomo10.json'), options: {} });
    expect(bundled.source.version).toMatch(/sha256 matches the release/);
    expect(bundled.warnings.some((w) => w.important)).toBe(false);

    const s = join(dir, 'longmemeval_s_cleaned.json');
    copyFileSync(join(FIX, 'longmemeval/longmemeval_s_cleaned.sample.json'), s);
    const lme = await getBenchmark('longmemeval').load({ path: s, options: {} });
    const important = lme.warnings.filter((w) => w.important).map((w) => w.message);
    expect(important).toEqual([
      expect.stringMatching(/^2 questions, not a full release/),
      expect.stringMatching(/named like the s_cleaned release but its sha256/),
    ]);
  });
});
