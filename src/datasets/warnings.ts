/**
 * Data warnings on stderr: one summary line by default (what kinds, how many, where the list is),
 * every warning on its own line with --verbose. The full list is always in manifest.json
 * (`dataset.warnings`), so nothing is lost by keeping the terminal short.
 */
import type { LoadWarning } from './schema.js';

/** How many warnings of each kind: the message with quoted ids and numbers blanked. */
function kindOf(message: string): string {
  return message.replace(/'[^']*'/g, "'…'").replace(/\d+/g, 'N');
}

export function warningLines(source: string, warnings: LoadWarning[], verbose: boolean): string[] {
  if (warnings.length === 0) return [];
  // One warning is its own summary.
  if (verbose || warnings.length === 1) return warnings.map((w) => `warning: ${source}: ${w.place}: ${w.message}`);
  const kinds = new Map<string, number>();
  for (const w of warnings) kinds.set(kindOf(w.message), (kinds.get(kindOf(w.message)) ?? 0) + 1);
  const parts = [...kinds].map(([k, n]) => `${n} x ${k}`).join('; ');
  const s = warnings.length === 1 ? '' : 's';
  return [`warning: ${source}: ${warnings.length} data warning${s} (${parts}); the list: --verbose or manifest.json dataset.warnings`];
}
