#!/usr/bin/env node
// Bundles the page scripts (src/*/browser/*.ts, browser TypeScript) into dist/browser/*.js with
// esbuild: one self-contained classic script each, which the report and `rawrag view` inline into
// their pages as text (src/report/assets.ts reads them). Part of `npm run build` and of
// scripts/build-if-stale.mjs; type-checking is tsc's (tsconfig.browser.json), not esbuild's.
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Bundle name in dist/browser/ -> its entry module. */
export const PAGE_SCRIPTS = {
  report: 'src/report/browser/explorer.ts',
  live: 'src/view/browser/live.ts',
};

await Promise.all(
  Object.entries(PAGE_SCRIPTS).map(([name, entry]) =>
    build({
      entryPoints: [join(ROOT, entry)],
      outfile: join(ROOT, 'dist', 'browser', `${name}.js`),
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      charset: 'ascii',
      legalComments: 'none',
      logLevel: 'warning',
    }),
  ),
);

// The systems' vendor protocols are prose files beside their modules (src/systems/<name>/protocol.md,
// read at run time by src/systems/protocol-file.ts): copied next to the compiled modules.
{
  const { copyFileSync, existsSync, mkdirSync, readdirSync } = await import('node:fs');
  const systems = join(ROOT, 'src', 'systems');
  for (const name of readdirSync(systems)) {
    const from = join(systems, name, 'protocol.md');
    if (!existsSync(from)) continue;
    mkdirSync(join(ROOT, 'dist', 'systems', name), { recursive: true });
    copyFileSync(from, join(ROOT, 'dist', 'systems', name, 'protocol.md'));
  }
}
