#!/usr/bin/env node
// `npm run docs:examples`: runs every documented example command against the compiled dist/,
// writes its output to docs/examples/<name>.txt and copies that text into each docs block marked
// `<!-- example: <name> -->`, so the docs quote what the code prints today.
// tests/unit/docs-examples.test.ts checks that the docs quote these files verbatim and reruns the
// quick examples to check the files are not stale. `npm run docs:examples -- NAME...` runs a few.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const EXAMPLES_DIR = join(ROOT, 'docs', 'examples');

/**
 * Offline examples only (no keys, no network). `stderr: true` puts what the run printed on stderr
 * before its report, as a terminal shows it. `quick` examples (a few seconds) are rerun by the test.
 */
export const EXAMPLES = [
  { name: 'quick-start', args: ['run', 'locomo'], stderr: true },
  { name: 'run-limit', args: ['run', 'locomo', '--limit', '100', '--k', '5'], stderr: true, quick: true },
  { name: 'run-sample', args: ['run', 'locomo', '--retriever', 'local-lexical', '--sample', '100', '--seed', '1'], stderr: true, quick: true },
  { name: 'run-bad-ids', args: ['run', 'locomo', '--ids', 'docs/examples/my-ids.list'], stderr: true, quick: true },
  { name: 'judge-dry-run', args: ['judge', 'docs/examples/my-answers.jsonl', '--benchmark', 'locomo', '--system', 'my-memory', '--dry-run'], quick: true },
  { name: 'data-list', args: ['data', 'list'], quick: true },
  { name: 'data-pull-beam', args: ['data', 'pull', 'beam'], stderr: true, quick: true },
];

const MARKER = /<!-- example: ([a-z0-9-]+) -->\n```[a-z]*\n([\s\S]*?)```/g;

/** Runs one example as a user would and returns its text, with machine-specific paths put back as the user typed them. */
export function runExample(ex, { cacheDir } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'rawrag-docs-'));
  try {
    const args = [...ex.args];
    // Run directories go to a scratch folder (a stale results/ must not be resumed), then are named as the user would see them.
    const outAt = args.indexOf('--out');
    const shownOut = outAt >= 0 ? args[outAt + 1] : null;
    const out = join(scratch, 'run');
    if (args[0] === 'run') {
      if (outAt >= 0) args[outAt + 1] = out;
      else args.push('--out', out);
    }
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rawrag.js'), ...args, ...(args[0] === 'run' ? ['--no-progress'] : [])], {
      cwd: ROOT,
      encoding: 'utf8',
      // The cache holds the local retriever's word vectors (built once, ~15 s): the user's own unless given.
      env: { ...process.env, NO_COLOR: '1', ...(cacheDir ? { RAWRAG_CACHE_DIR: cacheDir } : {}), OPENAI_API_KEY: '', COHERE_API_KEY: '' },
      maxBuffer: 64 * 1024 * 1024,
    });
    let shownDir = shownOut;
    if (!shownDir && existsSync(join(out, 'manifest.json'))) shownDir = `results/${JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).run_id}`;
    const fix = (s) => s.split(out).join(shownDir ?? 'results/<run-id>').split(`${ROOT}/`).join('');
    const text = (ex.stderr ? fix(r.stderr) : '') + fix(r.stdout);
    const exit = r.status === 0 ? '' : `(exit code ${r.status})\n`;
    return `$ rawrag ${ex.args.join(' ')}\n${text}${exit}`;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Every `<!-- example: name -->` block in README.md and docs/*.md: file, name, quoted text. */
export function quotedExamples(files) {
  const out = [];
  for (const f of files) {
    const text = readFileSync(join(ROOT, f), 'utf8');
    for (const m of text.matchAll(MARKER)) out.push({ file: f, name: m[1], text: m[2] });
  }
  return out;
}

/** Replaces each marked block's text with the example file's. */
function syncDocs(files) {
  for (const f of files) {
    const path = join(ROOT, f);
    const text = readFileSync(path, 'utf8');
    const next = text.replace(MARKER, (whole, name) => {
      const file = join(EXAMPLES_DIR, `${name}.txt`);
      if (!existsSync(file)) throw new Error(`${f}: example '${name}' has no docs/examples/${name}.txt`);
      return `<!-- example: ${name} -->\n\`\`\`\n${readFileSync(file, 'utf8')}\`\`\``;
    });
    if (next !== text) {
      writeFileSync(path, next);
      console.log(`updated ${f}`);
    }
  }
}

export function docFiles() {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv.slice(2);
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  for (const ex of EXAMPLES) {
    if (only.length && !only.includes(ex.name)) continue;
    const t0 = Date.now();
    writeFileSync(join(EXAMPLES_DIR, `${ex.name}.txt`), runExample(ex));
    console.log(`docs/examples/${ex.name}.txt (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  syncDocs(docFiles());
}
