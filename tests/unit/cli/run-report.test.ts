/** What `rawrag run` prints: each thing once, no columns or tables with nothing in them. Fixtures are copies of real release files. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { resolveConfig } from '../../../src/config/load.js';
import { executeRun, type RunOutcome } from '../../../src/pipeline/run.js';
import { renderRunReport } from '../../../src/cli/run-printout.js';
import { ROOT, tempDir } from '../../helpers/cli.js';

const FIX = join(ROOT, 'tests/fixtures');

async function run(benchmark: string, data: string, options: Record<string, string> = {}): Promise<{ outcome: RunOutcome; log: string[] }> {
  const log: string[] = [];
  const cfg = resolveConfig({ benchmark, data, options }, 'test', RunConfigSchema);
  const outcome = await executeRun({ cfg, out: join(tempDir(), 'run') }, { log: (l) => log.push(l) });
  return { outcome, log };
}

const headerOf = (report: string) => report.split('\n').find((l) => l.startsWith('| type'))!;

describe('run report', () => {
  it('LongMemEval and BEAM (types without ids): no empty id column; the retriever note said once', async () => {
    for (const [b, data] of [
      ['longmemeval', join(FIX, 'longmemeval/longmemeval_oracle.sample.json')],
      ['beam', join(FIX, 'beam/100K')],
    ] as const) {
      const { outcome, log } = await run(b, data);
      const report = renderRunReport(outcome);
      expect(headerOf(report)).not.toMatch(/\| +id +\|/);
      expect(headerOf(report)).toMatch(/coverage all %/);
      const said = [...log, ...report.split('\n')].filter((l) => l.includes("retriever 'local' is an offline lexical stand-in"));
      expect(said).toHaveLength(1);
    }
  }, 60_000);

  it('LoCoMo keeps its category ids', async () => {
    const { outcome } = await run('locomo', join(ROOT, 'datasets/locomo/locomo10.json'));
    expect(headerOf(renderRunReport(outcome))).toMatch(/\| type +\| +id +\|/);
  }, 60_000);

  it('MemoryAgentBench (no gold evidence turns): answer-sufficiency coverage, said so; no recall table of dashes', async () => {
    const { outcome } = await run('memoryagentbench', join(FIX, 'memoryagentbench/Conflict_Resolution.sample.json'), { subset: 'all' });
    const report = renderRunReport(outcome);
    expect(headerOf(report)).toMatch(/coverage all %/);
    const overall = report.split('\n').find((l) => l.startsWith('| overall'))!;
    expect(overall).not.toMatch(/—/);
    expect(report).not.toMatch(/Evidence recall from the same ranking/);
    expect(report).toMatch(/coverage of 100 question\(s\) without gold evidence turns is answer sufficiency/);
    // Answers judged without evidence text: nothing to check, no coverage columns of dashes.
    const none = {
      ...outcome,
      summary: { ...outcome.summary, overall: { ...outcome.summary.overall, coverage: { n: 0, all: null, any: null } } },
    };
    expect(headerOf(renderRunReport(none))).not.toMatch(/coverage/);
    expect(renderRunReport(none)).toMatch(/no gold evidence turns in this data: coverage not computed/);
  }, 60_000);

  it('no "mean evidence tokens per question: 0.0" when no evidence was shown (answers judged without an evidence list)', async () => {
    const { outcome } = await run('longmemeval', join(FIX, 'longmemeval/longmemeval_oracle.sample.json'));
    expect(renderRunReport(outcome)).toMatch(/mean evidence tokens per question: \d+\.\d/);
    const none = { ...outcome, summary: { ...outcome.summary, evidence_tokens_mean: 0 } };
    expect(renderRunReport(none)).not.toMatch(/mean evidence tokens/);
  }, 60_000);
});
