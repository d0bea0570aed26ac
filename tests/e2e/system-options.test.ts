/**
 * `-S key=value`: a system's own options, validated by the system's schema, errors naming `-S key`
 * (exit 1); keys refused as options; the old per-system flags refused as unknown; `rawrag systems`
 * lists every system's options from the same schema, and the paper's twelve opponents.
 */
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import type { RunConfig } from '../../src/config/schema.js';
import { configFromFlags } from '../../src/cli/options.js';
import { runCommand } from '../../src/cli/commands/run.js';
import { rawragInProcess } from '../helpers/in-process.js';
import { getSystem, listSystems } from '../../src/systems/registry.js';
import { checkRecordedSystemOptions } from '../../src/cli/system-options.js';

async function configOf(args: string[]): Promise<RunConfig> {
  let cfg: RunConfig | null = null;
  const cmd = runCommand().exitOverride();
  cmd.action((benchmark: string | undefined, _o: unknown, c: Command) => {
    cfg = configFromFlags(c, benchmark);
  });
  await cmd.parseAsync(args, { from: 'user' });
  return cfg!;
}

describe('-S key=value', () => {
  it("sets the chosen system's section, values read as YAML scalars; the old per-system flags are gone", async () => {
    const cfg = await configOf([
      'locomo',
      '--system',
      'mem0',
      '-S',
      'url=http://127.0.0.1:8888',
      '-S',
      'top_k=30',
      '-S',
      'owners=per-speaker',
      '-S',
      'batch=session',
    ]);
    expect(cfg.mem0).toMatchObject({ url: 'http://127.0.0.1:8888', top_k: 30, owners: 'per-speaker', batch: 'session' });
    // Issue 43 item 5: no legacy alias is left (rawrag is at 0.1.0): an old flag is an unknown option.
    for (const old of [
      ['--mem0-url', 'http://127.0.0.1:8888'],
      ['--memory-items', '3'],
      ['--categories', '1,2'],
      ['--concurrency-chat', '4'],
    ]) {
      const r = await rawragInProcess(['run', 'locomo', '--system', 'mem0', '--dry-run', ...old]);
      expect(r.code, old[0]).toBe(1);
      expect(r.stderr).toContain(`unknown option '${old[0]}'`);
    }
  });

  it('the last -S of a key wins', async () => {
    const cfg = await configOf(['locomo', '--system', 'mem0', '-S', 'top_k=30', '-S', 'top_k=7']);
    expect((cfg.mem0 as { top_k: number }).top_k).toBe(7);
  });

  it('errors name -S and the key: a wrong type, an unknown option (with the options it has), a key, a system without options', async () => {
    const bad = async (...args: string[]) => {
      const r = await rawragInProcess(['run', 'locomo', '--dry-run', ...args]);
      return { code: r.code, err: r.stderr };
    };
    let r = await bad('--system', 'mem0', '-S', 'top_k=many');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/-S top_k: /);
    r = await bad('--system', 'mem0', '-S', 'topk=3');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/-S topk: 'topk' is not an option of mem0 \(options: url, keyEnv, owners, top_k, batch/);
    r = await bad('--system', 'mem0', '-S', 'api_key=sk-secret-1234567890');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/-S api_key: keys are never given as options .* set MEM0_API_KEY in the environment/);
    expect(r.err).not.toContain('sk-secret-1234567890');
    r = await bad('-S', 'top_k=3');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/-S: system 'raw-rag' has no options/);
    r = await bad('--system', 'mem0', '-S', 'nokeyvalue');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/'nokeyvalue' is not key=value/);
  });
});

