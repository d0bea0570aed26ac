/**
 * The write-decision audit through the real CLI: an agentic memory run on LoCoMo (--limit 20, one
 * conversation) against a loopback extractor scripted to move Caroline twice (one real change,
 * one re-statement, merged as a duplicate), `rawrag memory audit` on it, the same run with -S mutations=false (zero
 * effective UPDATE/DELETE), `rawrag ablate -S mutations=on,off` (extraction sent once), and an
 * imported decision log in the documented JSONL format.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, type CliResult } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { FakeExtractor, item } from '../helpers/fake-extractor.js';
import { locomoRunArgs, loopbackEnv } from '../helpers/loopback-run.js';

const env = loopbackEnv({ openai: 'sk-test-AUDITSECRET0123456789', cohere: 'co-test-COHERESECRET987654321' });

const home = (city: string, turn: string, updates = false) =>
  JSON.stringify([item(`Caroline lives in ${city}.`, ['Caroline'], [turn], { attribute: 'caroline.home_city', updates })]);

describe('rawrag memory audit', () => {
  const fake = new FakeExtractor({
    script: { 'D1:1': home('Boston', 'D1:1'), 'D2:1': home('Denver', 'D2:1', true), 'D3:1': home('Denver', 'D3:1') },
  });
  const cache = tempDir('rawrag-audit-cache-');
  const root = tempDir('rawrag-audit-');
  const args = (out: string, ...extra: string[]) =>
    locomoRunArgs({ system: 'agentic-memory', retriever: 'openai', limit: 20, judgeRuns: 1, out, peer: fake, cache, extra });
  let on: CliResult;
  let off: CliResult;

  beforeAll(async () => {
    await fake.start();
    on = await rawragInProcess(args(join(root, 'on')), env);
    off = await rawragInProcess(args(join(root, 'off'), '-S', 'mutations=false'), env);
  }, 300_000);
  afterAll(() => fake.close());

  it('prints the decision table of an agentic memory run: the move is an effective UPDATE, the re-statement a duplicate', async () => {
    expect(on.code, on.stderr).toBe(0);
    const r = await rawragInProcess(['memory', 'audit', join(root, 'on'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [a] = JSON.parse(r.stdout).audits;
    expect(a.benchmark).toBe('locomo');
    expect(a.system).toBe('agentic-memory/gpt-4o-mini');
    expect(a.episodes).toBe(1);
    expect(a.operations.UPDATE).toBe(1);
    expect(a.effective_mutations).toEqual({ UPDATE: 1, DELETE: 0, total: 1 });
    expect(a.classes).toEqual({ repeated: 0, malformed: 0, 'no-op': 0 });
    expect(a.decisions).toBeGreaterThan(300);
    expect(a.operations.ADD + a.operations.UPDATE + a.operations.NONE).toBe(a.decisions);
    const text = await rawragInProcess(['memory', 'audit', join(root, 'on')]);
    expect(text.stdout).toContain('Write-decision audit — agentic-memory/gpt-4o-mini on locomo');
    expect(text.stdout).toMatch(/\| Mem0 \(paper\) +\| +33902 \| +17\.13 \|/);
    expect(text.stdout).toMatch(/\| conv-26 +\| +\d+ \|/);
  });

  it('-S mutations=false: the same proposals, zero effective UPDATE/DELETE, nothing superseded; no request sent twice', async () => {
    expect(off.code, off.stderr).toBe(0);
    const r = await rawragInProcess(['memory', 'audit', join(root, 'off'), '--json']);
    const [a] = JSON.parse(r.stdout).audits;
    expect(a.operations.UPDATE).toBe(1);
    expect(a.effective_mutations).toEqual({ UPDATE: 0, DELETE: 0, total: 0 });
    expect(a.applied.UPDATE).toBe(0);
    expect(JSON.parse(off.stdout).memory.items.superseded).toBe(0);
    // Extraction is the same request with or without mutations: the second run's came from the cache.
    expect(JSON.parse(off.stdout).memory.this_run.requests).toBe(0);
  });

  it('rawrag ablate -S mutations=on,off runs the pair (extraction answered by the cache) and prints the paired table', async () => {
    fake.api.requests.length = 0;
    const r = await rawragInProcess(
      locomoRunArgs({
        command: 'ablate',
        system: 'agentic-memory',
        retriever: 'openai',
        limit: 20,
        judgeRuns: 1,
        out: join(root, 'ablate'),
        peer: fake,
        cache,
        extra: ['-S', 'mutations=on,off', '--resamples', '200'],
      }),
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(fake.extractionRequests()).toHaveLength(0);
    expect(r.stdout).toContain('mutations=off');
    expect(r.stdout).toMatch(/default/);
  }, 120_000);

  it('reads an imported decision log (documented JSONL), and names the line of a bad one', async () => {
    const file = join(root, 'mem0-events.jsonl');
    const lines = [
      { episode: 'conv-1', operation: 'ADD', memory_id: 'a', old_text: null, new_text: 'likes tea' },
      { episode: 'conv-1', operation: 'UPDATE', memory_id: 'a', old_text: 'likes tea', new_text: 'likes coffee' },
      { episode: 'conv-1', operation: 'UPDATE', memory_id: 'a', old_text: 'likes tea', new_text: 'likes coffee' },
      { episode: 'conv-2', operation: 'NONE', memory_id: null, old_text: null, new_text: null },
      { episode: 'conv-2', operation: 'DELETE', memory_id: 'b', old_text: 'owns a car', new_text: null },
    ];
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await rawragInProcess(['memory', 'audit', file, '--benchmark', 'locomo', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [a] = JSON.parse(r.stdout).audits;
    expect(a.decisions).toBe(5);
    expect(a.effective_mutations).toEqual({ UPDATE: 1, DELETE: 1, total: 2 });
    expect(a.classes.repeated).toBe(1);
    expect(a.per_episode.proposed.median.value).toBeCloseTo((2 / 3 + 1 / 2) / 2, 10);
    const text = await rawragInProcess(['memory', 'audit', file]);
    expect(text.stdout).toMatch(/\| this log +\| +5 \| +20\.00 \| +40\.00 \| +20\.00 \| +20\.00 \| +60\.00 \| +40\.00 \|/);
    writeFileSync(file, JSON.stringify(lines[0]) + '\n{"episode": "x", "operation": "MERGE"}\n');
    const bad = await rawragInProcess(['memory', 'audit', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('mem0-events.jsonl: line 2');
  });
});
