/**
 * Loader fuzz suite (issue 20): every benchmark loader gets mutated copies of its real sample
 * files (tests/fixtures/*, the bundled LoCoMo reduced to one conversation). For each mutation:
 * the loader either refuses with an InputError naming the file and a place (the CLI's exit 2), or
 * loads a dataset the pipeline can run (every question's episode exists and ingests). Never any
 * other error (exit 3). A representative subset then goes through the real CLI: exit 0 with a
 * complete run for good-but-odd input, exit 2 with nothing written for bad input.
 */
import { describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getBenchmark } from '../../src/benchmarks/registry.js';
import { InputError } from '../../src/util/errors.js';
import { ingest } from '../../src/retrieval/chunk.js';
import { ROOT, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';
import { MUTATIONS, rngFor, type Mutation } from './mutations.js';

const work = tempDir('rawrag-fuzz-');
const locomoOne = join(work, 'locomo1.json');
writeFileSync(locomoOne, JSON.stringify(JSON.parse(readFileSync(join(ROOT, 'datasets/locomo/locomo10.json'), 'utf8')).slice(0, 1)));

interface Subject {
  benchmark: string;
  /** The --data path: a file, or a folder copied whole. */
  root: string;
  /** Files to mutate, relative to a folder root ('' = the root file itself). */
  targets: string[];
  options: Record<string, string>;
  /** Extra CLI flags for the end-to-end subset. */
  cli: string[];
}

const FIX = join(ROOT, 'tests/fixtures');
const SUBJECTS: Subject[] = [
  { benchmark: 'locomo', root: locomoOne, targets: [''], options: {}, cli: ['--limit', '6'] },
  {
    benchmark: 'longmemeval',
    root: join(FIX, 'longmemeval/longmemeval_oracle.sample.json'),
    targets: [''],
    options: {},
    cli: ['--limit', '3'],
  },
  { benchmark: 'meme', root: join(FIX, 'meme/meme_fixture.json'), targets: [''], options: {}, cli: ['--limit', '3'] },
  {
    benchmark: 'memoryagentbench',
    root: join(FIX, 'memoryagentbench/Conflict_Resolution.sample.json'),
    targets: [''],
    options: { subset: 'all' },
    cli: ['-B', 'subset=all', '--limit', '3'],
  },
  {
    benchmark: 'personamem',
    root: join(FIX, 'personamem'),
    targets: ['benchmark/text/benchmark.csv', 'data/chat_history_32k/chat_history_250913_163134_persona0.json'],
    options: {},
    cli: ['--limit', '3'],
  },
  {
    benchmark: 'beam',
    root: join(FIX, 'beam/100K/5'),
    targets: ['chat_trunecated.json', 'probing_questions/probing_questions.json'],
    options: {},
    cli: ['--limit', '3'],
  },
];

/** Seeds per mutation with a random part (wrong type, missing field, ...); byte-level ones need one. */
const SEEDS = Number(process.env.RAWRAG_FUZZ_SEEDS ?? 5);
let copies = 0;

/** A copy of the subject's data with `target` mutated; returns the --data path and the mutated file. */
function mutatedCopy(s: Subject, target: string, m: Mutation, seed: number): { data: string; file: string } | null {
  const dir = join(work, `c${copies++}`);
  mkdirSync(dir);
  const isFolder = statSync(s.root).isDirectory();
  // A folder keeps its last two names (BEAM reads the size from `100K/5`).
  const data = join(dir, isFolder ? s.root.split('/').slice(-2).join('/') : s.root.split('/').pop()!);
  cpSync(s.root, data, { recursive: true });
  const file = target ? join(data, target) : data;
  const before = readFileSync(file);
  let after: Buffer;
  try {
    after = m.apply(before, rngFor(`${s.benchmark}/${target}/${m.label}/${seed}`));
  } catch {
    return null; // a JSON mutation on a non-JSON file (the PersonaMem CSV)
  }
  writeFileSync(file, after);
  return { data, file };
}

interface Finding {
  what: string;
  problem: string;
}

async function check(
  s: Subject,
  target: string,
  m: Mutation,
  seed: number,
  findings: Finding[],
): Promise<'rejected' | 'accepted' | 'skipped'> {
  const copy = mutatedCopy(s, target, m, seed);
  if (!copy) return 'skipped';
  const what = `${s.benchmark} ${target || 'file'}: ${m.label} (seed ${seed})`;
  try {
    const ds = await getBenchmark(s.benchmark).load({ path: copy.data, options: s.options });
    if (m.expect === 'reject') findings.push({ what, problem: 'loaded, but the input is malformed' });
    // What the pipeline needs of a loaded dataset: unique ids (items are keyed by them), each
    // question's episode exists, every episode ingests.
    const episodes = new Map(ds.episodes.map((e) => [e.id, e]));
    if (episodes.size !== ds.episodes.length) findings.push({ what, problem: 'two episodes share an id' });
    if (new Set(ds.questions.map((q) => q.id)).size !== ds.questions.length) findings.push({ what, problem: 'two questions share an id' });
    for (const q of ds.questions) {
      const ep = episodes.get(q.episode);
      if (!ep) {
        findings.push({ what, problem: `question ${q.id} names episode ${q.episode}, which does not exist` });
        break;
      }
    }
    for (const ep of ds.episodes)
      ingest(ep, ep.turns.length, getBenchmark(s.benchmark).policy, { tokenizer: 'cl100k_base', size: 256, stride: 224 });
    return 'accepted';
  } catch (e) {
    if (!(e instanceof InputError)) {
      findings.push({ what, problem: `crashed (exit 3): ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}` });
    } else {
      if (m.expect === 'accept') findings.push({ what, problem: `refused good-but-odd input: ${e.message}` });
      const named = e.message.includes(copy.file) || e.message.includes(copy.data);
      if (!named) findings.push({ what, problem: `message does not name the file: ${e.message}` });
      if (!e.place && !/: (line \d+|byte \d+|\[\d+\])/.test(e.message))
        findings.push({ what, problem: `message names no place: ${e.message}` });
    }
    return 'rejected';
  }
}

describe('loaders under mutation (in-process)', () => {
  for (const s of SUBJECTS) {
    it(`${s.benchmark}: refuses with file and place, or loads something runnable; never crashes`, async () => {
      const findings: Finding[] = [];
      const tally = { rejected: 0, accepted: 0, skipped: 0 };
      for (const target of s.targets) {
        for (const m of MUTATIONS) {
          const seeds = /wrong type|missing|duplicated|empty collection|invalid UTF-8/.test(m.label) ? SEEDS : 1;
          for (let seed = 0; seed < seeds; seed++) tally[await check(s, target, m, seed, findings)]++;
        }
      }
      expect(findings, JSON.stringify(findings, null, 1)).toEqual([]);
      // The suite exercised both outcomes.
      expect(tally.rejected).toBeGreaterThan(3);
      expect(tally.accepted).toBeGreaterThan(0);
    }, 120_000);
  }
});

describe('loaders under mutation (the CLI, in this process)', () => {
  const env = { RAWRAG_CACHE_DIR: cacheWithWordVectors(join(work, 'cache')) };
  const byLabel = (label: string) => MUTATIONS.find((m) => m.label === label)!;
  for (const s of SUBJECTS) {
    it(`${s.benchmark}: odd input (BOM + special tokens) runs complete; truncated input exits 2 with nothing written`, async () => {
      const target = s.targets[s.targets.length - 1]!;
      const odd = mutatedCopy(s, target, byLabel('special-token text in every string'), 0)!;
      writeFileSync(odd.file, byLabel('UTF-8 BOM').apply(readFileSync(odd.file), rngFor('bom')));
      const out = join(work, `out-${s.benchmark}-odd`);
      const r = await rawragInProcess(
        ['run', s.benchmark, '--data', odd.data, '--retriever', 'local-lexical', ...s.cli, '--out', out, '--no-progress'],
        env,
      );
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.code).toBe(0);
      const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      expect(m.status).toBe('complete');
      expect(m.questions.errors).toBe(0);
      expect(m.questions.done).toBe(m.questions.selected);
      const items = readFileSync(join(out, 'items.jsonl'), 'utf8').trim().split('\n');
      expect(items).toHaveLength(m.questions.selected);

      const bad = mutatedCopy(s, target, byLabel('truncated at 50%'), 0)!;
      const badOut = join(work, `out-${s.benchmark}-bad`);
      const b = await rawragInProcess(['run', s.benchmark, '--data', bad.data, ...s.cli, '--out', badOut, '--no-progress'], env);
      expect(b.code).toBe(2);
      expect(b.stderr).toContain(target ? bad.file : bad.data);
      expect(b.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(existsSync(badOut)).toBe(false);
    }, 120_000);
  }
});
