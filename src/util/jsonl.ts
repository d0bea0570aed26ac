/**
 * The one rule for JSON Lines files a writer may have been killed in the middle of (items.jsonl):
 * every newline-terminated line is a record; a last line without a newline is a record too when it
 * is valid JSON (the write completed, only the newline is missing) and is a torn write otherwise.
 * `rawrag run`'s resume and `rawrag stats` both read through this, so they never disagree.
 */
export interface JsonLine {
  /** 1-based line number. */
  line: number;
  text: string;
}

export function splitJsonLines(text: string): { lines: JsonLine[]; torn: JsonLine | null } {
  const parts = text.split('\n');
  const lines: JsonLine[] = [];
  let torn: JsonLine | null = null;
  for (let i = 0; i < parts.length; i++) {
    const raw = parts[i]!;
    const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (!t.trim()) continue;
    const last = i === parts.length - 1;
    if (last && !isJson(t)) torn = { line: i + 1, text: t };
    else lines.push({ line: i + 1, text: t });
  }
  return { lines, torn };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
