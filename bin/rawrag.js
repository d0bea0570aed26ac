#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/ to dist/ by `npm ci` (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Ctrl-C while the CLI's modules load: nothing has been written yet. The command's own handler
// (src/util/interrupt.ts) takes over before this one is removed (see below).
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
// `run` installs the command's handler in its first synchronous step; only then does this one go.
// Removed first, the process would have no SIGINT listener for a moment: Node then closes its
// signal handle, and a signal that arrived while the modules were evaluated (caught by the OS,
// not yet dispatched by the event loop) would be dropped, and the command would run to its end
// (issue 42, item 7). With a listener always in place the pending signal reaches the new handler.
const running = run(process.argv);
process.off('SIGINT', onInt);
process.off('SIGTERM', onTerm);
const code = await running;
// From here to the process's end (the command's handler goes on the next turn of the event loop):
// a signal exits at once, and again a listener is in place before the previous one goes.
const late = (signal, exit) => () => {
  process.stderr.write(`rawrag: interrupted by ${signal} as the command ended: what it wrote stays as written\n`);
  process.exit(exit);
};
process.on('SIGINT', late('SIGINT', 130));
process.on('SIGTERM', late('SIGTERM', 143));
// Interrupted: what was done is written; requests still in flight (left after the grace period) must
// not keep the process alive until they answer.
if (code === 130 || code === 143) process.exit(code);
// A failure reported on the way (stdout could not be written: exit 2) is not overwritten by success.
if (code !== 0 || !process.exitCode) process.exitCode = code;
