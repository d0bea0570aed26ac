/**
 * The one schema every benchmark adapter maps its files to. Stages after loading see only this:
 * episodes (a history of turns) and questions asked against an episode. Benchmark differences
 * travel as data in the adapter's Policy, never as name checks in the pipeline.
 */
import { z } from 'zod';

export const TurnSchema = z.object({
  /** Unique within its episode; the id gold evidence refers to (LoCoMo `D1:3`, LongMemEval `<session>:<i>`). */
  id: z.string().min(1),
  /** Session the turn belongs to (turns are stored in chronological order across sessions). */
  session: z.string(),
  /** Date as the benchmark gives it; null when the data has none (serialised as `unknown`). */
  date: z.string().nullable(),
  speaker: z.string(),
  text: z.string(),
  /** Image captions (LoCoMo `blip_caption`): images enter the history as text. */
  captions: z.array(z.string()),
  /**
   * The data gives the caption but not the image itself (LoCoMo: `blip_caption` without `img_url`,
   * 316 turns). RAW-RAG keeps such captions, as the paper does; a system whose vendor loader adds a
   * caption only where `img_url` is present declares so (`about.captions: 'with-image'`).
   */
  captionWithoutImage: z.boolean().optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

export const EpisodeSchema = z.object({
  id: z.string().min(1),
  turns: z.array(TurnSchema),
  /** Free-form adapter facts (speaker names, source, ...), copied to items for traceability. */
  meta: z.record(z.string(), z.unknown()).optional(),
  /**
   * Policy fields that differ for this episode (MemoryAgentBench: FactConsolidation rows are one
   * chunk per numbered fact, other sources are windows). They replace the benchmark's policy for
   * this episode only; the user's run-level flags still win (runner.ts effectivePolicy).
   */
  policy: z
    .object({
      chunking: z.enum(['window', 'turn']),
      serialisation: z.enum(['message', 'plain']),
      expandToTurns: z.boolean(),
      order: z.enum(['rank', 'chronological']),
    })
    .partial()
    .optional(),
});
export type Episode = z.infer<typeof EpisodeSchema>;

export const QuestionSchema = z.object({
  /** Stable id, e.g. `conv-26:q0` (= sample id + index in the original question list). */
  id: z.string().min(1),
  episode: z.string().min(1),
  /** Human name of the question type (e.g. `multi-hop`) and the benchmark's own id for it. */
  type: z.string().min(1),
  typeId: z.union([z.number(), z.string()]).nullable(),
  text: z.string(),
  /** Canonical gold answer, as a string. */
  gold: z.string(),
  /** Every acceptable answer (includes `gold`); some benchmarks accept several. */
  acceptable: z.array(z.string()),
  /** When the question is asked (LongMemEval `question_date`); null when the benchmark has none. */
  questionDate: z.string().nullable(),
  /** Turn ids of the gold evidence (empty when the benchmark gives none). */
  evidence: z.array(z.string()),
  /** Answer options for multiple-choice questions, null otherwise. */
  options: z.array(z.string()).nullable(),
  /**
   * Phase protocols (MEME): only the first `visibleTurns` turns of the episode exist when the
   * question is asked, so the index it searches holds exactly those. null = the whole episode.
   */
  visibleTurns: z.number().int().nonnegative().nullable(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type Question = z.infer<typeof QuestionSchema>;

/** Something the loader noticed in the data and did not silently fix or drop. */
export interface LoadWarning {
  place: string;
  message: string;
  /** Changes what a run's figures mean (a checksum that does not match the release, a partial release): printed on every run, not only with --verbose. */
  important?: boolean;
}

export interface DatasetSource {
  path: string;
  sha256: string;
  bytes: number;
  /** Release/version note (commit, revision, variant). */
  version: string;
}

export interface Dataset {
  benchmark: string;
  episodes: Episode[];
  questions: Question[];
  source: DatasetSource;
  warnings: LoadWarning[];
  /**
   * The values of the adapter's setting-defining options as the loader settled them, where it
   * knows better than the flag: inferred from the file when the flag was not given (LongMemEval's
   * variant from the file name, BEAM's size from the folder), normalised otherwise.
   */
  variant?: Record<string, string>;
}
