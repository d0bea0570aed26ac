// The embedded retriever's sentence vectors are computed once per machine and stored
// (sentence-vectors.sqlite); a bench case that finds texts not yet stored pays that one-time cost.
// `measuredAfterPriming` reports that cost separately and measures a second run, so the targets
// judge the pipeline, not whether this machine has embedded these texts before.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { defaultCacheDir } = await import(join(ROOT, 'dist/retrieval/local/word-vectors.js'));
const { SENTENCE_VECTOR_FILE } = await import(join(ROOT, 'dist/retrieval/local/index.js'));

export const vectorStorePath = () => join(defaultCacheDir(), SENTENCE_VECTOR_FILE);

/** Sentence vectors in the store (0 when it does not exist yet). */
export function storedVectors() {
  const path = vectorStorePath();
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT count(*) AS n FROM responses WHERE role = 'embed-local'").get().n;
  } finally {
    db.close();
  }
}

/**
 * Runs `run()` (which returns figures with `seconds`); when it embedded new texts, says so with
 * its time and returns the figures of a second run instead.
 */
export function measuredAfterPriming(label, run, indent = '  ') {
  const before = storedVectors();
  const t0 = performance.now();
  const first = run();
  const added = storedVectors() - before;
  if (added === 0) return first;
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `${indent}${label}: this machine's first run embedded ${added} texts for the sentence encoder in ${s} s (one-time); the figures below are a second run's`,
  );
  return run();
}

/**
 * Runs `code` (an ES module printing its figures as JSON on its last line) in a child process
 * with the arguments `argsFor(i)` gives for its i-th run, measured after priming: the figures, or
 * `{ failed: stderr }`.
 */
export function childFiguresAfterPriming(label, code, argsFor) {
  let runs = 0;
  const once = () => {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code, ...argsFor(runs++)], {
      encoding: 'utf8',
      cwd: ROOT,
      maxBuffer: 1 << 26,
    });
    return child.status === 0 ? JSON.parse(child.stdout.trim().split('\n').pop()) : { failed: child.stderr };
  };
  return measuredAfterPriming(label, once, '');
}
