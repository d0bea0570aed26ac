/** `rawrag run beam` through the real CLI, offline, on the real 100K conversation fixture. */
import { describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const CONV = join(ROOT, 'tests/fixtures/beam/100K/5');
const json = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('rawrag run beam (offline)', () => {
  it('ingests the conversation, retrieves for its 20 questions and prints per-ability and efficiency tables', async () => {
    const root = tempDir('rawrag-beam-e2e-');
    mkdirSync(join(root, 'chats', '100K', '5'), { recursive: true });
    cpSync(CONV, join(root, 'chats', '100K', '5'), { recursive: true });
    const out = join(root, 'run');
    const r = await rawragInProcess(['run', 'beam', '--data', root, '-B', 'size=100K', '--out', out, '--no-progress']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/BEAM 100K: per ability \(1 conversations\)/);
    expect(r.stdout).toMatch(/\| event_ordering\s+\|\s+2 \|/);
    expect(r.stdout).toMatch(/\| mean over 10 abilities\s+\|\s+20 \|/);
    expect(r.stdout).toMatch(/Efficiency per conversation/);
    expect(r.stdout).toMatch(/\| 100K\/5\s+\|\s+232 \|\s+20 \|/);

    const m = json(join(out, 'manifest.json'));
    expect(m.status).toBe('complete');
    expect(m.benchmark).toBe('beam');
    expect(m.questions).toEqual({ selected: 20, done: 20, errors: 0 });
    const items = readFileSync(join(out, 'items.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(items.map((i) => i.id).slice(0, 3)).toEqual(['100K/5:abstention:0', '100K/5:abstention:1', '100K/5:contradiction_resolution:0']);
    // Evidence is whole turns with their batch date, and the gold evidence ids are message ids.
    expect(items[4].gold_evidence).toEqual(['6', '10', '14', '34', '16', '18', '30', '20', '24', '50', '56', '58']);
    expect(items.every((i) => i.evidence_turns.length > 0 && typeof i.timings.ingest_share_ms === 'number')).toBe(true);

    const s = json(join(out, 'summary.json')).benchmark_summary;
    expect(Object.keys(s.sizes)).toEqual(['100K']);
    expect(s.sizes['100K'].abilities).toHaveLength(10);
    expect(s.scoring.variant).toBe('official');
    const eff = s.efficiency.conversations[0];
    expect(eff).toMatchObject({ episode: '100K/5', size: '100K', messages: 232, questions: 20 });
    expect(eff.add_ms).toBeGreaterThan(0);
    expect(eff.search_ms).toBeGreaterThan(0);
  });

  it('names the corrected rubric in the summary when asked', async () => {
    const out = join(tempDir('rawrag-beam-e2e-'), 'run');
    const r = await rawragInProcess([
      'run',
      'beam',
      '--data',
      CONV,
      '-B',
      'beam-rubric=corrected',
      '--limit',
      '2',
      '--out',
      out,
      '--no-progress',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout).benchmark_summary;
    expect(s.scoring.variant).toBe('corrected');
    expect(json(join(out, 'manifest.json')).config.options).toEqual({ beamRubric: 'corrected' });
    const bad = await rawragInProcess([
      'run',
      'beam',
      '--data',
      CONV,
      '-B',
      'beam-rubric=fixed',
      '--limit',
      '2',
      '--out',
      join(tempDir(), 'run'),
      '--no-progress',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/-B beam-rubric: 'fixed' is not one of official, corrected/);
  });

  it('rejects a size the data does not hold, with exit code 2', async () => {
    const r = await rawragInProcess(['run', 'beam', '--data', CONV, '-B', 'size=1M', '--out', join(tempDir(), 'run'), '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/rawrag: error: .*100K\/5: -B size: this conversation belongs to size 100K, not 1M/);
  });
});
