/**
 * A parser for Python literals (what `ast.literal_eval` accepts, minus sets, bytes and complex
 * numbers): dicts, lists, tuples, strings (all quote forms, r/u prefixes, escapes, implicit
 * concatenation), ints, floats, True, False, None, unary +/-. PersonaMem-v2 writes some CSV columns
 * with Python's `str()` (e.g. `{'role': 'user', 'content': '...'}`), which is not JSON. Nothing is
 * evaluated: the text is read character by character.
 */
export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

export class PyLiteralError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'PyLiteralError';
  }
}

export function parsePyLiteral(text: string): PyValue {
  const p = new Parser(text);
  p.skipSpace();
  const v = p.value();
  p.skipSpace();
  if (!p.atEnd()) throw new PyLiteralError(`unexpected '${text[p.pos]}' after the value`, p.pos);
  return v;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
};

class Parser {
  pos = 0;
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length;
  }

  skipSpace(): void {
    // Inside brackets Python ignores newlines; a backslash-newline continues a line.
    while (this.pos < this.s.length) {
      const c = this.s[this.pos]!;
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') this.pos++;
      else if (c === '\\' && (this.s[this.pos + 1] === '\n' || this.s[this.pos + 1] === '\r')) this.pos += 2;
      else if (c === '#') {
        while (this.pos < this.s.length && this.s[this.pos] !== '\n') this.pos++;
      } else break;
    }
  }

  value(): PyValue {
    const c = this.s[this.pos];
    if (c === undefined) throw new PyLiteralError('unexpected end of text', this.pos);
    if (c === '{') return this.dict();
    if (c === '[') return this.sequence('[', ']');
    if (c === '(') return this.paren();
    if (c === '-' || c === '+') {
      this.pos++;
      this.skipSpace();
      const v = this.value();
      if (typeof v !== 'number') throw new PyLiteralError(`unary ${c} applies to a number only`, this.pos);
      return c === '-' ? -v : v;
    }
    if (/[0-9.]/.test(c)) return this.number();
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.s.slice(this.pos))!;
      const word = m[0];
      const next = this.s[this.pos + word.length];
      if ((next === "'" || next === '"') && /^[rRuU]$|^$/.test(word)) return this.strings();
      if ((next === "'" || next === '"') && /^[bBfF]|^[rR][bBfF]|^[bBfF][rR]$/.test(word)) {
        throw new PyLiteralError(`${word}-prefixed strings are not supported`, this.pos);
      }
      this.pos += word.length;
      if (word === 'True') return true;
      if (word === 'False') return false;
      if (word === 'None') return null;
      throw new PyLiteralError(`'${word}' is not a literal`, this.pos - word.length);
    }
    if (c === "'" || c === '"') return this.strings();
    throw new PyLiteralError(`unexpected '${c}'`, this.pos);
  }

  private expect(ch: string): void {
    if (this.s[this.pos] !== ch) throw new PyLiteralError(`expected '${ch}'`, this.pos);
    this.pos++;
  }

  private dict(): PyValue {
    this.expect('{');
    const out: Record<string, PyValue> = {};
    this.skipSpace();
    while (this.s[this.pos] !== '}') {
      const at = this.pos;
      const k = this.value();
      this.skipSpace();
      if (this.s[this.pos] !== ':') throw new PyLiteralError(this.s[this.pos] === ',' || this.s[this.pos] === '}' ? 'sets are not supported' : "expected ':'", this.pos);
      this.pos++;
      this.skipSpace();
      const v = this.value();
      if (typeof k !== 'string' && typeof k !== 'number' && typeof k !== 'boolean' && k !== null) {
        throw new PyLiteralError('dict keys must be strings, numbers, booleans or None', at);
      }
      // Non-string keys become their Python str() (1 -> '1', True -> 'True', None -> 'None').
      out[typeof k === 'string' ? k : k === null ? 'None' : typeof k === 'boolean' ? (k ? 'True' : 'False') : String(k)] = v;
      this.skipSpace();
      if (this.s[this.pos] === ',') {
        this.pos++;
        this.skipSpace();
      } else if (this.s[this.pos] !== '}') throw new PyLiteralError("expected ',' or '}'", this.pos);
    }
    this.pos++;
    return out;
  }

  private sequence(open: string, close: string): PyValue[] {
    this.expect(open);
    const out: PyValue[] = [];
    this.skipSpace();
    while (this.s[this.pos] !== close) {
      out.push(this.value());
      this.skipSpace();
      if (this.s[this.pos] === ',') {
        this.pos++;
        this.skipSpace();
      } else if (this.s[this.pos] !== close) throw new PyLiteralError(`expected ',' or '${close}'`, this.pos);
    }
    this.pos++;
    return out;
  }

  /** `()` empty tuple, `(x,)` / `(x, y)` tuples (as lists), `(x)` just x. */
  private paren(): PyValue {
    const start = this.pos;
    this.pos++;
    this.skipSpace();
    if (this.s[this.pos] === ')') {
      this.pos++;
      return [];
    }
    const first = this.value();
    this.skipSpace();
    if (this.s[this.pos] === ')') {
      this.pos++;
      return first;
    }
    this.pos = start;
    return this.sequence('(', ')');
  }

  private number(): number {
    const rest = this.s.slice(this.pos);
    const m =
      /^0[xX](?:_?[0-9a-fA-F])+|^0[oO](?:_?[0-7])+|^0[bB](?:_?[01])+|^(?:\d(?:_?\d)*)?\.?(?:\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?/.exec(rest);
    const tok = m?.[0] ?? '';
    if (!/\d/.test(tok)) throw new PyLiteralError('malformed number', this.pos);
    if (/^[jJ]/.test(rest.slice(tok.length))) throw new PyLiteralError('complex numbers are not supported', this.pos);
    if (/^[A-Za-z0-9_]/.test(rest.slice(tok.length))) throw new PyLiteralError('malformed number', this.pos);
    const clean = tok.replace(/_/g, '');
    let v: number;
    if (/^0[xX]/.test(clean)) v = parseInt(clean.slice(2), 16);
    else if (/^0[oO]/.test(clean)) v = parseInt(clean.slice(2), 8);
    else if (/^0[bB]/.test(clean)) v = parseInt(clean.slice(2), 2);
    else {
      // Python rejects leading zeros in decimal ints ("012"), but not in floats ("012.5").
      if (/^0\d/.test(clean) && /^\d+$/.test(clean) && /[1-9]/.test(clean)) throw new PyLiteralError('leading zeros in an int', this.pos);
      v = Number(clean);
    }
    if (Number.isNaN(v)) throw new PyLiteralError('malformed number', this.pos);
    this.pos += tok.length;
    return v;
  }

  /** One or more adjacent string literals, concatenated. */
  private strings(): string {
    let out = this.string();
    for (;;) {
      const save = this.pos;
      this.skipSpace();
      const m = /^[rRuU]?(['"])/.exec(this.s.slice(this.pos));
      if (!m) {
        this.pos = save;
        return out;
      }
      out += this.string();
    }
  }

  private string(): string {
    let raw = false;
    const p = this.s[this.pos]!;
    if (p === 'r' || p === 'R') {
      raw = true;
      this.pos++;
    } else if (p === 'u' || p === 'U') this.pos++;
    const q = this.s[this.pos]!;
    const triple = this.s.startsWith(q.repeat(3), this.pos);
    const start = this.pos;
    this.pos += triple ? 3 : 1;
    let out = '';
    for (;;) {
      if (this.pos >= this.s.length) throw new PyLiteralError('unterminated string', start);
      const c = this.s[this.pos]!;
      if (triple ? this.s.startsWith(q.repeat(3), this.pos) : c === q) {
        this.pos += triple ? 3 : 1;
        return out;
      }
      if (!triple && (c === '\n' || c === '\r')) throw new PyLiteralError('newline in a single-quoted string', this.pos);
      if (c !== '\\') {
        out += c;
        this.pos++;
        continue;
      }
      const e = this.s[this.pos + 1];
      if (e === undefined) throw new PyLiteralError('unterminated string', start);
      if (raw) {
        // Raw strings keep the backslash; it still stops a quote from closing the string.
        out += c + e;
        this.pos += 2;
        continue;
      }
      this.pos += 2;
      if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
      else if (e === '\n') {
        /* line continuation */
      } else if (e === '\r') {
        if (this.s[this.pos] === '\n') this.pos++;
      } else if (/[0-7]/.test(e)) {
        let digits = e;
        while (digits.length < 3 && /[0-7]/.test(this.s[this.pos] ?? '')) digits += this.s[this.pos++];
        out += String.fromCodePoint(parseInt(digits, 8));
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = this.s.slice(this.pos, this.pos + len);
        if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) throw new PyLiteralError(`truncated \\${e} escape`, this.pos - 2);
        const cp = parseInt(hex, 16);
        if (cp > 0x10ffff) throw new PyLiteralError(`\\${e} escape out of range`, this.pos - 2);
        out += String.fromCodePoint(cp);
        this.pos += len;
      } else if (e === 'N') throw new PyLiteralError('\\N{...} escapes are not supported', this.pos - 2);
      else out += '\\' + e; // Python keeps unknown escapes as written
    }
  }
}
