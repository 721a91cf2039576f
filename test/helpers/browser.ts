import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether Debian's Chromium is here; without it (outside CI) a browser suite skips, saying why. */
export function chromiumOrSkip(ctx: Mocha.Context): void {
  if (fs.existsSync(CHROMIUM)) return;
  if (process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}`);
  console.warn(`    skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  ctx.skip();
}

/**
 * Headless Chromium as this machine runs it: no sandbox (root), no GPU, and none of its own
 * background traffic (its connections would be refused on a closed network).
 */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
