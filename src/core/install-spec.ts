/**
 * How a memory system's own code is installed here: a virtual environment per system under
 * RAWRAG_SYSTEMS_DIR (default: rawrag's cache), the library at the version the plug-in pins, from
 * the package index or from a source checkout installed as its authors install it. A plug-in
 * declares this as data; `rawrag systems install NAME` carries it out, and a run that starts the
 * system for you records `library` (and where it came from) in its manifest.
 */
export interface InstallSpec {
  /** PEP 440 specifier the interpreter must satisfy, e.g. '>=3.11' ('>=3.12' says why 3.11 cannot). */
  python: string;
  /** pip itself, installed into the environment before anything else (a pinned requirement and why), when the interpreter's own pip cannot resolve `packages`. */
  pip?: { version: string; why: string };
  /**
   * pip constraints (`-c`) for `packages`: a file relative to rawrag's folder holding the library's
   * own lock (its authors' uv.lock as `name==version` lines), and where it came from.
   */
  constraints?: { file: string; source: string };
  /** pip requirement lines from the package index, pinned ('mem0ai==2.2.1'), installed first. */
  packages?: readonly string[];
  /**
   * Packages installed after `packages` with `pip install --no-deps`: a package whose declared
   * requirements cannot install here (memoryos-pro requires faiss-gpu, which has no wheel past
   * Python 3.10); `packages` then lists its requirements with the replacement, and `why` says which.
   */
  noDeps?: { packages: readonly string[]; why: string };
  /** A checkout the user passes with `--source DIR` (or found in RAWRAG_SOURCES/<folder>). */
  source?: {
    /** 'owner/name' of the repository. */
    repo: string;
    /** The pinned commit (checked when DIR is a git checkout). */
    commit: string;
    /** The folder name under RAWRAG_SOURCES (default: the repository's name). */
    folder?: string;
    /**
     * pip argument lists run in the environment from inside DIR, as its authors install it, e.g.
     * [['install', '-r', 'requirements.txt']]. Lines its authors' file cannot install here (a conda
     * package, a GPU wheel) are replaced through `replace`, each with the reason.
     */
    steps: ReadonlyArray<readonly string[]>;
    /** Requirement lines of the checkout's requirements file swapped before installing: from → to (empty: dropped). */
    replace?: ReadonlyArray<{ from: string; to: string; why: string }>;
  };
  /** The environment the sidecar or server gets (offline switches, telemetry off, model paths). */
  env?: Readonly<Record<string, string>>;
  /** What a run records: the library's name and pinned version (or commit). */
  library: { name: string; version: string };
  /** Set when the install or its run is heavy (PyTorch, several GB; or a run of tens of minutes): CI's real-library tier skips it, saying this. */
  heavy?: string;
  /** Set when it cannot be installed on this kind of machine: why (shown by `rawrag systems`). */
  unavailable?: string;
  /**
   * The script started for you (relative to rawrag's folder), when the plug-in has none of its own
   * (a service plug-in whose server is a sidecar of rawrag's, e.g. a REST server the package lacks);
   * a sidecar plug-in's own `script` otherwise. It takes `--port 0 --state DIR` and prints
   * `... listening on http://127.0.0.1:PORT` as its first line.
   */
  script?: string;
  /** What this install leaves off, in words (extras not installed, features that then stay off): printed and recorded. */
  notes?: readonly string[];
  /** tiktoken encodings the library loads (`cl100k_base`, `o200k_base`): seeded into TIKTOKEN_CACHE_DIR, no download. */
  tiktoken?: readonly string[];
}
