// A run against a memory service that is not running: `rawrag run locomo --system a-mem
// -S url=http://127.0.0.1:PORT --limit 5` (nothing listens on PORT) must fail within seconds with
// the command that starts it, not after minutes of retries (issue: it took ~3 minutes, then
// "5 of 5 items failed"). Through the real CLI (bin/rawrag.js), as a user runs it. Target:
//   dead URL: exit 2 with "is it running? start it with:" in < 30 s (measured ~1 s on 2 shared cores)
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TARGET_S = 30;

const s = createServer();
await new Promise((r) => s.listen(0, '127.0.0.1', r));
const port = s.address().port;
await new Promise((r) => s.close(r));

const tmp = mkdtempSync(join(tmpdir(), 'rawrag-bench-dead-'));
let failed = 0;
for (const system of ['a-mem', 'mem0']) {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      join(ROOT, 'bin', 'rawrag.js'),
      'run',
      'locomo',
      '--system',
      system,
      '-S',
      `url=http://127.0.0.1:${port}`,
      '--limit',
      '5',
      '--out',
      join(tmp, system),
    ],
    { encoding: 'utf8', env: { ...process.env, RAWRAG_CACHE_DIR: join(tmp, 'cache') } },
  );
  const secs = (performance.now() - t0) / 1000;
  const ok = r.status === 2 && /is it running\? start it with:/.test(r.stderr) && secs < TARGET_S;
  if (!ok) failed++;
  console.log(`dead URL (${system}): exit ${r.status} in ${secs.toFixed(1)} s (target < ${TARGET_S} s) ${ok ? 'PASS' : 'FAIL'}`);
  console.log(`  ${r.stderr.trim().split('\n').pop()}`);
}
rmSync(tmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
