/**
 * A third system from one folder (tests/fixtures/systems/last-turns/) and one registry line: it
 * runs, resumes, estimates, ablates, and appears in stats and the report, with no other file
 * changing. In process, against a loopback OpenAI-compatible server for the reader and judge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { FakeApi } from '../../helpers/fake-api.js';
import { tempDir } from '../../helpers/cli.js';
import { lastTurns, opened } from '../../fixtures/systems/last-turns/index.js';
import { listSystems, registerSystem, RunConfigSchema, unregisterSystem } from '../../../src/systems/registry.js';
import { executeRun } from '../../../src/pipeline/run.js';
import { estimateRun } from '../../../src/pipeline/estimate.js';
import { runAblation } from '../../../src/ablate/engine.js';
import { analyseAblation } from '../../../src/ablate/paired-table.js';
import { planVariants } from '../../../src/ablate/variants.js';
import { effectivePolicy } from '../../../src/pipeline/plan.js';
import { getBenchmark, listBenchmarks } from '../../../src/benchmarks/registry.js';
import { loadRun } from '../../../src/stats/load.js';
import { analyse } from '../../../src/stats/compute-tables.js';
import { writeReport } from '../../../src/report/index.js';
import { renderRunReport } from '../../../src/cli/run-printout.js';
import { runCommand } from '../../../src/cli/commands/run.js';
import { ablateCommand } from '../../../src/cli/commands/ablate.js';
import { RunDir } from '../../../src/run-files/run-dir.js';
import type { TransportOptions } from '../../../src/providers/transport.js';

const quiet = { log: () => {} };
let api: FakeApi;
let transport: Partial<TransportOptions>;
let root: string;

beforeAll(async () => {
  registerSystem(lastTurns);
  api = await new FakeApi().start();
  root = tempDir();
  transport = {
    cacheDir: join(root, 'cache'),
    env: { OPENAI_API_KEY: 'sk-test-plugin', OPENAI_BASE_URL: `${api.url}/v1`, RAWRAG_RETRY_BASE_MS: '1' },
  };
});
afterAll(async () => {
  unregisterSystem(lastTurns.name);
  await api.close();
});

const cfgOf = (extra: Record<string, unknown> = {}) =>
  RunConfigSchema.parse({
    benchmark: 'locomo',
    system: 'last-turns',
    limit: 12,
    reader: { model: 'gpt-4o-mini' },
    lastTurns: { n: 6 },
    ...extra,
  });

describe('a system registered from its own folder', () => {
  it('gets its -S options, help and config section from the registry (no flag of its own)', () => {
    expect(listSystems().map((s) => s.name)).toContain('last-turns');
    const run = runCommand();
    expect(run.options.some((o) => o.long === '--last-n')).toBe(false);
    expect(run.helpInformation().replace(/\s+/g, ' ')).toMatch(/--system <name> .*last-turns/);
    const ablate = ablateCommand();
    expect(ablate.options.some((o) => o.long === '--last-n')).toBe(false);
    expect(lastTurns.sweep![0]!.key).toBe('n');
    expect(RunConfigSchema.parse({ benchmark: 'locomo', system: 'last-turns', lastTurns: { n: 3 } }).lastTurns).toEqual({ n: 3 });
    expect(() => RunConfigSchema.parse({ benchmark: 'locomo', system: 'last-turns', lastTurns: { n: 0 } })).toThrow();
    expect(() => RunConfigSchema.parse({ benchmark: 'locomo', system: 'no-such-system' })).toThrow(/unknown system 'no-such-system'/);
  });

  it('runs (read and judged), resumes without work, and prints its own summary line', async () => {
    const out = join(root, 'run');
    const first = await executeRun({ cfg: cfgOf(), out, transport }, quiet);
    expect(first.manifest.status).toBe('complete');
    expect(first.manifest.system).toBe('last-turns');
    expect(first.manifest.reference).toBeUndefined();
    const items = new RunDir(out).readItems();
    expect(items).toHaveLength(12);
    for (const it of items) {
      expect(it.evidence_turns).toHaveLength(6);
      expect(it.score).not.toBeNull();
    }
    expect(items.some((i) => i.coverage !== null)).toBe(true);
    expect(renderRunReport({ ...first, dir: out })).toContain('last-turns: the last 6 turns shown for 12 questions');

    const sent = api.requests.length;
    const opens = opened.count;
    const again = await executeRun({ cfg: cfgOf(), out, transport }, quiet);
    expect(again.manifest.status).toBe('complete');
    expect(api.requests.length).toBe(sent);
    expect(opened.count).toBe(opens);
  });

  it('is estimated from its own estimate (evidence size and notes), nothing sent', async () => {
    const sent = api.requests.length;
    const small = await estimateRun(cfgOf({ lastTurns: { n: 2 } }), transport);
    const large = await estimateRun(cfgOf({ lastTurns: { n: 20 } }), transport);
    const reader = (e: typeof small) => e.roles.find((r) => r.role === 'reader')!;
    expect(reader(large).input_tokens).toBeGreaterThan(reader(small).input_tokens);
    expect(small.roles.some((r) => r.role === 'embed' || r.role === 'rerank')).toBe(false);
    expect(small.notes).toContain('last-turns shows the last 2 turns');
    expect(api.requests.length).toBe(sent);
  });

  it('ablates its own knob as plain runs, appears in stats and in the report', async () => {
    const base = cfgOf();
    const knob = lastTurns.sweep![0]!;
    const variants = planVariants(base, effectivePolicy(getBenchmark('locomo'), base), {
      k: [],
      window: [],
      stride: null,
      candidates: [],
      noRerank: false,
      noExpand: false,
      config: [{ knob, values: [2, 12] }],
    });
    expect(variants.map((v) => v.name)).toEqual(['default', 'n=2', 'n=12']);
    const out = join(root, 'ablate');
    const outcome = await runAblation({ base, variants, out, transport }, { ...quiet, progress: () => {} });
    expect(outcome.variants.map((v) => v.manifest.status)).toEqual(['complete', 'complete', 'complete']);
    expect(outcome.variants.find((v) => v.variant.name === 'n=12')!.items[0]!.evidence_turns).toHaveLength(12);
    const table = analyseAblation(outcome.variants, { resamples: 500, seed: 0 });
    expect(table.rows.map((r) => r.config).sort()).toEqual(['', 'n=12', 'n=2']);

    const runs = outcome.variants.map((v) => v.dir).map(loadRun);
    const stats = analyse(runs, {
      resamples: 500,
      seed: 0,
      allPairs: true,
      aggregation: (b) => listBenchmarks().find((x) => x.name === b)?.aggregation,
    });
    const systems = stats.families.flatMap((f) => f.leaderboard.map((r) => r.system));
    expect(systems.sort()).toEqual(['last-turns', 'last-turns n=12', 'last-turns n=2']);
    expect(stats.families[0]!.pairwise.length).toBeGreaterThan(0);

    const html = join(root, 'report.html');
    const r = await writeReport([join(root, 'run'), out], html);
    expect(r.runs).toBeGreaterThanOrEqual(4);
    expect(existsSync(html)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain('last-turns n=12');
  });
});
