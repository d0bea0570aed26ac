// Preloaded into a CLI child (`node --import this bin/rawrag.js ...`) by tests/slow/signals.test.ts:
// each SIGINT listener the process installs is reported on fd 3 ("sigint 1", "sigint 2", ...), so
// a test sends its signal when a given handler is in place — the launcher's (1), the command's
// guard (2) — instead of guessing with a delay. Nothing else changes.
import { writeSync } from 'node:fs';

const on = process.on.bind(process);
let n = 0;
process.on = function (event, listener) {
  const r = on(event, listener);
  if (event === 'SIGINT') {
    try {
      writeSync(3, `sigint ${++n}\n`);
    } catch {
      // no fd 3: nobody is listening
    }
  }
  return r;
};
