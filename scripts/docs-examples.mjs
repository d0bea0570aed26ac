#!/usr/bin/env node
// `npm run docs:examples`: runs every documented example command against the compiled dist/,
// writes its output to docs/examples/<name>.txt and copies that text into each docs block marked
// `<!-- example: <name> -->`, so the docs quote what the code prints today.
// tests/unit/docs-examples.test.ts checks that the docs quote these files verbatim and reruns the
// quick examples to check the files are not stale. `npm run docs:examples -- NAME...` runs a few.
import { spawn } from 'node:child_process';
import { startLoopbackApi } from './lib/loopback-api.mjs';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const EXAMPLES_DIR = join(ROOT, 'docs', 'examples');

/**
 * An abridged output: the lines matching `lines`, and each table starting at a line matching
 * `blocks` (to the next blank line); what is left out shows as one `...` line.
 */
function excerpt({ lines = [], blocks = [] }) {
  return (text) => {
    const out = [];
    let inBlock = false;
    let dropped = false;
    for (const l of text.split('\n').slice(0, -1)) {
      if (!inBlock && blocks.some((b) => b.test(l))) inBlock = true;
      if (inBlock && l.trim() === '') inBlock = false;
      if (inBlock || lines.some((r) => r.test(l))) {
        if (dropped) out.push('...');
        dropped = false;
        out.push(l);
      } else dropped = true;
    }
    if (dropped) out.push('...');
    return out.join('\n') + '\n';
  };
}

/**
 * Offline examples only (no keys, no network). `stderr: true` puts what the run printed on stderr
 * before its report, as a terminal shows it. `quick` examples (a few seconds) are rerun by the test.
 */
export const EXAMPLES = [
  { name: 'quick-start', args: ['run', 'locomo'], stderr: true },
  { name: 'run-limit', args: ['run', 'locomo', '--limit', '100', '--k', '5'], stderr: true, quick: true },
  {
    name: 'run-sample',
    args: ['run', 'locomo', '--retriever', 'local-lexical', '--sample', '100', '--seed', '1'],
    stderr: true,
    quick: true,
  },
  { name: 'run-bad-ids', args: ['run', 'locomo', '--ids', 'docs/examples/my-ids.list'], stderr: true, quick: true },
  {
    name: 'judge-dry-run',
    args: ['judge', 'docs/examples/my-answers.jsonl', '--benchmark', 'locomo', '--system', 'my-memory', '--dry-run'],
    quick: true,
  },
  { name: 'data-list', args: ['data', 'list'], quick: true },
  {
    name: 'protocol-deviations',
    args: ['protocol', 'locomo', '--temperature', '0.7', '--max-tokens', '64', '--reader-prompt', 'docs/examples/my-reader-prompt.txt'],
    quick: true,
    abridge: excerpt({ lines: [/^\| (model|temperature|max_tokens|prompt files) /, /^DEVIATION/] }),
  },
  {
    name: 'longmemeval-oracle',
    args: ['run', 'longmemeval', '--data', 'tests/fixtures/longmemeval/longmemeval_oracle.sample.json'],
    stderr: true,
    quick: true,
    abridge: excerpt({ lines: [/^warning/, /^RAW-RAG/], blocks: [/^LongMemEval retrieval/] }),
  },
  {
    name: 'memoryagentbench-cr',
    args: [
      'run',
      'memoryagentbench',
      '--data',
      'tests/fixtures/memoryagentbench/Conflict_Resolution.sample.json',
      '-B',
      'subset=all',
      '--out',
      'results/mab',
    ],
    stderr: true,
    quick: true,
    abridge: excerpt({ lines: [/^warning/, /^RAW-RAG/, /^mean evidence tokens/] }),
  },
  { name: 'models-dry-run', args: ['run', 'locomo', '--dry-run', '--retriever', 'openai', '--reader', 'gpt-4o-mini'], quick: true },
  {
    name: 'models-loopback-first',
    args: ['run', 'locomo', '--retriever', 'openai', '--reader', 'gpt-4o-mini', '--limit', '20'],
    loopback: true,
    quick: true,
  },
  {
    name: 'models-loopback-cached',
    args: ['run', 'locomo', '--retriever', 'openai', '--reader', 'gpt-4o-mini', '--limit', '20'],
    loopback: true,
    runs: 2,
    quick: true,
  },
  { name: 'data-pull-beam', args: ['data', 'pull', 'beam'], stderr: true, quick: true },
  { name: 'calibrate-dry-run', args: ['calibrate-judge', 'locomo', '--dry-run'], quick: true },
  {
    name: 'calibrate-loopback',
    args: ['calibrate-judge', 'locomo', '--limit', '60'],
    loopback: true,
    quick: true,
  },
  {
    name: 'gold-audited',
    args: ['run', 'locomo', '-B', 'gold=audited'],
    stderr: true,
    abridge: excerpt({ lines: [/^RAW-RAG/], blocks: [/^Gold: /] }),
  },
  {
    name: 'mem0-dry-run',
    args: ['run', 'locomo', '--system', 'mem0', '-S', 'url=http://localhost:8888', '--reader', 'gpt-4o-mini', '--dry-run'],
  },
  {
    name: 'grid-loopback',
    args: [
      'run',
      'locomo,longmemeval',
      '--reader',
      'gpt-4o-mini,gpt-4.1-mini',
      '--limit',
      '40',
      '--data',
      'longmemeval=tests/fixtures/longmemeval/longmemeval_oracle.sample.json',
      '--parallel-cells',
      '1',
      '--out',
      'results/grid1',
    ],
    loopback: true,
    quick: true,
  },
  {
    name: 'max-cost-refused',
    args: ['run', 'locomo', '--reader', 'gpt-4o-mini', '--limit', '200', '--max-cost', '0.02'],
    loopback: true,
    stderr: true,
    quick: true,
  },
  {
    name: 'judge-none',
    args: ['run', 'locomo', '--reader', 'gpt-4o-mini', '--judge', 'none', '--limit', '20'],
    loopback: true,
    quick: true,
    abridge: excerpt({ lines: [/^RAW-RAG/, /^NOTE: no judge/, /^run directory/], blocks: [/^\| type +\| +id \|/] }),
  },
  {
    name: 'epochs',
    args: ['run', 'locomo', '--reader', 'gpt-4o-mini', '--epochs', '3', '--limit', '20'],
    loopback: true,
    stderr: true,
    quick: true,
    abridge: excerpt({ lines: [/^note: 3 epochs/, /^RAW-RAG/, /^epochs/, /^judge runs/] }),
  },
  {
    name: 'oracle-raw',
    args: ['run', 'locomo', '--system', 'store-oracle', '-S', 'store=raw'],
    quick: true,
    abridge: excerpt({ lines: [/^store-oracle/, /^\| overall/, /^mean evidence tokens/, /^store oracle:/] }),
  },
  {
    // No keys and only the bundled data: every run is planned and priced, and skipped with why.
    name: 'paper-run-dry-run',
    args: ['paper', 'results/none-yet', '--run', '--dry-run', '--no-progress'],
    quick: true,
  },
  {
    name: 'import-evermemos',
    args: ['import', 'evermemos', 'docs/examples/eval_results.json', '--benchmark', 'locomo', '--out', 'results/evermemos-import'],
    quick: true,
  },
];

