/**
 * `--epochs N` in `rawrag stats`: how much a system's accuracy moves between the reader's answers
 * to the same questions (the epochs), beside how much it moves between the judge's runs on them.
 * Both over the same items: those with every epoch scored and judge votes of the modal count.
 */
import type { StatItem } from './load.js';

export interface EpochRow {
  system: string;
  items: number;
  epochs: number;
  /** Accuracy of each epoch's answers over the items. */
  accuracy: number[];
  /** Sample SD of the per-epoch accuracies. */
  sd_epochs: number;
  /** Judge runs per answer (the votes averaged over epochs), 0 when the items have no votes. */
  judge_runs: number;
  /** Sample SD of the per-judge-run accuracies on the same items; null with fewer than 2 runs. */
  sd_judge_runs: number | null;
  /** Mean over items of the sample variance of the item's score across epochs, and across judge runs. */
  item_variance_epochs: number;
  item_variance_judge_runs: number | null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sampleVar = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

/** The system's row, or null when none of its items has two or more scored epochs. */
export function epochRow(system: string, all: StatItem[]): EpochRow | null {
  const withEpochs = all.filter((i) => i.error === null && i.epochs && i.epochs.length >= 2);
  if (withEpochs.length === 0) return null;
  const counts = new Map<number, number>();
  for (const i of withEpochs) counts.set(i.epochs!.length, (counts.get(i.epochs!.length) ?? 0) + 1);
  const epochs = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
  const items = withEpochs.filter((i) => i.epochs!.length === epochs);
  const accuracy = Array.from({ length: epochs }, (_, e) => mean(items.map((i) => i.epochs![e]!)));
  const runs = items.every((i) => i.votes && i.votes.length === items[0]!.votes?.length) ? (items[0]!.votes?.length ?? 0) : 0;
  const perRun = Array.from({ length: runs }, (_, r) => mean(items.map((i) => i.votes![r]!)));
  return {
    system,
    items: items.length,
    epochs,
    accuracy,
    sd_epochs: Math.sqrt(sampleVar(accuracy)),
    judge_runs: runs,
    sd_judge_runs: runs >= 2 ? Math.sqrt(sampleVar(perRun)) : null,
    item_variance_epochs: mean(items.map((i) => sampleVar(i.epochs!))),
    item_variance_judge_runs: runs >= 2 ? mean(items.map((i) => sampleVar(i.votes!))) : null,
  };
}
