/** A grid's cells (src/grid/cells.ts): names, repeats, collisions, the set folder, shards. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { cellName, gridCells, shardOf, splitList } from '../../../src/grid/cells.js';
import { parseShard } from '../../../src/cli/run-grid.js';
import type { RunConfig } from '../../../src/config/schema.js';

const cfg = (over: Record<string, unknown>): RunConfig => RunConfigSchema.parse({ benchmark: 'locomo', ...over }) as RunConfig;

describe('grid cells', () => {
  it('a cell is named by its config file, benchmark, system, retriever and reader', () => {
    expect(cellName(cfg({ reader: { model: 'gpt-4o-mini' } }), null)).toBe('locomo-raw-rag-local-gpt-4o-mini');
    // From a config file: the file's name, then the axes the command line lists.
    expect(cellName(cfg({ system: 'agentic-memory' }), 'configs/paper/locomo-gpt-4o-mini.yaml')).toBe('locomo-gpt-4o-mini');
    expect(cellName(cfg({ system: 'agentic-memory' }), 'configs/paper/locomo-gpt-4o-mini.yaml', new Set(['system', 'reader']))).toBe(
      'locomo-gpt-4o-mini-agentic-memory-retrieval',
    );
    expect(splitList(' a, b,,c ')).toEqual(['a', 'b', 'c']);
  });

  it('a repeated config runs once; names that collide get the config hash; the set folder is --out', () => {
    const a = cfg({ reader: { model: 'gpt-4o-mini' } });
    const k5 = cfg({ reader: { model: 'gpt-4o-mini' }, retrieval: { k: 5 } });
    const { cells, setDir, repeats } = gridCells(
      [
        { cfg: a, configFile: null },
        { cfg: a, configFile: null },
        { cfg: k5, configFile: null },
      ],
      '/tmp/set',
    );
    expect(repeats).toEqual(['locomo-raw-rag-local-gpt-4o-mini is the same run as locomo-raw-rag-local-gpt-4o-mini: run once']);
    expect(cells.map((c) => c.name)).toEqual([
      expect.stringMatching(/^locomo-raw-rag-local-gpt-4o-mini-[0-9a-f]{8}$/),
      expect.stringMatching(/-[0-9a-f]{8}$/),
    ]);
    expect(cells[0]!.name).not.toBe(cells[1]!.name);
    expect(setDir).toBe('/tmp/set');
    expect(cells.map((c) => c.dir)).toEqual(cells.map((c) => join('/tmp/set', c.name)));
    // Without --out: results/set-<hash of the cells>, the same for the same cells.
    expect(gridCells([{ cfg: a, configFile: null }], null).setDir).toMatch(/results\/set-[0-9a-f]{10}$/);
    expect(gridCells([{ cfg: a, configFile: null }], null).setDir).toBe(gridCells([{ cfg: a, configFile: null }], null).setDir);
  });

  it('--shard I/N runs cells I, I+N, ...; every cell in exactly one shard', () => {
    const configs = ['a', 'b', 'c', 'd', 'e'].map((m) => ({ cfg: cfg({ reader: { model: m } }), configFile: null }));
    const { cells } = gridCells(configs, '/tmp/s');
    const shards = [1, 2, 3].map((i) => shardOf(cells, { index: i, count: 3 }).map((c) => c.cfg.reader.model));
    expect(shards).toEqual([['a', 'd'], ['b', 'e'], ['c']]);
    expect(shardOf(cells, null)).toHaveLength(5);
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '1/0', 'x', '1-2']) expect(() => parseShard(bad)).toThrow(/--shard: '.*' is not I\/N/);
  });
});
