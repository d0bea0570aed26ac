/**
 * Data warnings on stderr: one summary line by default (how many, the first, where the list is),
 * every warning on its own line with --verbose. The full list is always in manifest.json
 * (`dataset.warnings`), so nothing is lost by keeping the terminal short.
 */
import type { LoadWarning } from '../core/schema.js';

export function warningLines(source: string, warnings: LoadWarning[], verbose: boolean): string[] {
  if (warnings.length === 0) return [];
  // One warning is its own summary.
  if (verbose || warnings.length === 1) return warnings.map((w) => `warning: ${source}: ${w.place}: ${w.message}`);
  const first = warnings[0]!;
  return [`warning: ${source}: ${warnings.length} data warnings (first: ${first.place}: ${first.message}); --verbose lists them all (also in manifest.json, dataset.warnings)`];
}
