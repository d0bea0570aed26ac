/**
 * The run directory: `manifest.json` (written atomically), `items.jsonl` (one line per question,
 * appended whole as each finishes) and `summary.json` (written atomically at the end).
 * An item's line is whole or absent: a write that fails (a full disk) is cut back off at once, and
 * a line torn by a killed process is cut off on resume. A killed process loses at most the items
 * in flight.
 */
import { splitJsonLines, type JsonLine } from '../util/jsonl.js';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { appendRecordsSync, repairTornTailOf } from '../util/checked-write.js';
import { join } from 'node:path';
import { InputError } from '../util/errors.js';
import { decodeUtf8Lines } from '../util/text.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/fsx.js';
import type { ItemRecord } from '../core/item.js';
import type { Manifest } from './manifest.js';
import { parseItemLine, readRunManifest, withSchema } from './record.js';

export class RunDir {
  readonly manifestPath: string;
  readonly itemsPath: string;
  readonly summaryPath: string;
  private fd: number | null = null;
  /**
   * items.jsonl's records as this object last read or wrote them; null until it has read a file
   * without a torn last line. The lock makes its holder the file's only writer, so a run's end
   * reads back what it appended from here instead of re-reading (and decoding) the whole file.
   */
  private lines: JsonLine[] | null = null;
  /** The write that failed (a full disk): no item is appended after it, so none is written out of order or after the lock. */
  private broken: unknown = null;

  constructor(readonly dir: string) {
    this.manifestPath = join(dir, 'manifest.json');
    this.itemsPath = join(dir, 'items.jsonl');
    this.summaryPath = join(dir, 'summary.json');
  }

  exists(): boolean {
    return existsSync(this.manifestPath);
  }

  /** The manifest through the run record's schema (src/run-files/record.ts: validated, an older version upgraded). */
  readManifest(): Manifest {
    const read = readRunManifest(this.dir);
    const m = read.manifest as Partial<Manifest>;
    if (read.kind !== 'rawrag' || typeof m.config_hash !== 'string' || typeof m.created_at !== 'string') {
      throw new InputError(
        'not a rawrag run manifest (no config_hash or created_at): the folder is damaged or not a run directory; choose another --out',
        {
          file: this.manifestPath,
        },
      );
    }
    return m as Manifest;
  }

  writeManifest(m: Manifest): void {
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(this.manifestPath, withSchema(m));
  }

  /** summary.json, stamped with the run record's version. */
  writeSummary(summary: object): void {
    writeJsonAtomic(this.summaryPath, withSchema(summary));
  }

  /**
   * Items written so far, last line per id winning (the rule of util/jsonl.ts, as `rawrag stats`
   * reads them). Pure: a torn last line (the process died mid-write) is ignored here; `repairTail`
   * removes it, and only a lock holder calls that.
   */
  readItems(): ItemRecord[] {
    if (this.lines === null) {
      if (!existsSync(this.itemsPath)) {
        this.lines = [];
        return [];
      }
      // Strict UTF-8, as stats, export and report read it: a resume must not call complete what they refuse.
      const { lines, torn } = splitJsonLines(decodeUtf8Lines(readFileSync(this.itemsPath), this.itemsPath));
      if (torn !== null) return this.parse(lines);
      this.lines = lines;
    }
    return this.parse(this.lines);
  }

  /** Last record per id wins. */
  private parse(lines: JsonLine[]): ItemRecord[] {
    const byId = new Map<string, ItemRecord>();
    for (const { line, text } of lines) {
      // Through the run record's schema (src/run-files/record.ts): a line of another shape is refused by its line.
      const item = parseItemLine(text, this.itemsPath, line) as unknown as ItemRecord;
      byId.set(item.id, item);
    }
    return [...byId.values()];
  }

  /**
   * Makes the file end on a clean line before appending (writers only): a torn last line is cut;
   * a complete last record that only lacks its newline gets it (src/util/checked-write.ts). Returns
   * what was done, for a note, or null.
   */
  repairTail(): string | null {
    this.lines = null;
    return repairTornTailOf(this.itemsPath);
  }

  /** Rewrites items.jsonl keeping only `keep` (used before retrying failed items). */
  rewriteItems(keep: ItemRecord[]): void {
    const texts = keep.map((i) => JSON.stringify(i));
    writeFileAtomic(this.itemsPath, texts.map((t) => t + '\n').join(''));
    this.lines = texts.map((text, i) => ({ line: i + 1, text }));
  }

  /**
   * Appends one item's line whole or not at all: when the write fails (a full disk), the file is
   * cut back to its size before it, the error is thrown, and every later append throws it again.
   */
  append(item: ItemRecord): void {
    if (this.broken !== null) throw this.broken;
    if (this.fd === null) {
      mkdirSync(this.dir, { recursive: true });
      this.fd = openSync(this.itemsPath, 'a');
    }
    const text = JSON.stringify(item);
    try {
      appendRecordsSync(this.fd, [text], this.itemsPath);
    } catch (e) {
      this.broken = e;
      throw e;
    }
    this.lines?.push({ line: (this.lines.at(-1)?.line ?? 0) + 1, text });
  }

  close(): void {
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      try {
        if (this.broken === null) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
}
