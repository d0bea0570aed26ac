/**
 * The environment every memory system rawrag starts for you gets: its LLM and embedding endpoints
 * pointed at the configured OpenAI-compatible endpoint under every name the libraries read, a
 * placeholder key where none is set (the user's own key passes through the environment, never a
 * file), model hubs and telemetry switched off, and tiktoken's encodings seeded so nothing is
 * downloaded at run time. A plug-in's InstallSpec `env` comes last and wins.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/fsx.js';
import type { InstallSpec } from '../../core/install-spec.js';

/** The key a library gets when the user set none (an endpoint that checks no key, e.g. a local one). */
export const PLACEHOLDER_KEY = 'sk-rawrag-no-key';

/** Names the libraries read their OpenAI-compatible base URL from (spec: each library's config reading). */
const BASE_URL_NAMES = ['OPENAI_BASE_URL', 'OPENAI_API_BASE', 'LLM_BASE_URL', 'EMBEDDING_BASE_URL', 'LLM_ENDPOINT', 'EMBEDDING_ENDPOINT'];
const KEY_NAMES = ['OPENAI_API_KEY', 'LLM_API_KEY', 'EMBEDDING_API_KEY'];

/** Offline and no-telemetry switches of the libraries and their dependencies. */
const SWITCHES: Record<string, string> = {
  HF_HUB_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  MEM0_TELEMETRY: 'False',
  GRAPHITI_TELEMETRY_ENABLED: 'false',
  TELEMETRY_DISABLED: '1',
  ANONYMIZED_TELEMETRY: 'False',
  POSTHOG_DISABLED: '1',
  DO_NOT_TRACK: '1',
  PYTHONUNBUFFERED: '1',
};

/** The OpenAI-compatible endpoint a started library is given: OPENAI_BASE_URL, else OPENAI_API_BASE, else the reader's. */
export function libraryEndpoint(env: NodeJS.ProcessEnv, readerBaseUrl?: string): string | null {
  return env.OPENAI_BASE_URL || env.OPENAI_API_BASE || readerBaseUrl || null;
}

export function offlineEnv(
  spec: InstallSpec,
  base: NodeJS.ProcessEnv,
  o: { endpoint: string | null; tiktokenDir: string | null },
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...SWITCHES };
  if (o.endpoint) for (const n of BASE_URL_NAMES) env[n] = o.endpoint;
  const key = base.OPENAI_API_KEY || PLACEHOLDER_KEY;
  for (const n of KEY_NAMES) env[n] = base[n] || key;
  if (o.tiktokenDir) env.TIKTOKEN_CACHE_DIR = o.tiktokenDir;
  return { ...env, ...(spec.env ?? {}) };
}

const TIKTOKEN_URL = 'https://openaipublic.blob.core.windows.net/encodings/';
/** tiktoken's expected sha256 of each file (it refuses a cached file that differs). */
const TIKTOKEN_SHA256: Record<string, string> = {
  cl100k_base: '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7',
  o200k_base: '446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d',
  // GPT-2's byte-pair ranks (tiktoken's `gpt2` encoding has the same ranks, from other files).
  r50k_base: '306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930',
};

const RANKS: Record<string, () => Promise<{ default: { bpe_ranks: string } }>> = {
  cl100k_base: () => import('js-tiktoken/ranks/cl100k_base'),
  o200k_base: () => import('js-tiktoken/ranks/o200k_base'),
  r50k_base: () => import('js-tiktoken/ranks/r50k_base'),
};

/**
 * tiktoken's cache folder with `encodings` in it, built from js-tiktoken's ranks (the same BPE
 * ranks, written in tiktoken's file format: `base64token rank` per line, byte-identical, checked
 * against tiktoken's own hash) under the file name tiktoken looks for (the SHA-1 of its URL).
 */
export async function seedTiktoken(dir: string, encodings: readonly string[]): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const name of encodings) {
    const want = TIKTOKEN_SHA256[name];
    if (!want) throw new Error(`tiktoken encoding '${name}' cannot be seeded (known: ${Object.keys(TIKTOKEN_SHA256).join(', ')})`);
    const file = join(dir, createHash('sha1').update(`${TIKTOKEN_URL}${name}.tiktoken`).digest('hex'));
    if (existsSync(file)) continue;
    const ranks = (await RANKS[name]!()).default.bpe_ranks;
    const rows: Array<[number, string]> = [];
    for (const line of ranks.split('\n')) {
      const [, offset, ...tokens] = line.split(' ');
      const first = Number.parseInt(offset!, 10);
      tokens.forEach((t, i) => rows.push([first + i, t]));
    }
    rows.sort((a, b) => a[0] - b[0]);
    const text = rows.map(([rank, token]) => `${token} ${rank}`).join('\n') + '\n';
    const got = createHash('sha256').update(text).digest('hex');
    if (got !== want) throw new Error(`tiktoken ${name}: the converted ranks differ from tiktoken's file (sha256 ${got})`);
    writeFileAtomic(file, text);
  }
  return dir;
}
