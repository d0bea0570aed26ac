#!/usr/bin/env node
// Writes each registry package's `resolved` tarball URL into package-lock.json, where a lock was
// saved without them (npm's `omit-lockfile-registry-resolved=true`, set in some user configs).
// Without `resolved`, a cold `npm ci` first fetches every package's metadata document from the
// registry to find its tarball (313 extra requests, ~57 MB here); with it, npm ci fetches only the
// tarballs, each checked against the lock's `integrity`. The URL is the registry's own tarball
// path, `https://registry.npmjs.org/<name>/-/<name without scope>-<version>.tgz` (npm rewrites the
// host to a configured mirror: replace-registry-host). Entries with a `resolved` already, links and
// the root are left as they are; the file is otherwise unchanged. The project's .npmrc keeps
// `resolved` in locks npm writes from now on. Usage: node scripts/lock-resolved.mjs [LOCKFILE]
import { readFileSync, writeFileSync } from 'node:fs';

const REGISTRY = 'https://registry.npmjs.org';
const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
let filled = 0;
for (const [path, entry] of Object.entries(lock.packages ?? {})) {
  if (path === '' || entry.link || entry.resolved || !entry.version || !entry.integrity) continue;
  const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const base = name.startsWith('@') ? name.split('/')[1] : name;
  // npm writes `resolved` right after `version`.
  const out = {};
  for (const [k, v] of Object.entries(entry)) {
    out[k] = v;
    if (k === 'version') out.resolved = `${REGISTRY}/${name}/-/${base}-${entry.version}.tgz`;
  }
  lock.packages[path] = out;
  filled++;
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`${file}: resolved written for ${filled} packages`);
