/** Python's textual forms that official prompts embed (repr of strings and lists), byte for byte. */

/** Python `repr(str)`: single quotes unless the text has `'` and no `"`; escapes as CPython. */
export function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch !== ' ' && /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u.test(ch)) {
      if (cp < 0x100) out += '\\x' + cp.toString(16).padStart(2, '0');
      else if (cp < 0x10000) out += '\\u' + cp.toString(16).padStart(4, '0');
      else out += '\\U' + cp.toString(16).padStart(8, '0');
    } else out += ch;
  }
  return out + quote;
}

/** Python `str(list)` for a (possibly nested) list of strings. */
export function pyReprList(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(pyReprList).join(', ') + ']';
  return pyReprString(String(value));
}
