/**
 * The docs cannot go stale: every `<!-- example: NAME -->` block in README.md and docs/*.md is
 * the text of docs/examples/NAME.txt, and every example the script knows has its file and is
 * quoted (`npm run docs:examples` regenerates them all, running bin/rawrag.js). That the quick
 * examples, run again now, print what their files hold: tests/slow/docs-examples-rerun.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error a plain .mjs script without type declarations
import { EXAMPLES, EXAMPLES_DIR, docFiles, quotedExamples } from '../../scripts/docs-examples.mjs';

type Example = { name: string; args: string[]; quick?: boolean };
const examples = EXAMPLES as Example[];
const quoted = quotedExamples(docFiles()) as Array<{ file: string; name: string; text: string }>;

describe('documented example outputs', () => {
  it('every quoted block is its example file, verbatim', () => {
    expect(quoted.length).toBeGreaterThanOrEqual(examples.length);
    for (const q of quoted) {
      const file = join(EXAMPLES_DIR, `${q.name}.txt`);
      expect(existsSync(file), `${q.file} quotes '${q.name}', which has no docs/examples/${q.name}.txt`).toBe(true);
      expect(q.text, `${q.file}: block '${q.name}' differs from docs/examples/${q.name}.txt (run npm run docs:examples)`).toBe(
        readFileSync(file, 'utf8'),
      );
    }
  });

  it('every example has its file and is quoted somewhere; README and runs.md quote theirs', () => {
    for (const ex of examples) {
      expect(existsSync(join(EXAMPLES_DIR, `${ex.name}.txt`)), ex.name).toBe(true);
      expect(
        quoted.some((q) => q.name === ex.name),
        `${ex.name} is quoted nowhere`,
      ).toBe(true);
    }
    expect(quoted.filter((q) => q.file === 'README.md').map((q) => q.name)).toContain('quick-start');
    expect(quoted.filter((q) => q.file === 'docs/runs.md').length).toBeGreaterThanOrEqual(3);
  });

  it('no development paths (this machine, shared/) in the docs', () => {
    for (const f of docFiles() as string[]) {
      const text = readFileSync(join(EXAMPLES_DIR, '..', '..', f), 'utf8');
      expect(text.match(/\/(tmp|work)\/[\w./-]+|\.\.\/shared\/|shared\/specs\//g), f).toBeNull();
    }
  });
});
