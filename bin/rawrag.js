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
const code = await run(process.argv);
// Interrupted: what was done is written; requests still in flight (left after the grace period) must
// not keep the process alive until they answer.
if (code === 130 || code === 143) process.exit(code);
// A failure reported on the way (stdout could not be written: exit 2) is not overwritten by success.
if (code !== 0 || !process.exitCode) process.exitCode = code;
