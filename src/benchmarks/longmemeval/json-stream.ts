/**
 * Streaming splitter for a file holding one big JSON array (or a sequence of JSON values, as in
 * JSONL): yields the text of one top-level element at a time, with its byte range, so a 2.7 GB
 * file (LongMemEval M) is never held in memory whole. It only tracks nesting and strings; each
 * element's text is then checked by JSON.parse.
 *
 * Scanning works on bytes: every structural character of JSON is ASCII and UTF-8 never uses
 * ASCII bytes inside a multi-byte character, so byte offsets are exact and safe to re-read later.
 */
import { createReadStream } from 'node:fs';
import { InputError } from '../../util/errors.js';
import { decodeUtf8 } from '../../util/text.js';

export interface JsonElement {
  /** 0-based position in the array (or in the value sequence). */
  index: number;
  /** The element's JSON text (UTF-8 decoded). */
  text: string;
  /** Byte range [start, end) of the element in the file. */
  start: number;
  end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const BOM = [0xef, 0xbb, 0xbf];

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/**
 * Push-based splitter: feed chunks of any size with `push`, collect finished elements, then call
 * `end`. Errors name the file and the byte offset.
 */
export class JsonArraySplitter {
  /** `array`: inside the top-level `[...]`; `sequence`: top-level values one after another (JSONL). */
  private mode: 'unknown' | 'array' | 'sequence' = 'unknown';
  private closed = false;
  /** Nesting depth inside the current element (0 = between elements). */
  private depth = 0;
  private inString = false;
  /** Backslashes directly before the current position inside a string (may span chunks). */
  private backslashRun = 0;
  /** A scalar element (number, true, ...) is being read: it ends at a delimiter. */
  private inScalar = false;
  private expectValue = true;
  private elementStart = -1;
  private pieces: Buffer[] = [];
  private offset = 0;
  private count = 0;

  constructor(private readonly file: string) {}

