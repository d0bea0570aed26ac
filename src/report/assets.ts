/**
 * The plotting library, inlined: Vega, Vega-Lite and vega-embed's minified browser bundles are
 * read from node_modules when the report is written, so the page needs no CDN and no server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Package -> its minified browser bundle, next to the package's main entry (all three keep it in build/). */
const BUNDLES: Array<[pkg: string, file: string]> = [
  ['vega', 'vega.min.js'],
  ['vega-lite', 'vega-lite.min.js'],
  ['vega-embed', 'vega-embed.min.js'],
];

let cached: string | null = null;

/** The three bundles as inline <script> elements, in load order (vega-embed needs the other two). */
export function chartLibraryScripts(): string {
  if (cached !== null) return cached;
  cached = BUNDLES.map(([pkg, file]) => `<script data-lib="${pkg}">${inlineSafe(readBundle(pkg, file))}</script>`).join('\n');
  return cached;
}

export function chartLibraryVersions(): Record<string, string> {
  return Object.fromEntries(
    BUNDLES.map(([pkg]) => [pkg, (JSON.parse(readFileSync(join(packageDir(pkg), 'package.json'), 'utf8')) as { version: string }).version]),
  );
}

function packageDir(pkg: string): string {
  // The packages' "exports" hide build/*.min.js and package.json; their main entry lives in build/.
  return dirname(dirname(require.resolve(pkg)));
}

function readBundle(pkg: string, file: string): string {
  const path = join(packageDir(pkg), 'build', file);
  if (!existsSync(path)) throw new Error(`report: ${pkg}'s browser bundle is missing (${path}); reinstall with npm ci`);
  return readFileSync(path, 'utf8');
}

const pageScripts = new Map<string, string>();

/**
 * A page script (src/report/browser/, src/view/browser/) as bundled into dist/browser/ by
 * scripts/build-browser.mjs, to inline: `report` (charts and explorer) or `live` (rawrag view's panel).
 * Read from the package's dist/ both when running from dist/ and from src/ (tests): each sits one
 * folder below the package root's dist/ or src/.
 */
export function pageScript(name: 'report' | 'live'): string {
  const known = pageScripts.get(name);
  if (known !== undefined) return known;
  const path = fileURLToPath(new URL(`../../dist/browser/${name}.js`, import.meta.url));
  if (!existsSync(path)) throw new Error(`report: the page script ${name} is not built (${path} is missing); run npm run build`);
  const text = readFileSync(path, 'utf8');
  pageScripts.set(name, text);
  return text;
}

/**
 * Text safe inside an inline <script>: no closing tag, and no source-map comment (a browser with
 * developer tools open would try to fetch the map).
 */
export function inlineSafe(js: string): string {
  return js.replace(/\/\/# sourceMappingURL=\S+\s*$/m, '').replace(/<\/(script)/gi, '<\\/$1');
}
