/**
 * Reading text input files: strictly UTF-8 (a byte that is not UTF-8 is an input error naming the
 * file and its byte offset, never a silent U+FFFD), with a leading UTF-8 byte-order mark dropped
 * (editors on Windows write one; JSON.parse and the loaders would otherwise see an invisible
 * character). Every loader reads its files through here.
 */
import { readFileSync } from 'node:fs';
import { InputError } from './errors.js';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether `bytes` starts with the UTF-8 byte-order mark EF BB BF. */
export function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * Decodes UTF-8 strictly. `baseOffset` is where `bytes` starts in the file (for the message);
 * at offset 0 a byte-order mark is dropped.
 */
export function decodeUtf8(bytes: Uint8Array, file: string, baseOffset = 0): string {
  const body = baseOffset === 0 && hasBom(bytes) ? bytes.subarray(3) : bytes;
  try {
    return strict.decode(body);
  } catch {
    const at = firstInvalidUtf8(body) + (body === bytes ? 0 : 3);
    const hex = [...bytes.subarray(at, at + 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new InputError(
      `not valid UTF-8: byte ${baseOffset + at} (0x${hex.split(' ')[0]}; bytes ${hex}) cannot start or continue a UTF-8 character (re-save the file as UTF-8)`,
      {
        file,
        place: `byte ${baseOffset + at}`,
      },
    );
  }
}

/** Reads a whole text file (strict UTF-8, BOM dropped); read failures are input errors naming the file. */
export function readTextFile(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: path });
  }
  return decodeUtf8(bytes, path);
}

/** Offset of the first byte that breaks UTF-8 (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const x = b[i + k];
      if (x === undefined) return i; // truncated at the end of the bytes
      if (x < (k === 1 ? lo : 0x80) || x > (k === 1 ? hi : 0xbf)) return i; // the sequence starting here is broken
    }
    i += need + 1;
  }
  return -1;
}

/** Terminal width a command's prose stays within (tables keep their rows whole). */
export const PROSE_WIDTH = 160;

/**
 * Wraps each line longer than `width` at spaces, continuation lines indented two spaces past the
 * line's own indent; markdown table rows (`|...`) and lines without a space to break at are kept.
 */
export function wrapProse(text: string, width = PROSE_WIDTH): string {
  return text
    .split('\n')
    .flatMap((line) => (line.length <= width || line.startsWith('|') ? [line] : wrapLine(line, width)))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  const indent = /^\s*/.exec(line)![0];
  const next = `${indent}  `;
  const out: string[] = [];
  let cur = '';
  for (const word of line.slice(indent.length).split(' ')) {
    const lead = out.length === 0 ? indent : next;
    if (cur && lead.length + cur.length + 1 + word.length > width) {
      out.push(lead + cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  out.push((out.length === 0 ? indent : next) + cur);
  return out;
}