  push(chunk: Buffer): JsonElement[] {
    const out: JsonElement[] = [];
    let i = 0;
    let pieceStart = this.elementStart >= 0 ? 0 : -1;
    const n = chunk.length;
    while (i < n) {
      if (this.inString) {
        const q = chunk.indexOf(QUOTE, i);
        if (q === -1) {
          this.backslashRun = trailingBackslashes(chunk, i, n, this.backslashRun);
          i = n;
          break;
        }
        const run = trailingBackslashes(chunk, i, q, this.backslashRun);
        this.backslashRun = 0;
        i = q + 1;
        if (run % 2 === 0) {
          this.inString = false;
          if (this.depth === 0) {
            // A top-level string element ends with its closing quote.
            out.push(this.finish(chunk, pieceStart, i));
            pieceStart = -1;
          }
        }
        continue;
      }
      const b = chunk[i]!;
      if (this.inScalar) {
        if (isSpace(b) || b === COMMA || b === CLOSE_BRACKET || b === OPEN_BRACE || b === OPEN_BRACKET || b === QUOTE) {
          this.inScalar = false;
          out.push(this.finish(chunk, pieceStart, i));
          pieceStart = -1;
          continue; // the delimiter is handled below as structure between elements
        }
        i++;
        continue;
      }
      if (this.depth > 0) {
        if (b === QUOTE) {
          this.inString = true;
          this.backslashRun = 0;
        } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
          this.depth++;
        } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          this.depth--;
          if (this.depth === 0) {
            out.push(this.finish(chunk, pieceStart, i + 1));
            pieceStart = -1;
          }
        }
        i++;
        continue;
      }
      // Between elements.
      // A UTF-8 byte-order mark (EF BB BF) is tolerated at the very start of the file.
      if (isSpace(b) || (this.offset + i < 3 && b === BOM[this.offset + i])) {
        i++;
        continue;
      }
      if (this.closed) this.fail('unexpected content after the end of the top-level array', this.offset + i);
      if (this.mode === 'unknown') {
        if (b === OPEN_BRACKET) {
          this.mode = 'array';
          i++;
          continue;
        }
        this.mode = 'sequence';
      }
      if (this.mode === 'array' && b === CLOSE_BRACKET) {
        if (this.expectValue && this.count > 0) this.fail('trailing comma before ]', this.offset + i);
        this.closed = true;
        i++;
        continue;
      }
      if (this.mode === 'array' && b === COMMA) {
        if (this.expectValue) this.fail('unexpected comma', this.offset + i);
        this.expectValue = true;
        i++;
        continue;
      }
      if (!this.expectValue) this.fail(`expected ',' or ']' between array elements, found '${String.fromCharCode(b)}'`, this.offset + i);
      if (b === COMMA || b === CLOSE_BRACKET || b === CLOSE_BRACE) this.fail(`unexpected '${String.fromCharCode(b)}'`, this.offset + i);
      // An element starts here.
      this.elementStart = this.offset + i;
      pieceStart = i;
      this.expectValue = this.mode === 'sequence';
      if (b === QUOTE) {
        this.inString = true;
        this.backslashRun = 0;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        this.depth = 1;
      } else {
        this.inScalar = true;
      }
      i++;
    }
    if (this.elementStart >= 0 && pieceStart >= 0) this.pieces.push(chunk.subarray(pieceStart));
    this.offset += n;
    return out;
  }

  /** Call after the last chunk: returns the final element of a value sequence, checks the array was closed. */
  end(): JsonElement[] {
    const out: JsonElement[] = [];
    if (this.inScalar) {
      this.inScalar = false;
      out.push(this.finish(Buffer.alloc(0), 0, 0));
    }
    if (this.elementStart >= 0 || this.inString || this.depth > 0) this.fail('file ends inside an element (truncated?)', this.offset);
    if (this.mode === 'unknown') this.fail('file holds no JSON value', this.offset);
    if (this.mode === 'array' && !this.closed) this.fail('file ends before the closing ] of the top-level array (truncated?)', this.offset);
    return out;
  }

  private finish(chunk: Buffer, pieceStart: number, endInChunk: number): JsonElement {
    this.pieces.push(chunk.subarray(Math.max(0, pieceStart), endInChunk));
    const bytes = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces);
    const element: JsonElement = {
      index: this.count++,
      text: decodeUtf8(bytes, this.file, this.elementStart),
      start: this.elementStart,
      end: this.elementStart + bytes.length,
    };
    this.pieces = [];
    this.elementStart = -1;
    this.depth = 0;
    return element;
  }

  private fail(message: string, byte: number): never {
    throw new InputError(message, { file: this.file, place: `byte ${byte}` });
  }
}

/** Backslashes ending chunk[from, to); `carry` continues a run that began in earlier bytes. */
function trailingBackslashes(chunk: Buffer, from: number, to: number, carry: number): number {
  let run = 0;
  let j = to - 1;
  while (j >= from && chunk[j] === BACKSLASH) {
    run++;
    j--;
  }
  return j < from ? run + carry : run;
}

/**
 * Streams the elements of a JSON array file, one at a time. `onChunk` sees every byte read
 * (e.g. to hash the file in the same pass).
 */
export async function* streamJsonArray(
  path: string,
  chunkBytes = 1 << 20,
  onChunk?: (chunk: Buffer) => void,
): AsyncGenerator<JsonElement> {
  const splitter = new JsonArraySplitter(path);
  let stream;
  try {
    stream = createReadStream(path, { highWaterMark: chunkBytes });
    for await (const chunk of stream) {
      onChunk?.(chunk as Buffer);
      for (const el of splitter.push(chunk as Buffer)) yield el;
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`cannot read file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file: path });
  } finally {
    stream?.destroy();
  }
  for (const el of splitter.end()) yield el;
}

/** Parses one element's text, naming the file and element on failure. */
export function parseElement(el: JsonElement, file: string): unknown {
  try {
    return JSON.parse(el.text);
  } catch (e) {
    throw new InputError(`invalid JSON in element (${(e as Error).message})`, { file, place: `[${el.index}] (bytes ${el.start}-${el.end})` });
  }
}
