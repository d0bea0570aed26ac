/**
 * `rawrag systems install NAME`: carries out a plug-in's InstallSpec (install.ts). A virtual
 * environment under RAWRAG_SYSTEMS_DIR/<system>/venv, the interpreter checked against the spec's
 * Python specifier, the pinned packages from the package index, then (for a library that is not on
 * the index) the checkout's own install steps run from inside the checkout, as its authors install
 * it, with its requirements file's impossible lines swapped as the spec says (each with its
 * reason). The checkout's commit is checked. What was installed is recorded in installed.json (and
 * a digest of `pip freeze`); pip's output goes to install.log beside it.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fromRoot } from '../../util/paths.js';
import { InputError } from '../../util/errors.js';
import { sha256Hex, writeJsonAtomic } from '../../util/fsx.js';
import type { InstallSpec } from '../../core/install-spec.js';
import { pythonVersionOf, satisfiesPython } from './python-version.js';
import { installedRecord, systemPaths, type InstalledRecord } from './systems-dir.js';

export interface InstallOptions {
  /** The interpreter the environment is made from (default: python3). */
  python?: string;
  /** The source checkout (default: RAWRAG_SOURCES/<folder>). */
  source?: string;
  /** Make the environment again even when one is there. */
  force?: boolean;
  dir: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/** The folder a spec's checkout is looked for in: --source, else RAWRAG_SOURCES/<folder or repository name>. */
export function checkoutOf(spec: InstallSpec, source: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (!spec.source) return null;
  if (source) return resolve(source);
  if (!env.RAWRAG_SOURCES) return null;
  return join(resolve(env.RAWRAG_SOURCES), spec.source.folder ?? basename(spec.source.repo));
}

/** Why this spec cannot be installed with these options (before anything is made), or null. */
export function installBlocker(name: string, spec: InstallSpec, opts: Pick<InstallOptions, 'python' | 'source' | 'env'>): string | null {
  if (spec.unavailable) return `${name} cannot be installed here: ${spec.unavailable}`;
  const python = opts.python ?? 'python3';
  const version = pythonVersionOf(python);
  if (!version) return `${name}: cannot run the interpreter '${python}' (give one with --python PATH)`;
  if (!satisfiesPython(version, spec.python))
    return `${name} needs Python ${spec.python}; '${python}' is ${version} (give another interpreter with --python PATH)`;
  if (spec.source) {
    const dir = checkoutOf(spec, opts.source, opts.env);
    const where = `${spec.source.repo} at ${spec.source.commit}`;
    if (!dir)
      return `${name} installs from a checkout of ${where}: give it with --source DIR (or set RAWRAG_SOURCES to a folder of checkouts)`;
    if (!existsSync(dir)) return `${name}: no checkout at ${dir} (a checkout of ${where}; --source DIR or RAWRAG_SOURCES)`;
    const head = gitHead(dir);
    if (head !== null && !head.startsWith(spec.source.commit) && !spec.source.commit.startsWith(head))
      return `${name}: the checkout ${dir} is at ${head.slice(0, 12)}, not the pinned ${spec.source.commit} (git -C ${dir} checkout ${spec.source.commit})`;
  }
  return null;
}

