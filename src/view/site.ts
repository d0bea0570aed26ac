/**
 * `rawrag view`'s pages: the report pages of a results folder (the same pages `rawrag report`
 * builds, src/report/), kept in memory and built again when the folder changes — a run appends
 * items, finishes, a new run starts — one build at a time, the next starting once the refresh
 * interval has passed since the last one started (a build slower than the interval is followed by
 * the next as soon as it ends, never by an idle wait: the pages lag the live panel by about one
 * build, not by two or three). Beside them, each run's progress (src/view/progress.ts), read on
 * every poll.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import type { Dataset } from '../core/schema.js';
import { isCalibrationDir } from '../calibrate/collect.js';
import { buildPaperMap } from '../paper/map.js';
import { chartLibraryVersions } from '../report/assets.js';
import { collectInputs, type ReportInputs } from '../report/collect.js';
import { buildReportData } from '../report/data.js';
import { esc, renderPageParts, type PageParts } from '../report/html.js';
import { benchmarksOf, inputsFor, pagePath, renderIndexParts } from '../report/pages.js';
import { toolInfo } from '../run-files/manifest.js';
import { InputError } from '../util/errors.js';
import { RunWatch, type RunProgress } from './progress.js';

/** One page as served: its path, what it is, and its parts (the page script's data only on report pages). */
export interface ServedPage {
  path: string;
  kind: 'page' | 'index' | 'message';
  title: string;
  header: string;
  main: string;
  blob: string | null;
}

/** The pages built from one state of the folder. */
export interface BuiltSite {
  /** The folder's signature when the build started. */
  version: string;
  builtAt: string;
  pages: ServedPage[];
}

/** What the page script polls: each run's progress, and which build of the pages is the newest. */
export interface ProgressReply {
  /** The folder's signature now. */
  version: string;
  /** The newest build's signature (null before the first); a page older than it fetches its parts again. */
  site_version: string | null;
  building: boolean;
  folders: string[];
  runs: RunProgress[];
}

export interface SiteOptions {
  /** The refresh interval (the least time between two builds). */
  intervalMs: number;
  /** Characters of page data under which per-question detail is embedded (rawrag report --explorer-mb). */
  detailBudget?: number;
  /** Where a failed build is said (stderr), once per distinct message. */
  log: (line: string) => void;
  /** Clock in ms (tests). */
  now?: () => number;
}

/** What makes a folder's pages different: its run directories' files, stats.json and ablation.json, by size and time. */
interface FolderScan {
  signature: string;
  runDirs: string[];
  /** Nothing the report reads (no manifest.json, stats.json or ablation.json) below the folders. */
  empty: boolean;
}

export class LiveSite {
  private site: BuiltSite | null = null;
  private building: Promise<BuiltSite> | null = null;
  /** When the last build started (null before the first). */
  private lastBuildStart: number | null = null;
  private lastError = '';
  private readonly watches = new Map<string, RunWatch>();
  private readonly datasets = new Map<string, Promise<{ dataset: Dataset | null; error: string | null }>>();

  constructor(
    readonly paths: string[],
    private readonly opts: SiteOptions,
  ) {}

  /** Every run's progress now; starts a build of the pages when the folder changed and one is due. */
  progress(): ProgressReply {
    const scan = this.scan();
    this.buildIfDue(scan);
    return {
      version: scan.signature,
      site_version: this.site?.version ?? null,
      building: this.building !== null,
      folders: this.paths.map((p) => relative(process.cwd(), resolve(p)) || '.'),
      runs: scan.runDirs.map((dir) => this.watch(dir).poll()),
    };
  }

  /** The pages: built now when there are none yet, else the newest build (a newer one starts when due). */
  async pages(): Promise<BuiltSite> {
    const scan = this.scan();
    if (this.site === null) return this.building ?? this.build(scan);
    this.buildIfDue(scan);
    return this.site;
  }

  private watch(dir: string): RunWatch {
    let w = this.watches.get(dir);
    if (!w) this.watches.set(dir, (w = new RunWatch(dir)));
    return w;
  }

  private buildIfDue(scan: FolderScan): void {
    if (this.building || this.site?.version === scan.signature) return;
    // (Waiting twice the last build's time after it ended made a 20-s build show items a minute late.)
    if (this.lastBuildStart !== null && this.clock() - this.lastBuildStart < this.opts.intervalMs) return;
    void this.build(scan);
  }

  private clock(): number {
    return (this.opts.now ?? (() => performance.now()))();
  }

