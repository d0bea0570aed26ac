/**
 * The real-library tier's global setup: a fresh report file, and at the end one line per opponent
 * with a library to install: ran, or not run and why (a system without a tests/real file says so).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const ROOT = join(import.meta.dirname, '..', '..');
const FILE = join(tmpdir(), `rawrag-real-report-${process.pid}.jsonl`);

export default function setup(): () => Promise<void> {
  process.env.RAWRAG_REAL_REPORT = FILE;
  rmSync(FILE, { force: true });
  // Every file spawns bin/rawrag.js: dist/ must be current.
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'inherit' });
  return async () => {
    const { listSystems } = await import('../../src/systems/registry.js');
    const rows = existsSync(FILE)
      ? readFileSync(FILE, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { system: string; ran: boolean; detail: string })
      : [];
    const seen = new Set(rows.map((r) => r.system));
    const lines = ['', 'real-library tier (npm run test:real):'];
    for (const r of rows) lines.push(`  ${r.system.padEnd(12)} ${r.ran ? 'ran    ' : 'not run'}  ${r.detail}`);
    for (const s of listSystems())
      if ((s.about?.kind === 'sidecar' || s.about?.kind === 'service') && !seen.has(s.name))
        lines.push(`  ${s.name.padEnd(12)} not run  ${whyNot(s.name, s.about?.install)}`);
    process.stdout.write(lines.join('\n') + '\n');
    rmSync(FILE, { force: true });
  };
}

/** Why a system had no line of its own: it cannot install here, its file was not selected, or it has none. */
function whyNot(name: string, install: { unavailable?: string } | undefined): string {
  if (!install) return 'its plug-in declares no install (stand-in only)';
  if (install.unavailable) return `cannot be installed here: ${install.unavailable}`;
  return existsSync(join(ROOT, 'tests', 'real', `${name}.test.ts`))
    ? 'its file was not selected in this run'
    : `no tests/real/${name}.test.ts yet`;
}
