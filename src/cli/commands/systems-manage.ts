/**
 * `rawrag systems install NAME` and `rawrag systems check NAME`: a memory system's own library
 * installed as its plug-in declares (src/systems/memory-service/installer.ts), and a pre-flight of
 * the system (installed and started for you, or at `-S url=`) that a run would reach.
 */
import { printOut } from '../../util/stdout.js';
import { Command } from 'commander';
import { InputError, UsageError } from '../../util/errors.js';
import { getSystem, RunConfigSchema } from '../../systems/registry.js';
import { currentInstall, installSystem } from '../../systems/memory-service/installer.js';
import { systemPaths, systemsDir } from '../../systems/memory-service/systems-dir.js';
import { collectSystemOption, systemOptionLayer } from '../system-options.js';
import { mergeLayers } from '../../config/load.js';

function installCommand(): Command {
  return new Command('install')
    .description(
      "install a memory system's own library in a virtual environment of its own (RAWRAG_SYSTEMS_DIR), at the version its plug-in pins",
    )
    .argument('<name>', 'the system (--system value)')
    .option('--source <dir>', 'the source checkout, for a library that is not on the package index (default: RAWRAG_SOURCES/<repository>)')
    .option('--python <path>', 'the interpreter the environment is made from (default: python3)')
    .option('--force', 'make the environment again even when it is installed')
    .action((name: string, opts: { source?: string; python?: string; force?: boolean }) => {
      const system = getSystem(name);
      const spec = system.about?.install;
      if (!spec)
        throw new InputError(`system '${name}' has no library to install (rawrag systems ${name} says how to run it)`, {
          place: 'rawrag systems install',
        });
      const dir = systemsDir(process.env);
      const paths = systemPaths(name, dir);
      const say = (line: string) => process.stderr.write(line + '\n');
      let rec = opts.force ? null : currentInstall(name, spec, dir);
      if (rec) say(`${name}: already installed (${rec.date}); --force makes it again`);
      else rec = installSystem(name, spec, { ...opts, dir, env: process.env, log: say });
      const from =
        rec.source.kind === 'index'
          ? `the package index (${rec.source.packages.join(' ')})`
          : `${rec.source.repo}@${rec.source.commit.slice(0, 12)} (${rec.source.dir})`;
      const out = [
        `installed ${name}: ${rec.library.name} ${rec.library.version} from ${from}`,
        `  environment: ${paths.venv} (Python ${rec.python.version})`,
        `  pip freeze: ${rec.freeze_library.join(', ') || '(the library is not in pip freeze)'}; sha256 ${rec.freeze_sha256.slice(0, 16)}`,
        ...rec.notes.map((n) => `  note: ${n}`),
        `start it: 'rawrag run locomo --system ${name}' (no -S url=) starts it for you and stops it at the end`,
        `  by hand: ${paths.python} ${spec.script ?? '(its script)'} --port 8787 --state DIR   (then -S url=http://127.0.0.1:8787)`,
        `check it: rawrag systems check ${name}`,
      ];
      printOut(out.join('\n') + '\n');
    });
}

function checkCommand(): Command {
  return new Command('check')
    .description(
      'pre-flight: write a two-turn probe conversation, wait, search, delete; each step timed, then a verdict (exit 2 on failure)',
    )
    .argument('<name>', 'the system (--system value)')
    .option('-S, --system-option <key=value>', "the system's options, as for rawrag run (e.g. -S url=URL)", collectSystemOption)
    .option('--cache-dir <dir>', "rawrag's cache folder (where a started system keeps its state)")
    .action(async (name: string, opts: { systemOption?: string[]; cacheDir?: string }) => {
      const system = getSystem(name);
      if (!system.check) throw new UsageError(`system '${name}' is not a memory service: nothing to check (it runs inside rawrag)`);
      const layer = systemOptionLayer(system, opts.systemOption ?? []).layer;
      const cfg = RunConfigSchema.parse(mergeLayers({ benchmark: 'locomo', system: name }, layer));
      const env = opts.cacheDir ? { ...process.env, RAWRAG_CACHE_DIR: opts.cacheDir } : process.env;
      const t0 = performance.now();
      const line = (s: { step: string; ok: boolean; ms: number; detail: string }) =>
        printOut(`${s.ok ? 'ok  ' : 'FAIL'} ${s.step.padEnd(44)} ${(s.ms / 1000).toFixed(2).padStart(7)} s  ${s.detail}\n`);
      let ok = false;
      try {
        ok = await system.check(cfg, env, line);
      } catch (e) {
        line({ step: 'reach the service', ok: false, ms: Math.round(performance.now() - t0), detail: (e as Error).message });
      }
      const total = ((performance.now() - t0) / 1000).toFixed(1);
      printOut(ok ? `verdict: ${name} works (${total} s)\n` : `verdict: ${name} FAILED (${total} s)\n`);
      if (!ok) throw new InputError(`${name} failed the check (the FAIL line says where)`);
    });
}

/** The subcommands of `rawrag systems`. */
export function systemsSubcommands(): Command[] {
  return [installCommand(), checkCommand()];
}
