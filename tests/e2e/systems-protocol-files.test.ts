/**
 * A system's vendor protocol is prose in its own folder (src/systems/<name>/protocol.md, copied to
 * dist/ by the build and read at run time, src/systems/protocol-file.ts): `rawrag systems NAME`
 * (the built CLI) prints every line of it, and a malformed file stops with the file and the line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProtocol } from '../../src/systems/protocol-file.js';
import { listSystems } from '../../src/systems/registry.js';
import { ROOT, rawrag, tempDir } from '../helpers/cli.js';
import { rawragInProcess } from '../helpers/in-process.js';

const SYSTEMS = join(ROOT, 'src', 'systems');
const withFile = readdirSync(SYSTEMS).filter((name) => existsSync(join(SYSTEMS, name, 'protocol.md')));

describe('vendor protocols as files beside their systems', () => {
  it('covers every system with a vendor protocol, each file copied into dist/ and read as the system shows it', () => {
    const withProtocol = listSystems().filter((s) => s.about?.protocol);
    expect(withProtocol.map((s) => s.name).filter((n) => !withFile.includes(n))).toEqual([]);
    for (const s of withProtocol)
      expect(s.about!.protocol, s.name).toEqual(parseProtocol(readFileSync(join(SYSTEMS, s.name, 'protocol.md'), 'utf8'), s.name));
    for (const name of withFile) expect(existsSync(join(ROOT, 'dist', 'systems', name, 'protocol.md')), name).toBe(true);
  });

  it.each(withFile)('rawrag systems %s prints its protocol.md: summary, every source, every deviation', async (name) => {
    const p = parseProtocol(readFileSync(join(SYSTEMS, name, 'protocol.md'), 'utf8'), `${name}/protocol.md`);
    expect(p.summary.length).toBeGreaterThan(40);
    expect(p.sources.length).toBeGreaterThan(0);
    const r = rawrag(['systems', name], { RAWRAG_CACHE_DIR: tempDir('rawrag-protocol-cache-') });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.replace(/\s+/g, ' ');
    expect(out).toContain('Vendor protocol (the default):');
    for (const line of [p.summary, ...p.sources, ...p.deviations]) expect(out).toContain(line.replace(/\s+/g, ' '));
    // The same text in the JSON listing (in this process: the built CLI's reading of the file is checked above).
    const json = JSON.parse(
      (await rawragInProcess(['systems', name, '--json'], { RAWRAG_CACHE_DIR: tempDir('rawrag-protocol-cache-') })).stdout,
    );
    expect(JSON.stringify(json)).toContain(JSON.stringify(p.deviations.at(-1) ?? p.summary).slice(1, -1));
  });

  it('a malformed protocol file stops with the file and the line', () => {
    const ok = '# x\n\n## Summary\n\nwhat the vendor does\n\n## Sources\n\n- a@1 f.py\n\n## Deviations\n\n- none taken\n';
    expect(parseProtocol(ok, 'p.md')).toEqual({ summary: 'what the vendor does', sources: ['a@1 f.py'], deviations: ['none taken'] });
    expect(() => parseProtocol(ok.replace('## Sources', '## Follows'), 'p.md')).toThrow(
      /^p\.md: line 7: expected the heading "## Sources"/,
    );
    expect(() => parseProtocol(ok.replace('- a@1 f.py', 'a@1 f.py'), 'p.md')).toThrow(/^p\.md: line 9: a Sources item is one line/);
    expect(() => parseProtocol(ok.replace(/## Deviations[\s\S]*/, ''), 'p.md')).toThrow(/^p\.md: needs the sections/);
  });
});
