/**
 * The CLI run in this process (src/cli/main.ts `run`), its stdout and stderr captured: the same
 * commands and exit codes as bin/rawrag.js without spawning Node (each spawn costs ~0.4 s of CPU
 * before the command starts), for tests of what a command does rather than of how the process is
 * wired (exit status, signals, kill -9: those spawn bin/rawrag.js, tests/helpers/cli.ts). As in
 * a child, process.argv is the command line (retry hints and run locks read it) and NO_COLOR is
 * set; environment variables are set for the call, and the environment is put back as it was
 * afterwards (what the command set, e.g. --mem0-key's variable, leaves with it, as with a child).
 * `cwd`, when given, is the working directory for the call (relative paths on the command line).
 * Calls must not overlap (stdout, argv, the working directory and the environment are the
 * process's): await one before starting the next.
 */
import { run } from '../../src/cli/main.js';
import { BIN } from './cli.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

let busy = false;

export async function rawragInProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
  opts: { cwd?: string } = {},
): Promise<InProcessResult> {
  if (busy) throw new Error('rawragInProcess: a call is already running in this process (await it first)');
  busy = true;
  const cwd = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  const saved = { ...process.env };
  for (const [k, v] of Object.entries({ NO_COLOR: '1', ...env })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  const argv = process.argv;
  process.argv = [process.execPath, BIN, ...args];
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += text(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += text(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await run(process.argv);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.argv = argv;
    process.chdir(cwd);
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    busy = false;
  }
}
