/**
 * The CLI run in this process (src/cli/main.ts `run`), its stdout and stderr captured: the same
 * commands and exit codes as bin/rawrag.js without spawning Node, for tests that talk to a loopback
 * server started in the same process. Environment variables are set for the call and restored.
 */
import { run } from '../../src/cli/main.js';

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function rawragInProcess(args: string[], env: Record<string, string | undefined> = {}): Promise<InProcessResult> {
  const saved = new Map(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await run(['node', 'rawrag', ...args]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
