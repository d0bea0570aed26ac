/**
 * The run record (src/run-files/record.ts): what the writers write parses as rawrag.run/2; the
 * rawrag.run/1 fixture (written by 016f2b1's own CLI, tests/fixtures/runs/rawrag.run-1) is upgraded;
 * a corrupt file is refused naming the file and the place.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../../helpers/cli.js';
import { RunDir } from '../../../src/run-files/run-dir.js';
import { RUN_SCHEMA, parseManifest, readRun, upgradeManifestV1 } from '../../../src/run-files/record.js';
import type { Manifest } from '../../../src/run-files/manifest.js';

const FIXTURE = join(ROOT, 'tests/fixtures/runs/rawrag.run-1');

function copy(): string {
  const dir = join(tempDir(), 'run');
  cpSync(FIXTURE, dir, { recursive: true, filter: (f) => !f.endsWith('SOURCE.md') });
  return dir;
}

describe('run record', () => {
  it('reads the rawrag.run/1 fixture, upgraded to rawrag.run/2', () => {
    const run = readRun(FIXTURE);
    expect(run.upgradedFrom).toBe('rawrag.run/1');
    expect(run.kind).toBe('rawrag');
    expect(run.manifest.schema).toBe(RUN_SCHEMA);
    expect('format' in run.manifest).toBe(false);
    expect(run.items).toHaveLength(6);
    expect(run.summary?.overall).toBeDefined();
  });

  it('round trip: what RunDir writes (manifest, summary, items) reads back as rawrag.run/2 unchanged', () => {
    const dir = copy();
    const rundir = new RunDir(dir);
    const m = rundir.readManifest();
    rundir.writeManifest(m);
    rundir.writeSummary({ ...(readRun(dir).summary ?? {}), n: 6 });
    rundir.rewriteItems(rundir.readItems());
    const onDisk = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(onDisk.schema).toBe(RUN_SCHEMA);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).schema).toBe(RUN_SCHEMA);
    const again = readRun(dir);
    expect(again.upgradedFrom).toBeNull();
    expect(again.manifest).toEqual(onDisk);
    expect(again.items.map((i) => i.id)).toEqual(readRun(FIXTURE).items.map((i) => i.id));
    expect((m as Manifest).schema).toBe(RUN_SCHEMA);
  });

  it('v1 → v2: a run recorded complete with failed items is incomplete; an import keeps its kind', () => {
    const up = upgradeManifestV1({ format: 'rawrag.run/1', status: 'complete', questions: { selected: 3, done: 3, errors: 1 } });
    expect(up).toEqual({ schema: RUN_SCHEMA, status: 'incomplete', questions: { selected: 3, done: 3, errors: 1 } });
    expect(upgradeManifestV1({ format: 'rawrag.import/1', status: 'complete' })).toEqual({
      schema: RUN_SCHEMA,
      format: 'rawrag.import/1',
      status: 'complete',
    });
  });

  it('refuses an unknown version, a wrong type and a missing field, naming the file and the place', () => {
    const base = { schema: RUN_SCHEMA, system: 's', benchmark: 'locomo', setting: 'locomo/x' };
    expect(() => parseManifest({ ...base, schema: 'rawrag.run/9' }, 'm.json')).toThrow(
      /^m\.json: schema: unknown run record version "rawrag\.run\/9"/,
    );
    expect(() => parseManifest({ ...base, questions: { selected: 'six', done: 0, errors: 0 } }, 'm.json')).toThrow(
      /^m\.json: questions\.selected: .*not a rawrag run manifest/,
    );
    const { system: _s, ...noSystem } = base;
    expect(() => parseManifest(noSystem, 'm.json')).toThrow(/^m\.json: system: /);
    expect(() => parseManifest({ format: 'other/1' }, 'm.json')).toThrow(/^m\.json: format: unknown run format/);
    const dir = copy();
    const lines = readFileSync(join(dir, 'items.jsonl'), 'utf8').split('\n');
    lines[2] = JSON.stringify({ ...JSON.parse(lines[2]!), score: '1' });
    writeFileSync(join(dir, 'items.jsonl'), lines.join('\n'));
    expect(() => readRun(dir)).toThrow(/items\.jsonl: line 3: score: .*not a run item/);
  });
});
