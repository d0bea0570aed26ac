/**
 * A small two-person history for the memory tests: 8 weekly sessions of 2 turns. Caroline says
 * she lives in Paris in session 3 and that she moved to Berlin in session 7; session 2 repeats a
 * fact of session 1 (a duplicate); session 5's first extraction reply is malformed.
 */
import type { RunConfig } from '../../../src/config/schema.js';
import { RunConfigSchema } from '../../../src/systems/registry.js';
import { DEFAULT_POLICY } from '../../../src/core/policy.js';
import { getBenchmark } from '../../../src/benchmarks/registry.js';
import type { Episode, Question } from '../../../src/core/schema.js';
import type { SourceContext } from '../../../src/core/evidence-source.js';
import { ProviderSession } from '../../../src/providers/session.js';
import { ingest } from '../../../src/retrieval/chunk.js';
import type { IngestedEpisode } from '../../../src/core/ingested-episode.js';
import { FakeExtractor, item } from '../../helpers/fake-extractor.js';

const SESSIONS: Array<[string, string]> = [
  ['I adopted a dog named Rex last week!', 'That is lovely, Caroline.'],
  ['Rex is settling in well, my dog Rex is great.', 'Glad to hear it.'],
  ['I love my flat in Paris, the view is amazing.', 'Paris suits you.'],
  ['How was your week?', 'Busy, lots of work.'],
  ['Are you still painting?', 'Yes, I paint landscapes every Sunday.'],
  ['Nice weather today.', 'Indeed.'],
  ['Big news: I moved to Berlin for my new job!', 'Wow, Berlin! Congratulations.'],
  ['Berlin is cold but fun.', 'Stay warm.'],
];

export function memoryEpisode(id = 'conv-m'): Episode {
  const turns = SESSIONS.flatMap(([a, b], s) => {
    const date = `${1 + s * 7} May, 2023`.replace(/^(\d+) May/, (_, d) => (Number(d) > 31 ? `${Number(d) - 31} June` : `${d} May`));
    return [
      { id: `D${s + 1}:1`, session: String(s + 1), date, speaker: 'Caroline', text: a, captions: [] },
      { id: `D${s + 1}:2`, session: String(s + 1), date, speaker: 'Melanie', text: b, captions: [] },
    ];
  });
  return { id, turns, meta: { speakers: ['Caroline', 'Melanie'] } };
}

export const DOG = 'Caroline adopted a dog named Rex.';
export const PARIS = 'Caroline lives in Paris.';
export const BERLIN = 'Caroline moved to Berlin for a new job and lives there now.';

export function fixtureScript(): ConstructorParameters<typeof FakeExtractor>[0] {
  return {
    script: {
      'D1:1': JSON.stringify([
        item(DOG, ['Caroline', 'Rex'], ['D1:1'], { importance: 0.6 }),
        item('Melanie might like dogs.', ['Melanie'], ['D1:2'], { confidence: 0.4 }),
      ]),
      // The same fact again: entities spelled differently (aligned), same words.
      'D2:1':
        '```json\n' +
        JSON.stringify([item('caroline adopted a dog named Rex', ["Caroline's", 'rex'], ['D2:1'], { importance: 0.8 })]) +
        '\n```',
      'D3:1': JSON.stringify([item(PARIS, ['Caroline', 'Paris'], ['D3:1'], { attribute: 'caroline.home_city', importance: 0.7 })]),
      'D4:1': '[]',
      'D5:1': (attempt) =>
        attempt === 1
          ? 'Sure! Here are the memories: [{"content": "Melanie paints"'
          : JSON.stringify([item('Melanie paints landscapes every Sunday.', ['Melanie'], ['D5:2'])]),
      'D6:1': '[]',
      'D7:1': JSON.stringify([
        item(BERLIN, ['Caroline', 'Berlin'], ['D7:1'], { attribute: 'Caroline.home_city', updates: true, importance: 0.9 }),
      ]),
      'D8:1': '[]',
    },
  };
}

export function memoryConfigFor(extra: Record<string, unknown> = {}): RunConfig {
  return RunConfigSchema.parse({ benchmark: 'locomo', reader: { model: 'gpt-4o-mini' }, retrieval: { retriever: 'openai' }, ...extra });
}

export function sessionFor(url: string, cacheDir: string, env: Record<string, string> = {}): ProviderSession {
  return new ProviderSession({
    cacheDir,
    env: {
      OPENAI_API_KEY: 'sk-test-memory',
      OPENAI_BASE_URL: `${url}/v1`,
      COHERE_API_KEY: 'co-test',
      COHERE_BASE_URL: url,
      RAWRAG_RETRY_BASE_MS: '1',
      ...env,
    },
  });
}

export function ingested(ep: Episode, visible = ep.turns.length): IngestedEpisode {
  return ingest(ep, visible, DEFAULT_POLICY, { tokenizer: 'cl100k_base', size: 256, stride: 224 });
}

export function contextFor(cfg: RunConfig): SourceContext {
  return { cfg, benchmark: getBenchmark('locomo'), policy: DEFAULT_POLICY };
}

export function question(text: string, evidence: string[], extra: Partial<Question> = {}): Question {
  return {
    id: `q:${text}`,
    episode: 'conv-m',
    type: 'single-hop',
    typeId: 4,
    text,
    gold: '',
    acceptable: [],
    questionDate: null,
    evidence,
    options: null,
    visibleTurns: null,
    ...extra,
  };
}