const MARKER = /<!-- example: ([a-z0-9-]+) -->\n```[a-z]*\n([\s\S]*?)```/g;

/** The port shown for the loopback peer in documented commands and outputs (the real one is free-picked). */
const SHOWN_PORT = 8765;

/** bin/rawrag.js in a child process, with `vars` over this process's environment. */
function spawnCli(args, vars) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'rawrag.js'), ...args], { cwd: ROOT, env: { ...process.env, ...vars } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/**
 * Runs one example as a user would and returns its text, with machine-specific paths put back as
 * the user typed them. `loopback` examples talk to a loopback OpenAI/Cohere peer
 * (scripts/lib/loopback-api.mjs) through the base-URL flags shown in the command; `runs: 2` runs
 * the command twice against one cache (fresh run directories) and shows the second. `cli` runs
 * the command (default: bin/rawrag.js in a child process, from the project folder, with `vars`
 * over this process's environment) and returns its exit status, stdout and stderr.
 */
export async function runExample(ex, { cacheDir, cli = spawnCli } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'rawrag-docs-'));
  const api = ex.loopback ? await startLoopbackApi() : null;
  try {
    const peer = (url) => [
      '--reader-base-url',
      `${url}/v1`,
      '--judge-base-url',
      `${url}/v1`,
      '--embed-base-url',
      `${url}/v1`,
      '--rerank-base-url',
      url,
    ];
    const shownArgs = api ? [...ex.args, ...peer(`http://127.0.0.1:${SHOWN_PORT}`)] : ex.args;
    // The cache holds the local retriever's word vectors (built once, ~15 s): the user's own unless
    // given; loopback replies never go to the user's cache.
    const cache = api ? join(scratch, 'cache') : cacheDir;
    const vars = {
      NO_COLOR: '1',
      ...(cache ? { RAWRAG_CACHE_DIR: cache } : {}),
      OPENAI_API_KEY: api ? 'sk-docs-loopback' : '',
      COHERE_API_KEY: api ? 'co-docs-loopback' : '',
    };
    let last;
    let out;
    let shownOut;
    for (let i = 0; i < (ex.runs ?? 1); i++) {
      const args = [...ex.args, ...(api ? peer(api.url) : [])];
      // Run directories go to a scratch folder (a stale results/ must not be resumed, and the
      // project folder gets nothing written into it), then are named as the user would see them.
      const outAt = args.indexOf('--out');
      shownOut = outAt >= 0 ? args[outAt + 1] : null;
      out = join(scratch, `run${i}`);
      if (outAt >= 0) args[outAt + 1] = out;
      if (args[0] === 'run' || args[0] === 'calibrate-judge') {
        if (outAt < 0) args.push('--out', out);
        args.push('--no-progress');
      }
      last = await cli(args, vars);
    }
    let shownDir = shownOut;
    if (!shownDir && existsSync(join(out, 'manifest.json')))
      shownDir = `results/${JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).run_id}`;
    const fix = (s) => {
      let t = s
        .split(out)
        .join(shownDir ?? 'results/<run-id>')
        .split(`${ROOT}/`)
        .join('');
      if (api) t = t.split(new URL(api.url).host).join(`127.0.0.1:${SHOWN_PORT}`);
      return t;
    };
    const full = (ex.stderr ? fix(last.stderr) : '') + fix(last.stdout);
    const text = ex.abridge ? ex.abridge(full) : full;
    const exit = last.status === 0 ? '' : `(exit code ${last.status})\n`;
    return `$ rawrag ${shownArgs.join(' ')}\n${text}${exit}`;
  } finally {
    await api?.close();
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
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const only = process.argv.slice(2);
  mkdirSync(EXAMPLES_DIR, { recursive: true });
  for (const ex of EXAMPLES) {
    if (only.length && !only.includes(ex.name)) continue;
    const t0 = Date.now();
    writeFileSync(join(EXAMPLES_DIR, `${ex.name}.txt`), await runExample(ex));
    console.log(`docs/examples/${ex.name}.txt (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  }
  syncDocs(docFiles());
}
