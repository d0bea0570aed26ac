/**
 * Data warnings on stderr: the important ones (a checksum that does not match the release, a
 * partial release, a data variant in doubt) each on its own line on every run; the others as one
 * summary line (how many, the first, where the list is), every one on its own line with --verbose.
 * The full list is always in manifest.json (`dataset.warnings`), so nothing is lost by keeping the terminal short.
 */
import type { LoadWarning } from '../core/schema.js';

export function warningLines(source: string, warnings: LoadWarning[], verbose: boolean): string[] {
  const line = (w: LoadWarning) => `warning: ${source}: ${w.place}: ${w.message}`;
  if (verbose) return warnings.map(line);
  const important = warnings.filter((w) => w.important);
  const rest = warnings.filter((w) => !w.important);
  const out = important.map(line);
  // One warning is its own summary.
  if (rest.length === 1) out.push(line(rest[0]!));
  else if (rest.length > 1) {
    const first = rest[0]!;
    const what = important.length > 0 ? `${rest.length} more data warnings` : `${rest.length} data warnings`;
    out.push(
      `warning: ${source}: ${what} (first: ${first.place}: ${first.message}); --verbose lists them all (also in manifest.json, dataset.warnings)`,
    );
  }
  return out;
}
