/** The shape of `locomo10.json` as released (snap-research/LoCoMo @ 3eb6f2c), checked on load. */
import { z } from 'zod';

export const RawTurn = z
  .object({
    speaker: z.string(),
    dia_id: z.string(),
    text: z.string(),
    blip_caption: z.string().optional(),
  })
  .passthrough();

export const RawQa = z
  .object({
    question: z.string(),
    // 6 answers in categories 1-2 are JSON integers: they are kept as their string form.
    answer: z.union([z.string(), z.number()]).optional(),
    adversarial_answer: z.union([z.string(), z.number()]).optional(),
    evidence: z.array(z.string()),
    category: z.number().int(),
  })
  .passthrough();

export const RawSample = z
  .object({
    sample_id: z.string().min(1),
    conversation: z.record(z.string(), z.unknown()),
    qa: z.array(RawQa),
  })
  .passthrough();

export const RawFile = z.array(RawSample).min(1);
export type RawSampleT = z.infer<typeof RawSample>;
