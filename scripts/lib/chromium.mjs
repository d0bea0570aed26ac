// Headless Chromium for the report tests and bench: the system browser (Debian's `chromium`
// package) driven by puppeteer-core; nothing is downloaded. RAWRAG_CHROMIUM names another binary.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary, or null when none is installed. */
export function findChromium() {
  const named = process.env.RAWRAG_CHROMIUM;
  if (named) return existsSync(named) ? named : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** Launches a fresh headless browser (its own profile, no background traffic); close() also removes the profile. */
export async function launchChromium(executablePath) {
  const { default: puppeteer } = await import('puppeteer-core');
  const profile = mkdtempSync(join(tmpdir(), 'rawrag-chromium-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens a report file and waits until every chart is drawn (the page sets body[data-ready]).
 * Records console errors/warnings, page errors and every request that is not the file itself.
 */
export async function openReport(browser, file, viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const consoleMessages = [];
  const pageErrors = [];
  const requests = [];
  page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  const url = 'file://' + file;
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  const loadMs = performance.now() - t0;
  return { page, consoleMessages, pageErrors, requests: requests.filter((u) => u !== url), loadMs };
}
