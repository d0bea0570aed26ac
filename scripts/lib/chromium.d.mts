// Types for chromium.mjs (used by the TypeScript tests).
import type { Browser, Page } from 'puppeteer-core';

export function findChromium(): string | null;
export function launchChromium(executablePath: string): Promise<{ browser: Browser; close(): Promise<void> }>;
export function openReport(
  browser: Browser,
  file: string,
  viewport?: { width: number; height: number },
): Promise<{
  page: Page;
  consoleMessages: Array<{ type: string; text: string }>;
  pageErrors: string[];
  requests: string[];
  loadMs: number;
}>;
