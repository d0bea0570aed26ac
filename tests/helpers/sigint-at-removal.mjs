// Preloaded into a CLI child (`node --import this bin/rawrag.js ...`) by
// tests/slow/grid-early-interrupt.test.ts: just before the process removes its N-th SIGINT listener
// (N from RAWRAG_TEST_SIGINT_AT_REMOVAL), it sends itself SIGINT. The signal is caught by the OS
// and waits for the event loop, so it is still pending while the listener goes: the worst moment
// of the race in issue 42, item 7 (a Ctrl-C in a command's last synchronous step before a swap of
// handlers), made deterministic. Nothing else changes.
const at = Number(process.env.RAWRAG_TEST_SIGINT_AT_REMOVAL);
const remove = process.removeListener.bind(process);
let n = 0;
const wrapped = function (event, listener) {
  if (event === 'SIGINT' && ++n === at) process.kill(process.pid, 'SIGINT');
  return remove(event, listener);
};
process.removeListener = wrapped;
process.off = wrapped;
