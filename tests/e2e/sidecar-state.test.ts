/**
 * Issue 40, item 10: a sidecar started without --state keeps its state under rawrag's cache
 * (`<cache>/sidecars/<system>`, the folder a sidecar rawrag starts for you uses), never in the
 * folder it was started from; the start commands `rawrag systems` shows name no folder of the
 * current directory. The sidecar runs in front of its library's stand-in (tests/fixtures/sidecars/).
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, tempDir } from '../helpers/cli.js';
import { requirePython } from '../helpers/sidecar-peer.js';
import { getSystem } from '../../src/systems/registry.js';

const SIDECARS = ['simplemem', 'a-mem', 'recmem', 'memoryos', 'nemori', 'emem'];

/** The first line a sidecar prints, started in `cwd` with `env` and no --state. */
async function firstLine(system: string, cwd: string, env: Record<string, string>): Promise<string> {
  const child = spawn('python3', [join(ROOT, 'integrations', 'sidecars', `${system}.py`), '--port', '0'], {
    cwd,
    env: { ...process.env, PYTHONPATH: join(ROOT, 'tests', 'fixtures', 'sidecars'), PYTHONUNBUFFERED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  try {
    return await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sidecar ${system} exited (${code}):\n${stderr}`)));
    });
  } finally {
    child.kill('SIGTERM');
  }
}

describe('a sidecar without --state', () => {
  it('keeps its state under rawrag cache (RAWRAG_CACHE_DIR/sidecars/<system>), nothing in the folder it was started from', async () => {
    requirePython();
    const cwd = tempDir('rawrag-sidecar-cwd-');
    const cache = tempDir('rawrag-sidecar-cache-');
    const line = await firstLine('recmem', cwd, { RAWRAG_CACHE_DIR: cache, RAWRAG_STANDIN_DIR: join(cache, 'standin') });
    expect(line).toMatch(/^rawrag sidecar RecMem listening on http:\/\/127\.0\.0\.1:\d+ /);
    expect(line).toContain(`(state ${join(cache, 'sidecars', 'recmem')})`);
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(join(cache, 'sidecars', 'recmem'))).toContain('owners');
  });

  it('with no RAWRAG_CACHE_DIR: under $XDG_CACHE_HOME/rawrag, as rawrag resolves its cache', async () => {
    requirePython();
    const cwd = tempDir('rawrag-sidecar-cwd-');
    const xdg = tempDir('rawrag-sidecar-xdg-');
    const line = await firstLine('a-mem', cwd, { RAWRAG_CACHE_DIR: '', XDG_CACHE_HOME: xdg, RAWRAG_STANDIN_DIR: join(xdg, 'standin') });
    expect(line).toContain(`(state ${join(xdg, 'rawrag', 'sidecars', 'a-mem')})`);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("the start commands 'rawrag systems' shows put no state folder in the current directory", () => {
    for (const name of SIDECARS) {
      const start = getSystem(name).about!.start!.join('\n');
      expect(start, name).not.toMatch(/rawrag-sidecar-/);
      expect(start, name).toContain(`state: <rawrag cache>/sidecars/${name}`);
    }
  });
});
