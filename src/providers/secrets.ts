/**
 * API keys stay in memory. Every message that leaves the provider layer (item errors, logs,
 * manifest) passes through `scrub`, which blanks the keys in use and anything shaped like a key.
 */
const KEY_SHAPES = [/\bsk-[A-Za-z0-9_\-*]{8,}/g, /\bAIza[0-9A-Za-z_\-]{20,}/g, /\bBearer\s+[A-Za-z0-9._\-]{8,}/gi];

export class Secrets {
  private readonly values = new Set<string>();

  /** Remembers a key so it can be blanked; returns it unchanged. */
  add(value: string | undefined): string | undefined {
    // Very short values ("EMPTY", "x") are placeholders for keyless local servers, not secrets.
    if (value && value.length >= 6) this.values.add(value);
    return value;
  }

  scrub(text: string): string {
    let out = text;
    for (const v of [...this.values].sort((a, b) => b.length - a.length)) out = out.split(v).join('[key]');
    for (const re of KEY_SHAPES) out = out.replace(re, '[key]');
    return out;
  }
}

/**
 * A key from the environment, or undefined when it is unset or only whitespace (an `export
 * KEY=" "` or a stray newline must read as "no key", not as a key the provider then rejects).
 */
export function keyFrom(env: NodeJS.ProcessEnv, name: string | null | undefined): string | undefined {
  if (!name) return undefined;
  const v = env[name];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}