describe('-S on rawrag judge', () => {
  it('an answers file: refused (no system rawrag ran made those answers), exit 1, the help saying what -S checks', async () => {
    const r = await rawragInProcess(['judge', 'docs/examples/my-answers.jsonl', '--benchmark', 'locomo', '--dry-run', '-S', 'top_k=3']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/-S: an answers file brings its own answers.*--rejudge RUN_DIR/);
    const help = await rawragInProcess(['judge', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      "-S, --system-option <key=value> with --rejudge: the re-judged run's system options, checked",
    );
  });
});

describe('checkRecordedSystemOptions (rawrag judge --rejudge RUN -S ...)', () => {
  const mem0 = getSystem('mem0');
  const recorded = { mem0: { url: 'http://127.0.0.1:8888', top_k: 30 } };
  const check =
    (...pairs: string[]) =>
    () =>
      checkRecordedSystemOptions(mem0, recorded, pairs, 'RUN');

  it('passes the options the run recorded, its defaults included', () => {
    expect(check('top_k=30', 'url=http://127.0.0.1:8888', 'batch=2')).not.toThrow();
  });

  it('refuses another value, naming the recorded one', () => {
    expect(check('top_k=10')).toThrow(/-S top_k: RUN ran mem0 with top_k=30; a judge re-scores/);
  });

  it('blames an invalid value on its own -S key, not on the first one given', () => {
    expect(check('url=http://127.0.0.1:8888', 'top_k=-3')).toThrow(/^-S top_k: /);
  });

  it('refuses an option the system does not declare', () => {
    expect(check('depth=3')).toThrow(/-S depth: 'mem0' has no such option/);
  });
});

describe('rawrag systems', () => {
  it("lists every registered system with its options (type, default, description), and the paper's twelve opponents", async () => {
    const r = await rawragInProcess(['systems', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { systems: any[]; paper_opponents: any[] };
    expect(out.systems.map((s) => s.name)).toEqual(listSystems().map((s) => s.name));
    const mem0 = out.systems.find((s) => s.name === 'mem0');
    expect(mem0.label).toBe('Mem0');
    expect(mem0.kind).toBe('service');
    expect(mem0.options.find((o: any) => o.key === 'top_k')).toMatchObject({
      type: 'integer',
      default: 30,
      description: expect.stringMatching(/search/),
    });
    expect(mem0.options.find((o: any) => o.key === 'owners')).toMatchObject({ default: 'per-speaker' });
    // Mem0's own LoCoMo protocol, with its upstream files and rawrag's deviations.
    expect(mem0.protocol.summary).toMatch(/two owners per conversation, one per speaker/);
    expect(mem0.protocol.sources.join('\n')).toMatch(/evaluation\/src\/memzero\/add\.py/);
    expect(mem0.protocol.deviations.length).toBeGreaterThanOrEqual(4);
    expect(mem0.env.map((e: any) => e.name)).toContain('MEM0_API_KEY');
    expect(out.paper_opponents).toHaveLength(12);
    expect(out.paper_opponents.find((o: any) => o.name === 'Memora')).toMatchObject({ how: 'import', system: null, runnable: false });
    expect(out.paper_opponents.find((o: any) => o.name === 'Mem0')).toMatchObject({ how: 'service', runnable: true });
    // Beyond the twelve: each with what it was checked against (Zep: its open-source engine for real, its hosted API a stand-in).
    const zep = (out as any).other_opponents.find((o: any) => o.name === 'Zep');
    expect(zep).toMatchObject({ how: 'service', system: 'zep', runnable: true });
    expect(zep.checked).toMatch(/^real library graphiti-core .*stand-in only: hosted API/);
    expect((out as any).other_opponents.find((o: any) => o.name === 'Supermemory')).toMatchObject({
      runnable: true,
      checked: expect.stringMatching(/^stand-in only: hosted API/),
    });
    expect((out as any).other_opponents.find((o: any) => o.name === 'LangMem')).toMatchObject({
      how: 'sidecar',
      system: 'langmem',
      runnable: true,
      checked: expect.stringMatching(/^real library langmem .* at version 0\.0\.30, 2026-12-07/),
    });
    const langmem = out.systems.find((s) => s.name === 'langmem');
    expect(langmem.options.find((o: any) => o.key === 'mode')).toMatchObject({ default: 'agent' });
    expect((out as any).other_opponents.find((o: any) => o.name === 'Letta')).toMatchObject({
      how: 'service',
      system: 'letta',
      runnable: true,
    });
    const shown = await rawragInProcess(['systems']);
    expect(shown.stdout).toMatch(/Beyond the paper's twelve:\n\| opponent/);
    const one = await rawragInProcess(['systems', 'mem0']);
    expect(one.stdout).toMatch(/Options \(-S key=value; config section 'mem0:'\)/);
    expect(one.stdout).toMatch(/\| top_k +\| integer/);
  });
});
