/**
 * Seeded mutations of real data files for the loader fuzz suite: byte-level (truncation, BOM,
 * invalid UTF-8) and JSON-level (wrong types, missing fields, duplicated elements, special-token
 * text, huge space-less text, empty collections). Deterministic: the same seed, the same files.
 */
import seedrandom from 'seedrandom';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = Array<string | number>;

export interface Mutation {
  /** What was done, for the failure message. */
  label: string;
  /** Malformed input (must be refused with exit 2) or merely odd (must load and run). */
  expect: 'reject' | 'either' | 'accept';
  apply(bytes: Buffer, rng: () => number): Buffer;
}

export function rngFor(seed: string): () => number {
  return seedrandom(seed);
}

function nodes(root: Json): Array<{ path: Path; value: Json }> {
  const out: Array<{ path: Path; value: Json }> = [];
  const walk = (v: Json, path: Path) => {
    out.push({ path, value: v });
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(root, []);
  return out;
}

function get(root: Json, path: Path): Json {
  let v: any = root;
  for (const p of path) v = v[p];
  return v;
}

function set(root: Json, path: Path, value: Json | undefined): void {
  const parent: any = get(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else parent[key] = value;
}

/** A node picked with a bias toward the structure (shallow nodes) half of the time. */
function pick<T extends { path: Path }>(list: T[], rng: () => number): T | undefined {
  if (list.length === 0) return undefined;
  if (rng() < 0.5) {
    const shallow = list.filter((n) => n.path.length > 0 && n.path.length <= 4);
    if (shallow.length) return shallow[Math.floor(rng() * shallow.length)];
  }
  return list[Math.floor(rng() * list.length)];
}

function jsonMutation(label: string, expect: Mutation['expect'], edit: (root: Json, rng: () => number) => void): Mutation {
  return {
    label,
    expect,
    apply(bytes, rng) {
      const root = JSON.parse(bytes.toString('utf8')) as Json;
      edit(root, rng);
      return Buffer.from(JSON.stringify(root));
    },
  };
}

const WRONG_VALUES: Json[] = [42, -1, 1.5, null, true, 'x', '', [], {}, [1, 2], { a: 1 }];

export const MUTATIONS: Mutation[] = [
  { label: 'truncated at 10%', expect: 'reject', apply: (b) => b.subarray(0, Math.floor(b.length * 0.1)) },
  { label: 'truncated at 50%', expect: 'reject', apply: (b) => b.subarray(0, Math.floor(b.length * 0.5)) },
  {
    label: 'truncated one byte short',
    expect: 'either', // a final newline may be all that goes
    apply: (b) => b.subarray(0, b.length - 1),
  },
  { label: 'empty file', expect: 'reject', apply: () => Buffer.alloc(0) },
  { label: 'UTF-8 BOM', expect: 'accept', apply: (b) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]) },
  {
    label: 'an invalid UTF-8 byte inside a string',
    expect: 'reject',
    apply(b, rng) {
      const out = Buffer.from(b);
      // A letter inside the file's text (never a structural character).
      const letters: number[] = [];
      for (let i = 0; i < out.length; i++) if (out[i]! >= 0x61 && out[i]! <= 0x7a) letters.push(i);
      out[letters[Math.floor(rng() * letters.length)]!] = 0xff;
      return out;
    },
  },
  jsonMutation('special-token text in every string', 'accept', (root) => {
    // Prose only (it has spaces): ids, dates and enum values keep their form.
    for (const n of nodes(root))
      if (typeof n.value === 'string' && n.path.length && /\S+ \S+ \S+/.test(n.value))
        set(root, n.path, `${n.value} <|endoftext|><|fim_prefix|>`);
  }),
  jsonMutation('huge space-less text in the longest string', 'either', (root) => {
    const strings = nodes(root).filter((n) => typeof n.value === 'string' && n.path.length);
    const longest = strings.sort((a, b) => (b.value as string).length - (a.value as string).length)[0];
    if (longest) set(root, longest.path, 'z'.repeat(200_000));
  }),
  jsonMutation('a value of the wrong type', 'either', (root, rng) => {
    const n = pick(nodes(root), rng);
    if (n && n.path.length) set(root, n.path, WRONG_VALUES[Math.floor(rng() * WRONG_VALUES.length)]!);
  }),
  jsonMutation('a missing field', 'either', (root, rng) => {
    const n = pick(
      nodes(root).filter((x) => x.path.length && typeof x.path[x.path.length - 1] === 'string'),
      rng,
    );
    if (n) set(root, n.path, undefined);
  }),
  jsonMutation('a duplicated element', 'either', (root, rng) => {
    const n = pick(
      nodes(root).filter((x) => Array.isArray(x.value) && (x.value as Json[]).length > 0),
      rng,
    );
    if (n) (n.value as Json[]).push(JSON.parse(JSON.stringify((n.value as Json[])[0])));
  }),
  jsonMutation('an empty collection', 'either', (root, rng) => {
    const n = pick(
      nodes(root).filter((x) => (Array.isArray(x.value) || (x.value && typeof x.value === 'object')) && x.path.length),
      rng,
    );
    if (n) set(root, n.path, Array.isArray(n.value) ? [] : {});
  }),
  jsonMutation('an empty top level', 'reject', (root) => {
    if (Array.isArray(root)) root.length = 0;
    else for (const k of Object.keys(root as object)) delete (root as Record<string, Json>)[k];
  }),
];
