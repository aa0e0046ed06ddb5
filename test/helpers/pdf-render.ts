import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/**
 * Renders a PDF in headless Chromium with Mozilla's PDF.js (pdfjs-dist, a dev dependency), so a test can
 * look at what a PDF viewer shows: the page drawn on a canvas (screenshot it, read a QR from it) and the
 * text a viewer would let the reader select. Everything is served from this process through Playwright's
 * routing on a *.localhost address; nothing leaves the machine.
 */

const ORIGIN = 'http://pdfjs.localhost';
const BUILD = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'build');

const HTML = `<!doctype html><html><body style="margin:0;background:#fff">
<canvas id="page"></canvas>
<script type="module">
import * as pdfjs from '/pdf.mjs';
pdfjs.GlobalWorkerOptions.workerSrc = '/pdf.worker.mjs';
window.renderPdf = async (scale) => {
  const doc = await pdfjs.getDocument({ url: '/document.pdf' }).promise;
  const page = await doc.getPage(1);
  const viewport = page.getViewport({ scale });
  const canvas = document.getElementById('page');
  canvas.width = viewport.width;
  canvas.height = viewport.height;
  await page.render({ canvas, canvasContext: canvas.getContext('2d'), viewport }).promise;
  const text = await page.getTextContent();
  return { pages: doc.numPages, text: text.items.map((i) => i.str).join('\\n') };
};
window.pdfReady = true;
</script></body></html>`;

export interface RenderedPdf {
  pages: number;
  /** The text items of page 1, one per line, as a viewer's text layer holds them. */
  text: string;
}

/** Opens `pdf` in `page` and draws its first page on the canvas `#page` at `scale` (1 = 72 dpi). */
export async function renderPdf(page: Page, pdf: Buffer, scale = 2): Promise<RenderedPdf> {
  await page.route(`${ORIGIN}/**`, async (route) => {
    const { pathname } = new URL(route.request().url());
    if (pathname === '/') return route.fulfill({ contentType: 'text/html', body: HTML });
    if (pathname === '/document.pdf') return route.fulfill({ contentType: 'application/pdf', body: pdf });
    const file = path.join(BUILD, path.basename(pathname));
    if (/^\/pdf(\.worker)?\.mjs$/.test(pathname) && fs.existsSync(file)) {
      return route.fulfill({ contentType: 'text/javascript', body: fs.readFileSync(file) });
    }
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction('window.pdfReady === true');
  return (await page.evaluate(`window.renderPdf(${scale})`)) as RenderedPdf;
}
