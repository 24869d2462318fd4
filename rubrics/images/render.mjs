// Renders farmyard.svg to farmyard.png (1800 x 1200, twice the SVG's size) in Debian's chromium, so the
// PNG the judges and the pages use is always the drawing. Run from the repository root:
//   node rubrics/images/render.mjs
// test/web/farmyard-picture.test.ts checks that the PNG has the size this writes.
import { chromium } from 'playwright-core';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 }, deviceScaleFactor: 2 });
  await page.goto(`file://${dir}farmyard.svg`);
  await page.screenshot({ path: `${dir}farmyard.png`, omitBackground: false });
} finally {
  await browser.close();
}
