/**
 * LoCoMo evidence strings come in several forms: one id (`D1:3`), several in one string
 * (`D8:6; D9:17`, `D9:1 D4:4 D4:6`), and a few malformed ones (`D`, `D:11:26`, `D30:05`).
 * Every id that can be read is kept; every repair and every unreadable or dangling id is reported.
 */
export interface EvidenceParse {
  ids: string[];
  problems: string[];
}

const WELL_FORMED = /^D(\d+):(\d+)$/;

export function parseEvidence(entries: string[], knownIds: ReadonlySet<string>): EvidenceParse {
  const ids: string[] = [];
  const problems: string[] = [];
  for (const entry of entries) {
    for (const token of entry.split(/[;,\s]+/).filter(Boolean)) {
      const id = normaliseId(token);
      if (id === null) {
        problems.push(`malformed evidence id '${token}' (in '${entry}'): not of the form D<session>:<turn>`);
        continue;
      }
      if (id !== token) {
        if (!knownIds.has(id)) {
          problems.push(`malformed evidence id '${token}': read as '${id}', which is not a turn of this conversation`);
          continue;
        }
        problems.push(`evidence id '${token}' repaired to '${id}'`);
      } else if (!knownIds.has(id)) {
        problems.push(`evidence id '${id}' names no turn of this conversation`);
        continue;
      }
      if (!ids.includes(id)) ids.push(id);
    }
  }
  return { ids, problems };
}

/** `D30:05` -> `D30:5`, `D:11:26` -> `D11:26`; null when no session and turn number can be read. */
function normaliseId(token: string): string | null {
  const m = WELL_FORMED.exec(token) ?? /^D:?(\d+):(\d+)$/.exec(token);
  if (!m) return null;
  return `D${Number(m[1])}:${Number(m[2])}`;
}
