/** The run's memory settings: the config's `memory` section, or its defaults when the config has none. */
import { MemorySchema, type MemoryConfig, type RunConfig } from '../config/schema.js';

export function memoryConfig(cfg: RunConfig): MemoryConfig {
  return cfg.memory ?? MemorySchema.parse({});
}

/** The extraction model: memory.extractor, else the reader's model; null when neither is set. */
export function extractorModel(cfg: RunConfig): string | null {
  return memoryConfig(cfg).extractor ?? cfg.reader.model;
}
