/**
 * Notes a command would print more than once (the embedded retriever's ~400-character note, once
 * per run of a grid, per ablation variant, per step of `rawrag paper --run`): each distinct note
 * line reaches stderr once per command. The set is cleared when a command starts (src/cli/main.ts),
 * so in-process callers (tests) each see their own command's notes.
 */
const said = new Set<string>();

/** Forgets what was said: a new command starts. */
export function resetNotes(): void {
  said.clear();
}

/** True the first time a `note:` line is seen in this command; any other line is always said. */
export function firstTime(line: string): boolean {
  if (!/^(note|NOTE): /.test(line)) return true;
  const key = line.replace(/^NOTE: /, 'note: ');
  if (said.has(key)) return false;
  said.add(key);
  return true;
}
