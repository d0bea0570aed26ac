/**
 * A system's vendor protocol as prose in its own folder (src/systems/<name>/protocol.md, copied to
 * dist/ by the build), read at run time: `rawrag systems NAME` and each run's manifest show it.
 * The file has three sections, in this order, each item one line:
 *
 *   ## Summary        one paragraph: what the vendor's own evaluation does
 *   ## Sources        `- ` items: the upstream files it follows
 *   ## Deviations     `- ` items: each departure from the vendor's script, and why
 *
 * A file that does not have this shape stops with an error naming the file and the line.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { VendorProtocol } from '../core/system.js';
import { InputError } from '../util/errors.js';

const SECTIONS = ['Summary', 'Sources', 'Deviations'] as const;

/** Parses a protocol file's text; errors name `file` and the line. */
export function parseProtocol(text: string, file: string): VendorProtocol {
  const parts: Record<(typeof SECTIONS)[number], string[]> = { Summary: [], Sources: [], Deviations: [] };
  let section: (typeof SECTIONS)[number] | null = null;
  for (const [i, line] of text.split('\n').entries()) {
    const place = `line ${i + 1}`;
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      const want: (typeof SECTIONS)[number] | undefined = SECTIONS[section === null ? 0 : SECTIONS.indexOf(section) + 1];
      if (want === undefined || heading[1] !== want)
        throw new InputError(`expected the heading "## ${want ?? '(none: Deviations is the last)'}"`, { file, place });
      section = want;
    } else if (line.startsWith('# ') || line.trim() === '') {
      continue;
    } else if (section === null) {
      throw new InputError('text before "## Summary"', { file, place });
    } else if (section === 'Summary') {
      parts.Summary.push(line);
    } else if (line.startsWith('- ')) {
      parts[section].push(line.slice(2));
    } else {
      throw new InputError(`a ${section} item is one line starting with "- "`, { file, place });
    }
  }
  if (section !== 'Deviations')
    throw new InputError('needs the sections ## Summary, ## Sources and ## Deviations, in this order', { file });
  if (!parts.Summary.length) throw new InputError('an empty Summary', { file });
  return { summary: parts.Summary.join(' '), sources: parts.Sources, deviations: parts.Deviations };
}

/** The protocol.md beside a system's module (`import.meta.url` of its index). */
export function readProtocol(moduleUrl: string): VendorProtocol {
  const file = join(dirname(fileURLToPath(moduleUrl)), 'protocol.md');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read the system's protocol (${(e as Error).message}); rebuild with npm run build`, { file });
  }
  return parseProtocol(text, file);
}
