import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

/**
 * Builds the embeddable checkout widget (widget/src, TypeScript) into one minified file,
 * dist/widget/v1.js, which the API serves at /widget/v1.js. Part of `npm run build`; `npm start` and
 * `npm test` run it too. esbuild is a development dependency: production images run this in their build
 * stage and ship the file.
 */

const root = path.resolve(
  __dirname,
  '..',
  ...(path.basename(path.dirname(__dirname)) === 'dist' ? ['..'] : []),
);
export const WIDGET_ENTRY = path.join(root, 'widget', 'src', 'index.ts');
export const WIDGET_BUNDLE = path.join(root, 'dist', 'widget', 'v1.js');
/** The script stays under 25 KB gzipped. */
export const WIDGET_GZIP_BUDGET = 25 * 1024;

export interface WidgetBuild {
  file: string;
  bytes: number;
  gzipBytes: number;
  sha256: string;
}

export async function buildWidget(outfile = WIDGET_BUNDLE): Promise<WidgetBuild> {
  // Loaded here, not at the top: the API never needs esbuild, only this build step does.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [WIDGET_ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    charset: 'utf8',
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = Buffer.from(result.outputFiles[0].contents);
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  fs.writeFileSync(outfile, code);
  return {
    file: outfile,
    bytes: code.length,
    gzipBytes: zlib.gzipSync(code, { level: 9 }).length,
    sha256: crypto.createHash('sha256').update(code).digest('hex'),
  };
}

export const describeBuild = (b: WidgetBuild): string =>
  `widget: ${path.relative(root, b.file)} ${(b.bytes / 1024).toFixed(1)} KB, ` +
  `${(b.gzipBytes / 1024).toFixed(1)} KB gzipped (budget ${WIDGET_GZIP_BUDGET / 1024} KB)`;

if (require.main === module) {
  buildWidget().then(
    (b) => {
      process.stdout.write(`${describeBuild(b)}\n`);
      if (b.gzipBytes > WIDGET_GZIP_BUDGET) {
        process.stderr.write('widget: over the size budget\n');
        process.exitCode = 1;
      }
    },
    (err: Error) => {
      process.stderr.write(`widget: build failed: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
