// The page scripts (src/report/browser/, src/view/browser/) are TypeScript bundled at build time
// (scripts/build-browser.mjs) into dist/browser/; the report and rawrag view inline the bundles.
// These checks run without a browser: the bundles exist, compile as classic scripts, hold no
// module syntax, and are what the pages carry. tests/slow/report.test.ts and view.test.ts run them
// in Chromium when one is installed.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { inlineSafe, pageScript } from '../../../src/report/assets.js';
import { livePanel, liveScript } from '../../../src/view/live-client.js';
import { REPO } from '../../helpers/code-shape.js';

const ENTRIES = { report: 'src/report/browser/explorer.ts', live: 'src/view/browser/live.ts' } as const;

describe('page scripts bundled from TypeScript', () => {
  for (const [name, entry] of Object.entries(ENTRIES) as Array<[keyof typeof ENTRIES, string]>) {
    it(`${name}: dist/browser/${name}.js is built from ${entry}, newer than it, and compiles as a classic script`, () => {
      const bundle = join(REPO, 'dist', 'browser', `${name}.js`);
      expect(statSync(bundle).mtimeMs).toBeGreaterThanOrEqual(statSync(join(REPO, entry)).mtimeMs);
      const text = pageScript(name);
      expect(text).toBe(readFileSync(bundle, 'utf8'));
      // A classic <script>: no import/export left, one function scope around everything.
      expect(() => new Script(text, { filename: `${name}.js` })).not.toThrow();
      expect(text).not.toMatch(/^\s*(import|export)\s/m);
      expect(text).toMatch(/^"use strict";\n\(\(\) => \{/);
      // Types are gone, the source's names are kept (readable in the page, not minified).
      expect(text).not.toMatch(/: HTMLElement\b/);
      expect(text).toContain(`// ${entry}`);
    });
  }

  it('the report script drives the explorer and exposes refresh; the live script reads its interval from the panel', () => {
    const report = pageScript('report');
    expect(report).toContain('document.getElementById("report-data")');
    expect(report).toContain('window.rawragReport = { refresh: start }');
    expect(report).toContain('"\\u2713 correct"'); // non-ASCII kept as escapes: the page stays ASCII-safe
    expect(liveScript()).toBe(pageScript('live'));
    expect(liveScript()).toContain('Number(panel.getAttribute("data-interval"))');
    expect(livePanel('v1', 'page', 1500.4)).toContain('data-version="v1" data-kind="page" data-interval="1500"');
  });

  it('inlining keeps a bundle intact apart from closing tags', () => {
    for (const name of Object.keys(ENTRIES) as Array<keyof typeof ENTRIES>) {
      const text = pageScript(name);
      expect(text).not.toMatch(/<\/script/i);
      expect(inlineSafe(text)).toBe(text);
    }
  });
});