function gitHead(dir: string): string | null {
  if (!existsSync(join(dir, '.git'))) return null;
  const r = spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Runs a command with its output appended to the install log; throws with the log's tail when it fails. */
function step(cmd: string, args: readonly string[], o: { cwd?: string; logFile: string; env: NodeJS.ProcessEnv; what: string }): void {
  const fd = openSync(o.logFile, 'a');
  try {
    writeFileSync(fd, `\n$ ${cmd} ${args.join(' ')}${o.cwd ? `   (in ${o.cwd})` : ''}\n`);
    const r = spawnSync(cmd, args, { cwd: o.cwd, stdio: ['ignore', fd, fd], env: { ...o.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
    if (r.error || r.status !== 0) {
      const tail = readFileSync(o.logFile, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
      throw new InputError(`${o.what} failed (exit ${r.status ?? r.error?.message}); the end of ${o.logFile}:\n${tail}`);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A checkout step's arguments with its requirements file swapped for a copy without the spec's
 * impossible lines (`replace`: from → to, empty to = dropped), written beside the environment.
 */
function stepArgs(args: readonly string[], spec: InstallSpec, checkout: string, root: string): string[] {
  const replace = spec.source?.replace ?? [];
  const out = [...args];
  const r = out.indexOf('-r');
  if (r < 0 || !replace.length || out[r + 1] === undefined) return out;
  const file = isAbsolute(out[r + 1]!) ? out[r + 1]! : join(checkout, out[r + 1]!);
  const lines = readFileSync(file, 'utf8').split('\n');
  const kept = lines.flatMap((line) => {
    const hit = replace.find((x) => line.trim() === x.from.trim());
    if (!hit) return [line];
    return hit.to ? [hit.to] : [];
  });
  const copy = join(root, `requirements.${basename(file)}`);
  writeFileSync(
    copy,
    `# ${file} with these lines swapped (rawrag systems install):\n${replace.map((x) => `#   ${x.from} -> ${x.to || '(dropped)'}: ${x.why}\n`).join('')}${kept.join('\n')}`,
  );
  out[r + 1] = copy;
  return out;
}

/** Installs `name` as `spec` says; returns the record written. */
export function installSystem(name: string, spec: InstallSpec, opts: InstallOptions): InstalledRecord {
  const blocker = installBlocker(name, spec, opts);
  if (blocker) throw new InputError(blocker, { place: `rawrag systems install ${name}` });
  const python = opts.python ?? 'python3';
  const paths = systemPaths(name, opts.dir);
  mkdirSync(paths.root, { recursive: true });
  const logFile = join(paths.root, 'install.log');
  writeFileSync(logFile, `rawrag systems install ${name} (${new Date().toISOString()})\n`);
  const run = (cmd: string, args: readonly string[], what: string, cwd?: string) => {
    opts.log(`${what} ...`);
    step(cmd, args, { cwd, logFile, env: opts.env, what });
  };
  if (opts.force && existsSync(paths.venv)) rmSync(paths.venv, { recursive: true, force: true });
  rmSync(paths.record, { force: true });
  if (!existsSync(paths.python)) run(python, ['-m', 'venv', paths.venv], `making the environment ${paths.venv}`);
  // A pip of its own first, when the interpreter's cannot resolve the packages.
  if (spec.pip) run(paths.pip, ['install', spec.pip.version], `pip install ${spec.pip.version} (${spec.pip.why})`);
  const packages = [...(spec.packages ?? [])];
  // The library's own lock as pip constraints (a file in rawrag's folder), when its open-ended requirements no longer resolve to a working set.
  const constraints = spec.constraints ? ['-c', fromRoot(spec.constraints.file)] : [];
  if (packages.length)
    run(
      paths.pip,
      ['install', ...packages, ...constraints],
      `pip install ${packages.join(' ')}${spec.constraints ? ` -c ${spec.constraints.file}` : ''}`,
    );
  // A package whose declared requirements cannot install here goes in without them (`packages` carried them, swapped).
  const noDeps = [...(spec.noDeps?.packages ?? [])];
  if (noDeps.length) run(paths.pip, ['install', '--no-deps', ...noDeps], `pip install --no-deps ${noDeps.join(' ')} (${spec.noDeps!.why})`);
  const checkout = checkoutOf(spec, opts.source, opts.env);
  if (spec.source && checkout)
    for (const args of spec.source.steps) {
      const a = stepArgs(args, spec, checkout, paths.root);
      run(paths.pip, a, `pip ${a.join(' ')} (from ${checkout})`, checkout);
    }
  const freeze = spawnSync(paths.pip, ['freeze'], { encoding: 'utf8' }).stdout ?? '';
  const lib = spec.library.name.toLowerCase().replace(/[-_.]+/g, '[-_.]');
  const record: InstalledRecord = {
    system: name,
    library: spec.library,
    source:
      spec.source && checkout
        ? { kind: 'checkout', dir: checkout, commit: gitHead(checkout) ?? spec.source.commit, repo: spec.source.repo, packages }
        : { kind: 'index', packages: [...packages, ...noDeps] },
    python: { path: python, version: pythonVersionOf(paths.python) ?? 'unknown' },
    date: new Date().toISOString(),
    freeze_sha256: sha256Hex(freeze),
    freeze_library: freeze.split('\n').filter((l) => new RegExp(`^${lib}\\b`, 'i').test(l) || l.includes(spec.library.name)),
    notes: [...(spec.notes ?? [])],
  };
  writeJsonAtomic(paths.record, record);
  return record;
}

/** `installed.json` when the environment is there and was made for this spec's library version; else null. */
export function currentInstall(name: string, spec: InstallSpec, dir: string): InstalledRecord | null {
  const rec = installedRecord(name, dir);
  if (!rec || rec.library.version !== spec.library.version || rec.library.name !== spec.library.name) return null;
  return rec;
}
