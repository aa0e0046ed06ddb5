import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

/**
 * Real-browser tests: headless Chromium driven by playwright-core, which brings no browser of its own, so
 * this uses the system's (Debian's `chromium` package). `npm test` installs it when missing and passes its
 * path in CHROMIUM_PATH; `npx mocha FILE` finds it on the PATH.
 *
 * One browser for the whole run, launched on first use and closed by the root hook in setup.ts; every test
 * gets its own context (cookies, storage, locale) so tests do not see each other's state.
 *
 *   import { newPage } from '../helpers/browser';
 *
 *   it('shows the page in Arabic', async () => {
 *     const page = await newPage({ locale: 'ar' });   // Accept-Language: ar
 *     try {
 *       await page.goto(`${baseUrl}/pay/...`);
 *       expect(await page.locator('html').getAttribute('dir')).to.equal('rtl');
 *     } finally {
 *       await page.context().close();
 *     }
 *   });
 *
 * or `await withPage(async (page) => { ... }, { locale: 'ar' })`, which closes the context itself.
 *
 * The browser resolves only loopback names (127.0.0.1, [::1], localhost and *.localhost): a page that
 * reaches for anything else (an external font, a CDN script) gets a name-resolution error instead of
 * traffic leaving the machine. Give a browser test's `describe` a `this.timeout(60_000)`: the first launch
 * takes a few seconds on a busy machine.
 */

let launching: Promise<Browser> | null = null;

/** The Chromium executable: CHROMIUM_PATH, else `chromium` or `chromium-browser` on the PATH. */
export function chromiumExecutable(): string {
  const given = process.env.CHROMIUM_PATH;
  if (given) return given;
  const dirs = `${process.env.PATH ?? ''}:/usr/bin:/usr/local/bin`.split(path.delimiter);
  for (const name of ['chromium', 'chromium-browser']) {
    for (const dir of dirs) {
      if (!dir) continue;
      const candidate = path.join(dir, name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  throw new Error(
    "Chromium is not installed: `npm test` installs Debian's chromium package when missing " +
      '(or run `apt-get install chromium`, or set CHROMIUM_PATH)',
  );
}

/** The run's shared headless Chromium, launched on first call. */
export function sharedBrowser(): Promise<Browser> {
  if (!launching) {
    const executablePath = chromiumExecutable();
    launching = import('playwright-core').then(({ chromium }) =>
      chromium.launch({
        executablePath,
        headless: true,
        args: [
          // Only loopback resolves: nothing a page loads can leave the machine.
          '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE *.localhost, EXCLUDE 127.0.0.1',
          // Containers often give /dev/shm 64 MB, too little for Chromium's renderers.
          '--disable-dev-shm-usage',
          '--disable-gpu',
        ],
      }),
    );
    // A failed launch must not be cached: the next test tries again and reports its own error.
    launching.catch(() => {
      launching = null;
    });
  }
  return launching;
}

/** A page in a fresh context of the shared browser. Close it with `page.context().close()`. */
export async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const browser = await sharedBrowser();
  const context = await browser.newContext(options);
  context.setDefaultTimeout(15_000);
  return context.newPage();
}

/** Runs `fn` with a page in a fresh context and closes the context afterwards, whatever happens. */
export async function withPage<T>(
  fn: (page: Page) => Promise<T>,
  options: BrowserContextOptions = {},
): Promise<T> {
  const page = await newPage(options);
  try {
    return await fn(page);
  } finally {
    await page.context().close();
  }
}

/** Closes the shared browser, if one was launched (the root hook's afterAll calls this). */
export async function closeSharedBrowser(): Promise<void> {
  const pending = launching;
  launching = null;
  if (!pending) return;
  const browser = await pending.catch(() => null);
  await browser?.close();
}
