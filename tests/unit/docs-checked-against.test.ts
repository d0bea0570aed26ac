/**
 * docs/memory-services.md says, per opponent, what it was checked against, as `rawrag systems` does
 * (issue 40): every opponent in src/systems/opponents.ts that runs here has its section
 * (`### Label (`--system NAME`)`) with a `**Checked against:**` paragraph that agrees with its
 * plug-in's `checked` data — a real library at the version and date the plug-in records, or
 * "stand-in only". Memora, which has no code, is documented as import only.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.js';
import { OTHER_OPPONENTS, PAPER_OPPONENTS } from '../../src/systems/opponents.js';
import { getSystem } from '../../src/systems/registry.js';
import { checkedOf } from '../../src/cli/commands/systems.js';

const DOC = readFileSync(join(ROOT, 'docs', 'memory-services.md'), 'utf8');

/** The section under `### … (`--system NAME`)`, up to the next heading of its level or above. */
function sectionOf(system: string): string | null {
  const lines = DOC.split('\n');
  const start = lines.findIndex((l) => /^### /.test(l) && l.includes(`(\`--system ${system}\`)`));
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The `**Checked against:**` paragraph of a section (up to its blank line). */
function checkedParagraph(section: string): string | null {
  const m = /\*\*Checked against:\*\*[\s\S]*?(?=\n\s*\n|$)/.exec(section);
  return m ? m[0].replace(/\s+/g, ' ') : null;
}

const opponents = [...PAPER_OPPONENTS, ...OTHER_OPPONENTS].filter((o) => o.system !== null);

describe('docs/memory-services.md: what each opponent was checked against', () => {
  it.each(opponents.map((o) => [o.name, o.system!]))(
    '%s (--system %s): a Checked against paragraph that agrees with the plug-in',
    (_name, system) => {
      const section = sectionOf(system);
      expect(section, `no '### … (\`--system ${system}\`)' section`).not.toBeNull();
      const para = checkedParagraph(section!);
      expect(para, `the ${system} section has no **Checked against:** paragraph`).not.toBeNull();
      const line = checkedOf(getSystem(system))!;
      const c = getSystem(system).about?.checked;
      if (c?.kind === 'real') {
        expect(line).toMatch(/^real library /);
        expect(para).toMatch(/real library/);
        for (const part of c.version.split(/[\s()]+/).filter(Boolean)) expect(para, `${system}: version ${part}`).toContain(part);
        expect(para, `${system}: the date`).toContain(c.date);
      } else {
        expect(line).toMatch(/^stand-in only: /);
        expect(para).toMatch(/stand-in only/);
      }
    },
  );

  it('Memora, with no public code, is import only', () => {
    expect(PAPER_OPPONENTS.find((o) => o.name === 'Memora')).toMatchObject({ system: null, how: 'import' });
    expect(DOC).toMatch(/Memora[^.]*has no public code: it stays \*\*import only\*\*/);
  });
});
