/**
 * `npm run test:real` reports each opponent as ran or not run, with the reason (issue 40): the
 * reason comes from the plug-in's install data and this machine (tests/real/real-library.ts
 * notRunReason) — no install declared, cannot be installed here (and why), heavy unless
 * RAWRAG_REAL_HEAVY=1, no checkout in RAWRAG_SOURCES, an interpreter its specifier refuses — and
 * null (it runs) for a light library from the package index. python3 is this machine's (3.11).
 */
import { describe, expect, it } from 'vitest';
import { notRunReason } from '../real/real-library.js';
import { requirePython } from '../helpers/sidecar-peer.js';

requirePython();

describe('the real tier: why a library is not run', () => {
  const light = { PATH: process.env.PATH };

  it('a light library from the package index runs (Mem0); a plug-in with no install of its own says so', () => {
    expect(notRunReason('mem0', light)).toBeNull();
    expect(notRunReason('http', light)).toBe('its plug-in declares no install (stand-in only)');
  });

  it('a library that cannot be installed here: its reason, whatever the flags (MemMachine, memU: a newer Python)', () => {
    for (const env of [light, { ...light, RAWRAG_REAL_HEAVY: '1' }]) {
      expect(notRunReason('memmachine', env)).toMatch(/^cannot be installed here: memmachine-server 0\.4\.0 requires Python >= 3\.12/);
      expect(notRunReason('memu', env)).toMatch(/^cannot be installed here: memu-py 1\.5\.1 requires Python >= 3\.13/);
    }
  });

  it('heavy ones only with RAWRAG_REAL_HEAVY=1; a checkout-installed one names the checkout it needs', () => {
    expect(notRunReason('memoryos', light)).toMatch(/^heavy \(PyTorch .*\): RAWRAG_REAL_HEAVY=1 runs it$/);
    expect(notRunReason('recmem', light)).toMatch(
      /^recmem installs from a checkout of CaiusDai\/RecMem at a84252f6e5587fd4a8caac03ec9f6c732b7a7f35: give it with --source DIR \(or set RAWRAG_SOURCES/,
    );
    const heavy = { ...light, RAWRAG_REAL_HEAVY: '1', RAWRAG_SOURCES: '/nonexistent/sources' };
    expect(notRunReason('a-mem', heavy)).toMatch(
      /^a-mem: no checkout at \/nonexistent\/sources\/AgenticMemory \(a checkout of WujiangXu\/AgenticMemory/,
    );
  });
});
