#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/ to dist/ by `npm ci` (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Ctrl-C while the CLI's modules load: nothing has been written yet. The command's own handler
// (src/util/interrupt.ts) takes over in the same synchronous step as this one is removed.
const early = (signal, code) => () => {
  process.stderr.write(`rawrag: interrupted by ${signal} while starting: nothing was written\n`);
  process.exit(code);
};
const onInt = early('SIGINT', 130);
const onTerm = early('SIGTERM', 143);
process.on('SIGINT', onInt);
process.on('SIGTERM', onTerm);

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('rawrag: not built yet: run `npm ci` (or `npm run build`) in the project folder first\n');
  process.exit(2);
}
const { run } = await import(main);
process.off('SIGINT', onInt);
process.off('SIGTERM', onTerm);
process.exitCode = await run(process.argv);
