/**
 * Code shape: the folders of src/ stand on each other in floors (issue 44). README's Layout section
 * lists the floors in order, lowest first, as a numbered list of `src/<folder>/` names; a module
 * imports only from its own folder and from folders on lower floors (not from a higher floor, and
 * not from another folder of its own floor), so the folders have no import cycle. The folder names
 * are read from README, never written here: renaming a folder is one edit to README.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { importEdges, REPO, SRC, type ImportEdge } from '../../helpers/code-shape.js';

/** README's floors, lowest first: each a list of src/ folder names. Throws naming README's line when the list is malformed. */
function readFloors(readme: string): string[][] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.trim() === '## Layout');
  if (start < 0) throw new Error('README.md: no "## Layout" section');
  const floors: string[][] = [];
  for (let i = start + 1; i < lines.length && !lines[i]!.startsWith('## '); i++) {
    const m = /^(\d+)\.\s+(`src\/.*)$/.exec(lines[i]!);
    if (!m) continue;
    const place = `README.md:${i + 1}`;
    if (Number(m[1]) !== floors.length + 1) throw new Error(`${place}: floor numbered ${m[1]}, expected ${floors.length + 1}`);
    const names = m[2]!.split(',').map((item) => {
      const folder = /^`src\/([^/`]+)\/`$/.exec(item.trim());
      if (!folder) throw new Error(`${place}: "${item.trim()}" is not a folder written as \`src/<folder>/\``);
      return folder[1]!;
    });
    floors.push(names);
  }
  return floors;
}

/** The top-level src/ folder of a repository-relative path (`src/a/b.ts` -> `a`), or null for a file directly in src/. */
function folderOf(path: string): string | null {
  const parts = path.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1]! : null;
}

/** Each import that leaves its folder for one that is not on a lower floor, as `file:line imports ...`. */
function layerViolations(edges: ImportEdge[], floors: string[][]): string[] {
  const floorOf = new Map<string, number>();
  floors.forEach((names, i) => names.forEach((n) => floorOf.set(n, i + 1)));
  const out: string[] = [];
  for (const e of edges) {
    const from = folderOf(e.file);
    const to = folderOf(e.target);
    if (from !== null && from === to) continue;
    const fromFloor = from === null ? undefined : floorOf.get(from);
    const toFloor = to === null ? undefined : floorOf.get(to);
    const where = `${e.file}:${e.line} imports '${e.specifier}'`;
    if (fromFloor === undefined) out.push(`${where}: ${from === null ? 'a file directly in src/' : `src/${from}/`} is on no floor of README's list`);
    else if (toFloor === undefined) out.push(`${where}: ${to === null ? 'a file outside src/ folders' : `src/${to}/`} is on no floor of README's list`);
    else if (toFloor >= fromFloor)
      out.push(`${where}: src/${to}/ (floor ${toFloor}) is ${toFloor === fromFloor ? 'on the same floor as' : 'above'} src/${from}/ (floor ${fromFloor})`);
  }
  return out;
}

const readme = readFileSync(join(REPO, 'README.md'), 'utf8');

describe('layers of src/', () => {
  test("README's Layout section lists every folder of src/ once, on numbered floors", () => {
    const floors = readFloors(readme);
    expect(floors.length).toBeGreaterThanOrEqual(5);
    const listed = floors.flat();
    const twice = listed.filter((n, i) => listed.indexOf(n) !== i);
    expect(twice, 'folders listed on more than one floor').toEqual([]);
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    expect(
      folders.filter((f) => !listed.includes(f)).map((f) => `src/${f}/`),
      "folders of src/ missing from README's floors (README.md, ## Layout)",
    ).toEqual([]);
    expect(
      listed.filter((f) => !folders.includes(f)).map((f) => `src/${f}/`),
      "README's floors name folders src/ does not have",
    ).toEqual([]);
  });

  test('the list reader and the check can fail: a malformed list, an import upward, sideways or from an unlisted folder', () => {
    expect(() => readFloors('## Layout\n\n1. `src/a/`\n3. `src/b/`\n')).toThrow('README.md:4: floor numbered 3, expected 2');
    expect(() => readFloors('## Layout\n\n1. `src/a/`, src/b\n')).toThrow('README.md:3: "src/b" is not a folder');
    expect(readFloors('## Layout\n1. `src/a/`\n2. `src/b/`, `src/c/`\n## Next\n1. `src/d/`\n')).toEqual([['a'], ['b', 'c']]);
    const floors = [['a'], ['b', 'c']];
    const edge = (file: string, target: string): ImportEdge => ({ file, line: 7, specifier: '../x.js', target });
    expect(
      layerViolations(
        [
          edge('src/b/one.ts', 'src/a/two.ts'), // down: allowed
          edge('src/a/one.ts', 'src/a/sub/two.ts'), // within a folder: allowed
          edge('src/a/one.ts', 'src/b/two.ts'), // up
          edge('src/b/one.ts', 'src/c/two.ts'), // sideways
          edge('src/z/one.ts', 'src/a/two.ts'), // unlisted importer
          edge('src/b/one.ts', 'src/z/two.ts'), // unlisted target
        ],
        floors,
      ),
    ).toEqual([
      "src/a/one.ts:7 imports '../x.js': src/b/ (floor 2) is above src/a/ (floor 1)",
      "src/b/one.ts:7 imports '../x.js': src/c/ (floor 2) is on the same floor as src/b/ (floor 2)",
      "src/z/one.ts:7 imports '../x.js': src/z/ is on no floor of README's list",
      "src/b/one.ts:7 imports '../x.js': src/z/ is on no floor of README's list",
    ]);
  });

  test('no module of src/ imports from a folder on its own floor or a higher one', () => {
    const edges = importEdges();
    expect(edges.length).toBeGreaterThan(500);
    const wrong = layerViolations(edges, readFloors(readme));
    expect(wrong, `imports against README's floors (move the imported code down, or fix README's list):\n${wrong.join('\n')}`).toEqual([]);
  });
});
