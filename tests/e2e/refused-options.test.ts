/**
 * Issue 34, problem 7: options are refused where they do nothing, before anything is written:
 * `-S phaseVisible=true` on a benchmark whose questions have no phases (LoCoMo), a system's own option
 * given to another system, `--rejudge-unchanged` with `--batch` or with a system knob's sweep.
 */
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { rawragInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/cli.js';

describe('options that would do nothing are refused', () => {
  it('-S phaseVisible=true outside a benchmark with phases, or without the store oracle', async () => {
    const out = join(tempDir('rawrag-refused-'), 'run');
    const r = await rawragInProcess(['run', 'locomo', '--system', 'store-oracle', '-S', 'phaseVisible=true', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /-S phaseVisible=true: the questions of locomo have no phases \(each sees the whole history\), so it would change nothing/,
    );
    expect(existsSync(out)).toBe(false);
    const other = await rawragInProcess(['run', 'locomo', '-S', 'phaseVisible=true', '--out', out]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/-S: system 'raw-rag' has no options \(rawrag systems raw-rag\)/);
    expect(existsSync(out)).toBe(false);
  });

  it('--rejudge-unchanged needs a shared ranking and the response cache bypassed', async () => {
    const batch = await rawragInProcess([
      'ablate',
      'locomo',
      '--k',
      '5',
      '--rejudge-unchanged',
      '--batch',
      '--reader',
      'gpt-4o-mini',
      '--dry-run',
    ]);
    expect(batch.code).toBe(1);
    expect(batch.stderr).toMatch(/--rejudge-unchanged .* --batch .*: use one/);
    const knob = await rawragInProcess([
      'ablate',
      'locomo',
      '--system',
      'agentic-memory',
      '-S',
      'items=3,5',
      '--rejudge-unchanged',
      '--dry-run',
    ]);
    expect(knob.code).toBe(1);
    expect(knob.stderr).toMatch(/--rejudge-unchanged applies to sweeps that share one ranking/);
  });
});
