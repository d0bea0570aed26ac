/**
 * The write primitives every file write goes through (issue 32): a write is whole or an error
 * naming the file; an appended record is whole or absent; a torn tail is repaired before the next
 * append; an output set lands together or not at all and never leaves a temporary file. The disk
 * fills up through the seam (`diskFaults.budget`): short writes, then ENOSPC, as a real disk does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import {
  appendRecordsSync,
  appendRecordsToFile,
  diskFaults,
  repairTornTailOf,
  writeAllSync,
  writeFileDurable,
} from '../../src/util/checked-write.js';
import { writeFileAtomic } from '../../src/util/fsx.js';
import { OutputSet, resetCommittedOutputs, settleOutputsOnInterrupt, writeOutputs } from '../../src/util/output-set.js';
import { splitJsonLines } from '../../src/util/jsonl.js';
import { RunDir } from '../../src/run-files/run-dir.js';

afterEach(() => diskFaults.reset());

const files = (dir: string) => readdirSync(dir).sort();

describe('writeAllSync', () => {
  it('writes every byte across short writes, or throws ENOSPC naming the file', () => {
    const dir = tempDir();
    const path = join(dir, 'a.txt');
    const fd = openSync(path, 'w');
    diskFaults.budget = 10;
    expect(() => writeAllSync(fd, 'x'.repeat(25), path)).toThrow(expect.objectContaining({ code: 'ENOSPC', path }));
    closeSync(fd);
    // The kernel's short write happened (10 bytes), then the next write failed: no silent truncation.
    expect(readFileSync(path, 'utf8')).toBe('x'.repeat(10));
    diskFaults.budget = null;
    writeFileDurable(path, 'y'.repeat(100_000));
    expect(readFileSync(path, 'utf8')).toHaveLength(100_000);
  });
});

describe('appended records', () => {
  it('a record whose write fails is cut back off: the file holds only whole records', () => {
    const dir = tempDir();
    const path = join(dir, 'items.jsonl');
    const fd = openSync(path, 'a');
    appendRecordsSync(fd, ['{"id":1}'], path);
    diskFaults.budget = 5;
    expect(() => appendRecordsSync(fd, ['{"id":2,"text":"long enough"}'], path)).toThrow(/ENOSPC/);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n');
    diskFaults.budget = null;
    appendRecordsSync(fd, ['{"id":3}', '{"id":4}'], path);
    closeSync(fd);
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n{"id":3}\n{"id":4}\n');
  });

  it('a torn tail (a killed writer) is cut before the next append: never a record glued onto half of another', () => {
    const dir = tempDir();
    const path = join(dir, 'log.jsonl');
    writeFileSync(path, '{"id":1}\n{"id":2}\n{"id":3,"te');
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((s: string) => (stderr.push(s), true)) as typeof process.stderr.write;
    try {
      appendRecordsToFile(path, ['{"id":4}']);
    } finally {
      process.stderr.write = write;
    }
    expect(readFileSync(path, 'utf8')).toBe('{"id":1}\n{"id":2}\n{"id":4}\n');
    expect(stderr.join('')).toMatch(/log\.jsonl: cut a torn last line \(line 3, 11 bytes/);
    expect(splitJsonLines(readFileSync(path, 'utf8')).torn).toBeNull();
  });

  it('the reader rule: a whole last record without its newline gets it; a clean file is left alone; a torn tail past 64 KB is found', () => {
    const dir = tempDir();
    const whole = join(dir, 'whole.jsonl');
    writeFileSync(whole, '{"id":1}\n{"id":2}');
    expect(repairTornTailOf(whole)).toMatch(/line 2 lacked its newline/);
    expect(readFileSync(whole, 'utf8')).toBe('{"id":1}\n{"id":2}\n');
    expect(repairTornTailOf(whole)).toBeNull();
    expect(repairTornTailOf(join(dir, 'absent.jsonl'))).toBeNull();
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, '{"id":1}\n{"id":2,"text":"' + 'z'.repeat(200_000));
    expect(repairTornTailOf(big)).toMatch(/line 2, 200016 bytes/);
    expect(readFileSync(big, 'utf8')).toBe('{"id":1}\n');
    const noNewline = join(dir, 'one.jsonl');
    writeFileSync(noNewline, '{"id":1,"te');
    expect(repairTornTailOf(noNewline)).toMatch(/line 1/);
    expect(readFileSync(noNewline, 'utf8')).toBe('');
  });

  it('a run directory: a failed append is cut back, later appends refuse, and a resume reads whole items only', () => {
    const dir = join(tempDir(), 'run');
    const rd = new RunDir(dir);
    const item = (id: string) => ({ id, score: 0, question: 'q'.repeat(500) }) as never;
    rd.append(item('a'));
    diskFaults.budget = 100;
    expect(() => rd.append(item('b'))).toThrow(expect.objectContaining({ code: 'ENOSPC', path: join(dir, 'items.jsonl') }));
    diskFaults.budget = null;
    // No item after a failed one: the run stops there.
    expect(() => rd.append(item('c'))).toThrow(/ENOSPC/);
    rd.close();
    const again = new RunDir(dir);
    expect(again.repairTail()).toBeNull();
    expect(again.readItems().map((i) => i.id)).toEqual(['a']);
  });
});

describe('writeFileAtomic', () => {
  it('on a full disk the old file stays whole and no temporary file is left', () => {
    const dir = tempDir();
    const path = join(dir, 'manifest.json');
    writeFileSync(path, '{"old":true}\n');
    diskFaults.budget = 3;
    expect(() => writeFileAtomic(path, JSON.stringify({ new: 'x'.repeat(100) }))).toThrow(
      expect.objectContaining({ code: 'ENOSPC', path }),
    );
    expect(readFileSync(path, 'utf8')).toBe('{"old":true}\n');
    expect(files(dir)).toEqual(['manifest.json']);
  });
});

describe('output sets', () => {
  it('stages beside, commits together; a full disk mid-staging leaves the old files and no temporary file', async () => {
    const dir = tempDir();
    for (const f of ['a.csv', 'b.csv']) writeFileSync(join(dir, f), `old ${f}\n`);
    diskFaults.budget = 20;
    await expect(
      writeOutputs((set) => {
        set.stage(join(dir, 'a.csv'), 'new a\n');
        set.stage(join(dir, 'b.csv'), 'new b '.repeat(10));
        set.stage(join(dir, 'c.csv'), 'new c\n');
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 'ENOSPC', path: join(dir, 'b.csv') }));
    expect(files(dir)).toEqual(['a.csv', 'b.csv']);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('old a.csv\n');
    diskFaults.budget = null;
    const { paths } = await writeOutputs((set) => {
      set.stage(join(dir, 'a.csv'), 'new a\n');
      set.stage(join(dir, 'c.csv'), 'new c\n');
    });
    expect(paths).toEqual([join(dir, 'a.csv'), join(dir, 'c.csv')]);
    expect(files(dir)).toEqual(['a.csv', 'b.csv', 'c.csv']);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('new a\n');
  });

  it('a rename that fails mid-commit puts the files already renamed back: the old set, no temporary or backup file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.html'), 'old a');
    mkdirSync(join(dir, 'b.html', 'occupied'), { recursive: true }); // a folder where the second file should go
    const set = new OutputSet();
    set.stage(join(dir, 'a.html'), 'new a');
    set.stage(join(dir, 'b.html'), 'new b');
    set.stage(join(dir, 'c.html'), 'new c');
    expect(() => set.commit()).toThrow(expect.objectContaining({ path: join(dir, 'b.html') }));
    expect(readFileSync(join(dir, 'a.html'), 'utf8')).toBe('old a');
    expect(files(dir)).toEqual(['a.html', 'b.html']);
  });

  it('an interrupt discards what is staged and says the old files are kept; after a commit it says the new ones are', () => {
    resetCommittedOutputs();
    const dir = tempDir();
    writeFileSync(join(dir, 'report.html'), 'old');
    const set = new OutputSet();
    set.stage(join(dir, 'report.html'), 'new');
    set.stage(join(dir, 'report.locomo.html'), 'new');
    expect(settleOutputsOnInterrupt()).toBe(
      `before its outputs were written: the previous ${join(dir, 'report.html')} kept as it was, nothing new written`,
    );
    expect(files(dir)).toEqual(['report.html']);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toBe('old');
    const next = new OutputSet();
    next.stage(join(dir, 'report.html'), 'new');
    next.commit();
    expect(settleOutputsOnInterrupt()).toBe(`after its outputs were written: the new ${join(dir, 'report.html')} kept`);
    resetCommittedOutputs();
    expect(settleOutputsOnInterrupt()).toBeNull();
  });
});
