/**
 * YAML parsing with the `yaml` package loaded on first use: an offline run without --config reads
 * no YAML file, and loading the package's modules cost every start ~30 ms.
 */
import { createRequire } from 'node:module';
import type * as YamlModule from 'yaml';

let yaml: typeof YamlModule | null = null;

export function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof YamlModule;
  return yaml.parse(text);
}
