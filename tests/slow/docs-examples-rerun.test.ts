/**
 * The docs cannot go stale (the quoting half: tests/unit/docs-examples.test.ts): the quick
 * examples, run again now (the CLI in this process), print exactly what docs/examples/ holds for
 * them (`npm run docs:examples` regenerates them all, running bin/rawrag.js). Here, in the slow
 * stage: it runs a dozen commands (50 s). Its own process (the slow project isolates files): run
 * after other files in one process, its examples did not print what their files hold.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error a plain .mjs script without type declarations
import { EXAMPLES, EXAMPLES_DIR, runExample } from '../../scripts/docs-examples.mjs';
import { rawragInProcess } from '../helpers/in-process.js';
import { cacheWithWordVectors } from '../helpers/test-cache.js';

type Example = { name: string; args: string[]; quick?: boolean };
const examples = EXAMPLES as Example[];

describe('documented example outputs', () => {
  it('the quick examples print today what their files hold', async () => {
    const cacheDir = cacheWithWordVectors();
    const cli = async (args: string[], vars: Record<string, string>) => {
      const r = await rawragInProcess(args, vars);
      return { status: r.code, stdout: r.stdout, stderr: r.stderr };
    };
    for (const ex of examples.filter((e) => e.quick)) {
      expect(await runExample(ex, { cacheDir, cli }), `docs/examples/${ex.name}.txt is stale (run npm run docs:examples)`).toBe(
        readFileSync(join(EXAMPLES_DIR, `${ex.name}.txt`), 'utf8'),
      );
    }
  }, 180_000);
});
