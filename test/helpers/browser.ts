import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/**
 * A screen with no moderate, serious or critical accessibility violation (axe), each named with the
 * elements it was found on; a full-page screenshot kept under `artifacts` as `<name>.png`.
 */
export async function expectAccessible(page: Page, artifacts: string, name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  const result = await new AxeBuilder({ page }).analyze();
  const bad = result.violations
    .filter((v) => v.impact === 'moderate' || v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, `axe on ${name}: ${bad.join('; ')}`).to.deep.equal([]);
}
