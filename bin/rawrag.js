#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/ to dist/ by `npm ci` (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('rawrag: not built yet: run `npm ci` (or `npm run build`) in the project folder first\n');
  process.exit(2);
}
const { run } = await import(main);
process.exitCode = await run(process.argv);