  private build(scan: FolderScan): Promise<BuiltSite> {
    this.lastBuildStart = this.clock();
    const signature = scan.signature;
    const where = this.paths.map((p) => relative(process.cwd(), resolve(p)) || '.');
    const built = scan.empty
      ? Promise.resolve(
          messageSite(
            signature,
            'No run directory yet',
            `Nothing below ${where.join(', ')} holds a run directory (manifest.json), stats.json or ablation.json yet. This page fills in as soon as a run starts writing there (rawrag run locomo --out ${join(where[0]!, 'my-run')}).`,
          ),
        )
      : buildSite(this.paths, signature, this.datasets, this.opts.detailBudget);
    this.building = built
      .catch((e: Error) => {
        const message = e instanceof InputError ? e.message : `${e.message} (${(e.stack ?? '').split('\n')[1]?.trim() ?? ''})`;
        if (message !== this.lastError) this.opts.log(`rawrag view: the pages could not be built: ${message}`);
        this.lastError = message;
        return messageSite(signature, 'The pages could not be built', `${message}. They are built again when the folder changes.`);
      })
      .then((site) => {
        this.site = site;
        return site;
      })
      .finally(() => {
        this.building = null;
      });
    return this.building;
  }

  /** The run directories below the folders and the signature of what the pages are made of. */
  scan(): FolderScan {
    const hash = createHash('sha1');
    const runDirs: string[] = [];
    let found = 0;
    const stamp = (file: string) => {
      try {
        const st = statSync(file);
        hash.update(`${file}\u0000${st.size}\u0000${st.mtimeMs}\n`);
      } catch {
        // absent: part of the signature by its absence
      }
    };
    const walk = (dir: string) => {
      let entries: string[];
      try {
        entries = readdirSync(dir).sort();
      } catch {
        return;
      }
      if (entries.includes('manifest.json')) {
        found++;
        if (!isCalibrationDir(dir)) runDirs.push(dir);
        for (const f of ['manifest.json', 'items.jsonl', 'summary.json']) stamp(join(dir, f));
      }
      for (const name of entries) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        const child = join(dir, name);
        if (name === 'stats.json' || name === 'ablation.json') {
          found++;
          stamp(child);
        } else if (isDirectory(child)) walk(child);
      }
    };
    for (const p of this.paths) walk(resolve(p));
    return { signature: hash.digest('hex').slice(0, 16), runDirs, empty: found === 0 };
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The folders must exist when the view starts (a typo is not a folder that will fill in). */
export function checkFolders(paths: string[]): void {
  for (const p of paths) {
    if (!existsSync(p)) throw new InputError('no such file or directory', { file: p });
    if (!statSync(p).isDirectory()) throw new InputError('not a directory (give a results folder or run directories)', { file: p });
  }
}

/** The report pages of the folders, as `rawrag report` composes them (one page, or an index and a page per benchmark). */
async function buildSite(
  paths: string[],
  version: string,
  datasets: Map<string, Promise<{ dataset: Dataset | null; error: string | null }>>,
  detailBudget: number | undefined,
): Promise<BuiltSite> {
  const inputs: ReportInputs = await collectInputs(paths, { datasets });
  const paper = buildPaperMap(paths);
  const meta = { version: toolInfo().version, libraries: chartLibraryVersions(), detailBudget };
  const benchmarks = benchmarksOf(inputs);
  const built = benchmarks.map((b) => {
    const data = { ...buildReportData(benchmarks.length > 1 ? inputsFor(inputs, b) : inputs, meta), paper };
    const parts = renderPageParts(data);
    return { benchmark: b, data, parts, path: `/${basename(pagePath('report.html', b))}` };
  });
  const served = (path: string, p: PageParts): ServedPage => ({ path, kind: 'page', ...p });
  const pages: ServedPage[] = built.map((b) => served(b.path, b.parts));
  if (built.length === 1) pages.unshift(served('/', built[0]!.parts));
  else {
    const summaries = built.map((b) => ({
      benchmark: b.benchmark,
      file: b.path.slice(1),
      bytes: Buffer.byteLength(b.parts.main) + Buffer.byteLength(b.parts.blob),
      data: b.data,
    }));
    const index = renderIndexParts(summaries, {
      generated_at: built[0]!.data.generated_at,
      tool_version: meta.version,
      notes: inputs.notes,
    });
    pages.unshift({ path: '/', kind: 'index', ...index, blob: null });
  }
  return { version, builtAt: new Date().toISOString(), pages };
}

/** A page that only says something (no run yet, a build that failed). */
function messageSite(version: string, title: string, text: string): BuiltSite {
  const page: ServedPage = {
    path: '/',
    kind: 'message',
    title: `rawrag view — ${title.toLowerCase()}`,
    header: `<h1>rawrag view — ${esc(title.toLowerCase())}</h1>`,
    main: `<section id="message"><p>${esc(text)}</p></section>`,
    blob: null,
  };
  return { version, builtAt: new Date().toISOString(), pages: [page] };
}
