/**
 * The LongMemEval release files and where they are published (spec §1.1). The official README
 * points at the cleaned HF dataset; the original release is the older HF dataset. Only
 * longmemeval_s_cleaned.json has a published checksum (an LFS pointer in the HF mirror
 * zhangdw/Anchor-benchmarks @ e7aa235); the others need `--allow-unpinned` to download.
 */
import type { DownloadFile } from '../../core/benchmark.js';
import { InputError } from '../../util/errors.js';

export const VARIANTS = ['s_cleaned', 'm_cleaned', 'oracle', 's', 'm', 'oracle_original'] as const;
export type Variant = (typeof VARIANTS)[number];
export const DEFAULT_VARIANT: Variant = 's_cleaned';

const CLEANED = 'https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/main';
const ORIGINAL = 'https://huggingface.co/datasets/xiaowu0162/longmemeval/resolve/main';

/** File name of each variant (the oracle keeps its name in the cleaned repo). */
export const VARIANT_FILES: Record<Variant, { file: string; base: string; sha256: string | null; bytes?: number }> = {
  s_cleaned: {
    file: 'longmemeval_s_cleaned.json',
    base: CLEANED,
    sha256: 'd6f21ea9d60a0d56f34a05b609c79c88a451d2ae03597821ea3d5a9678c3a442',
    bytes: 277383467,
  },
  m_cleaned: { file: 'longmemeval_m_cleaned.json', base: CLEANED, sha256: null },
  oracle: { file: 'longmemeval_oracle.json', base: CLEANED, sha256: null },
  s: { file: 'longmemeval_s.json', base: ORIGINAL, sha256: null },
  m: { file: 'longmemeval_m.json', base: ORIGINAL, sha256: null },
  // Same name as the cleaned repo's oracle: stored in a subfolder so the two never overwrite each other.
  oracle_original: { file: 'original/longmemeval_oracle.json', base: ORIGINAL, sha256: null },
};

export function parseVariant(value: string | undefined, place = '-B variant'): Variant {
  const v = (value ?? DEFAULT_VARIANT).trim();
  if (!(VARIANTS as readonly string[]).includes(v)) {
    throw new InputError(`unknown LongMemEval variant '${v}' (known: ${VARIANTS.join(', ')})`, { place });
  }
  return v as Variant;
}

/** Relative to the project root. */
export const DATA_DIR = 'datasets/longmemeval';

export const DOWNLOADS: Record<string, DownloadFile[]> = Object.fromEntries(
  VARIANTS.map((v) => {
    const f = VARIANT_FILES[v];
    const name = f.file.split('/').pop()!;
    const entry: DownloadFile = { url: `${f.base}/${name}`, path: `${DATA_DIR}/${f.file}`, sha256: f.sha256 };
    if (f.bytes !== undefined) entry.bytes = f.bytes;
    return [v, [entry]];
  }),
);
