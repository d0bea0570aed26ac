import type { Benchmark } from '../core/benchmark.js';
import { InputError } from '../util/errors.js';
import { locomo } from './locomo/index.js';
import { beam } from './beam/index.js';
import { longmemeval } from './longmemeval/index.js';
import { meme } from './meme/index.js';
import { personamem } from './personamem/index.js';
import { memoryagentbench } from './memoryagentbench/index.js';

/** Every benchmark the harness knows. Adding one = writing an adapter and listing it here. */
const BENCHMARKS: Benchmark[] = [locomo, longmemeval, beam, meme, personamem, memoryagentbench];

export function listBenchmarks(): Benchmark[] {
  return BENCHMARKS;
}

export function getBenchmark(name: string): Benchmark {
  const found = BENCHMARKS.find((b) => b.name === name.toLowerCase());
  if (!found) {
    throw new InputError(`unknown benchmark '${name}' (known: ${BENCHMARKS.map((b) => b.name).join(', ')})`, {
      place: 'benchmark argument',
    });
  }
  return found;
}
