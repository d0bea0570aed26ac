/**
 * A URL's user name and password (`http://user:PASSWORD@host`) would be recorded wherever the URL
 * is (manifest.json, summary.json, each failed item's error, the report, the progress line), and
 * the HTTP client refuses them anyway: such a URL is refused wherever it enters (a flag, `-S`, a
 * config file, an environment variable, a models file, a recorded manifest or set file on resume),
 * before anything is written (issue 42, item 6).
 */
export const CREDENTIALS_IN_URL =
  "a URL with a user name or password is refused: it would be written to the run's files and logs (and the HTTP client does not send it); " +
  "give the URL without it and the key through the system's or provider's key variable (rawrag systems NAME lists them)";

/** Whether `text` is a URL carrying userinfo (`scheme://user[:password]@host`). */
export function hasUrlCredentials(text: string): boolean {
  return /^\s*[a-z][a-z0-9+.-]*:\/\/([^/?#\s]*)@/i.test(text);
}

/** The path (keys from the top) of the first string value in `node` that is a URL with credentials, or null. */
export function urlCredentialsIn(node: unknown, path: string[] = []): string[] | null {
  if (typeof node === 'string') return hasUrlCredentials(node) ? path : null;
  if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      const found = urlCredentialsIn(v, [...path, k]);
      if (found) return found;
    }
  return null;
}
