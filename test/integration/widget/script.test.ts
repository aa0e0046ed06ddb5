import { expect } from 'chai';
import fs from 'node:fs';
import { allRoutes } from '../../../api/routes';
import { buildWidget, WIDGET_GZIP_BUDGET, WidgetBuild } from '../../../scripts/build-widget';
import { currentDocument, generateEmbedTypes, TYPES_FILE } from '../../../scripts/widget-types';
import { createProduct, createStore } from '../../helpers/builders';
import { sharedDeps } from '../../helpers/deps';
import { startServer, TestServer } from '../../helpers/http';

/**
 * The widget as a file: its size budget, what it leaves out (eval), the types it reads the Embed API with
 * (generated from the OpenAPI document), and how the API serves it and the development demo page.
 */
describe('widget script /widget/v1.js', function () {
  this.timeout(30_000);
  let build: WidgetBuild;
  let server: TestServer;

  before(async () => {
    build = await buildWidget();
    server = await startServer(await sharedDeps());
  });
  after(() => server.close());

  it('is one file under 25 KB gzipped, without eval, Function or HTML parsing', () => {
    expect(build.gzipBytes).to.be.below(WIDGET_GZIP_BUDGET);
    const code = fs.readFileSync(build.file, 'utf8');
    expect(code).to.not.match(/\beval\(|new Function\(/);
    expect(code).to.not.match(/\binnerHTML\b|insertAdjacentHTML|document\.write/);
  });

  it('reads the Embed API with types that match the OpenAPI document', async () => {
    expect(fs.readFileSync(TYPES_FILE, 'utf8')).to.equal(
      await generateEmbedTypes(currentDocument()),
      'widget/src/embed-types.ts is stale: run `npx tsx scripts/widget-types.ts`',
    );
  });

  it('is served to any origin, gzipped, with a content-hash ETag and a 304 on revalidation', async () => {
    const res = await server.request('/widget/v1.js', {
      headers: { Origin: 'https://shop.example.test', 'Accept-Encoding': 'gzip' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/javascript; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(res.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=300');
    expect(res.headers.get('content-encoding')).to.equal('gzip');
    expect(res.text).to.equal(fs.readFileSync(build.file, 'utf8'));
    const etag = res.headers.get('etag');
    expect(etag).to.match(/^"[\w-]{22}"$/);

    // Sent with node:http (a Host header makes the helper use it): fetch() adds Cache-Control: no-cache to
    // a request carrying If-None-Match, which rightly forbids a 304.
    const again = await server.request('/widget/v1.js', {
      headers: { Host: '127.0.0.1', 'If-None-Match': etag! },
    });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    const stale = await server.request('/widget/v1.js', {
      headers: { Host: '127.0.0.1', 'If-None-Match': '"old"' },
    });
    expect(stale.status).to.equal(200);
  });

  it('serves a demo merchant page under a strict CSP outside production only', async () => {
    const store = await createStore({ name: 'Demo <Shop>' });
    const products = [
      await createProduct(store, { name: 'Key A' }),
      await createProduct(store, { name: 'Key B' }),
    ];
    const res = await server.request(`/demo/widget?key=${store.embed_key}`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy'))
      .to.contain("script-src 'self'")
      .and.not.contain('unsafe');
    expect(res.text)
      .to.contain('Demo &lt;Shop&gt;')
      .and.contain('<script src="/widget/v1.js" async></script>');
    for (const p of products) {
      expect(res.text).to.contain(`data-matjar-product="${p.id}" data-matjar-key="${store.embed_key}"`);
    }
    expect(res.text).to.contain('data-matjar-theme="dark"').and.contain('<section lang="ar">');
    const css = await server.request('/demo/widget.css');
    expect(css.headers.get('content-type')).to.equal('text/css; charset=utf-8');

    const production = allRoutes({ nodeEnv: 'production' }).map((r) => r.path);
    expect(production).to.include('/widget/v1.js');
    expect(production.filter((p) => p.startsWith('/demo'))).to.deep.equal([]);
  });
});
