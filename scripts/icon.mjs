// `node scripts/icon.mjs`: renders media/icon.svg (the extension's icon, drawn by hand) to
// media/icon.png, 128×128 as the Marketplace asks, with Debian's Chromium through playwright-core
// (no image tool needed). Run after editing the SVG; the PNG is committed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT } from './vscode-env.mjs';

const SIZE = 128;
const svg = readFileSync(join(ROOT, 'media', 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
  await page.locator('svg').screenshot({ path: join(ROOT, 'media', 'icon.png'), omitBackground: true });
  console.log(`[icon] media/icon.png written (${SIZE}×${SIZE})`);
} finally {
  await browser.close();
}
