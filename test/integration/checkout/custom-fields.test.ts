import { expect } from 'chai';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Checkout, CheckoutUpload, Product, Store } from '../../../db/models';
import { sha256 } from '../../../shared/crypto';
import { judgeUpload } from '../../../shared/services/custom-fields/uploads';
import { createCustomer, customerToken } from '../../helpers/builders';
import {
  CheckoutSuite,
  createProductWithFields,
  Data,
  dataOf,
  EmbedCaller,
  filePart,
  filesUnder,
  fixture,
  GUEST,
  storeSuite,
} from './support';
import { randomIp } from '../../helpers/otp';

const GUEST_PATH = '/api/embed/guest/checkout';
const MiB = 1024 * 1024;

describe('Checkout custom fields and uploads', () => {
  let suite: CheckoutSuite;
  let store: Store;
  let api: EmbedCaller;
  let product: Product;

  before(async () => {
    ({ suite, store, api } = await storeSuite({ paymentMethod: {} }));
    product = await createProductWithFields(store, [
      { type: 'text', label: 'Player name', required: true },
      { type: 'image', label: 'Avatar', required: false },
      { type: 'file', label: 'Brief', required: false },
      {
        type: 'select',
        label: 'Edition',
        required: false,
        options: [
          { label: 'Standard', price_minor: 0 },
          { label: 'Deluxe', price_minor: 1000 },
        ],
      },
      { type: 'number', label: 'Level', required: false },
      { type: 'date', label: 'Birthday', required: false },
      { type: 'datetime', label: 'Start', required: false },
      { type: 'color', label: 'Colour', required: false },
    ]);
  });
  after(() => suite.close());

  const checkoutByUrl = (res: { body: Data }) =>
    Checkout.query()
      .findOne({ token_hash: sha256(String((res.body.data as Data).checkout_url)) })
      .throwIfNotFound();

  /** A guest multipart form for `product` with the text value of field 0 set. */
  function form(extra: Record<string, string> = {}, p: Product = product): FormData {
    const f = new FormData();
    for (const [k, v] of Object.entries({ ...GUEST, product_id: String(p.id), quantity: '1', ...extra }))
      f.append(k, v);
    return f;
  }

  /** What the database and UPLOAD_DIR hold for the product: a refused request must leave it unchanged. */
  async function storedState() {
    return {
      checkouts: await Checkout.query().where({ product_id: product.id }).resultSize(),
      uploads: await CheckoutUpload.query().resultSize(),
      files: await filesUnder(suite.uploadDir),
    };
  }

  describe('values (JSON)', () => {
    const post = (fields: unknown) =>
      api.post(GUEST_PATH, { ...GUEST, product_id: product.id, quantity: 1, fields });

    it('stores every type of value with its label', async () => {
      const res = await post({
        0: 'Neo',
        3: 1,
        4: 42.5,
        5: '2024-02-29',
        6: '2024-02-29T13:45:00+03:00',
        7: '#1A2B3C',
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(dataOf(res).subtotal).to.equal('60.00');
      expect((await checkoutByUrl(res)).fields).to.deep.equal({
        0: { type: 'text', label: 'Player name', value: 'Neo' },
        3: { type: 'select', label: 'Edition', value: 1, option: 'Deluxe', price_minor: 1000 },
        4: { type: 'number', label: 'Level', value: 42.5 },
        5: { type: 'date', label: 'Birthday', value: '2024-02-29' },
        6: { type: 'datetime', label: 'Start', value: '2024-02-29T13:45:00+03:00' },
        7: { type: 'color', label: 'Colour', value: '#1a2b3c' },
      });
    });

    it('accepts an array of values keyed by position', async () => {
      const res = await post(['Trinity', null, null, 0]);
      expect(res.status).to.equal(200);
      expect(Object.keys((await checkoutByUrl(res)).fields)).to.deep.equal(['0', '3']);
    });

    it('requires the required fields', async () => {
      for (const fields of [undefined, {}, { 0: '' }, { 0: '   ' }]) {
        const res = await post(fields);
        expect(res.status).to.equal(422);
        expect(res.body.errors).to.deep.equal({ 'fields.0': ['Player name is required.'] });
      }
    });

    it('refuses indexes the product does not have and keys that are not indexes', async () => {
      const res = await post({ 0: 'Neo', 9: 'x' });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({ 'fields.9': ['The product has no field 9.'] });
      const named = await post({ 0: 'Neo', colour: 'red' });
      expect(named.status).to.equal(422);
      expect(named.body.errors).to.have.keys('fields.colour');
    });

    it('checks each value against its type, reporting every bad one at once', async () => {
      const res = await post({
        0: { nested: true },
        1: 'avatar.png',
        3: 5,
        4: 'many',
        5: '2023-02-29',
        6: '2024-01-01 25:00',
        7: 'red',
      });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({
        'fields.0': ['Player name must be text.'],
        'fields.1': ['Send Avatar as the file part field_files.1.'],
        'fields.3': ['Edition must be the index of one of its options (0 to 1).'],
        'fields.4': ['Level must be a number.'],
        'fields.5': ['Birthday must be a date (YYYY-MM-DD).'],
        'fields.6': ['Start must be an ISO 8601 date and time.'],
        'fields.7': ['Colour must be a colour such as #1a2b3c.'],
      });
    });

    it('requires a required file part, which JSON cannot carry', async () => {
      const withImage = await createProductWithFields(store, [
        { type: 'image', label: 'Photo', required: true },
      ]);
      const res = await api.post(GUEST_PATH, { ...GUEST, product_id: withImage.id, quantity: 1 });
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.deep.equal({ 'field_files.0': ['Photo is required.'] });
    });
  });

  describe('multipart', () => {
    it('reads fields[i], fields.i and a JSON fields part, the keyed parts winning', async () => {
      const f = form({
        fields: JSON.stringify({ 0: 'from json', 4: '7' }),
        'fields[0]': 'Neo',
        'fields.3': '1',
      });
      const res = await api.postForm(GUEST_PATH, f);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const checkout = await checkoutByUrl(res);
      expect(checkout.fields).to.deep.include({
        0: { type: 'text', label: 'Player name', value: 'Neo' },
        3: { type: 'select', label: 'Edition', value: 1, option: 'Deluxe', price_minor: 1000 },
        4: { type: 'number', label: 'Level', value: 7 },
      });
      expect(checkout.addons_minor).to.equal(1000);
    });

    it('reads a urlencoded form with the same keys, keeping sparse indexes where they are', async () => {
      const params = new URLSearchParams({
        ...GUEST,
        product_id: String(product.id),
        quantity: '1',
        'fields[0]': 'Neo',
        'fields[4]': '3',
      });
      const res = await suite.server.request(GUEST_PATH, {
        method: 'POST',
        body: params.toString(),
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Embed-Key': store.embed_key,
          'X-Forwarded-For': randomIp(),
        },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect((await checkoutByUrl(res)).fields).to.deep.equal({
        0: { type: 'text', label: 'Player name', value: 'Neo' },
        4: { type: 'number', label: 'Level', value: 3 },
      });
    });

    it('answers 400 for a malformed multipart body and 413 for one declared too large', async () => {
      const headers = { 'X-Embed-Key': store.embed_key, 'X-Forwarded-For': randomIp() };
      const malformed = await suite.server.request(GUEST_PATH, {
        method: 'POST',
        body: '--xyz\r\nContent-Disposition: form-data; name="quantity"\r\n\r\n1',
        headers: { ...headers, 'Content-Type': 'multipart/form-data; boundary=xyz' },
      });
      expect(malformed.status).to.equal(400);
      expect(malformed.body).to.deep.equal({
        success: false,
        error_code: 'invalid_request',
        message: 'Malformed multipart body',
      });

      // fetch() will not send a Content-Length it does not honour; a raw request declares 200 MB and
      // sends a few bytes, as a client about to upload too much would.
      const huge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${suite.server.url}${GUEST_PATH}`, {
          method: 'POST',
          headers: {
            ...headers,
            'Content-Type': 'multipart/form-data; boundary=xyz',
            'Content-Length': String(200 * MiB),
          },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => {
            req.destroy();
            resolve({ status: res.statusCode ?? 0, body });
          });
        });
        req.on('error', reject);
        req.write('--xyz\r\n');
      });
      expect(huge.status).to.equal(413);
      expect(JSON.parse(huge.body)).to.deep.equal({
        success: false,
        error_code: 'payload_too_large',
        message: 'Request body is too large',
      });
      const spooled = (await filesUnder(suite.uploadDir)).filter((f) => f.startsWith('.incoming'));
      expect(spooled, 'temporary files').to.deep.equal([]);
    });

    const accepted: [string, number, string][] = [
      ['sample.png', 1, 'image/png'],
      ['sample.jpg', 1, 'image/jpeg'],
      ['sample.gif', 1, 'image/gif'],
      ['sample.pdf', 2, 'application/pdf'],
      ['sample.docx', 2, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ['sample.zip', 2, 'application/zip'],
      ['sample.txt', 2, 'text/plain'],
    ];
    for (const [name, index, mime] of accepted) {
      it(`stores ${name} through the storage driver and records it`, async () => {
        const content = await fixture(name);
        const f = form({ 'fields[0]': 'Neo' });
        f.append(`field_files.${index}`, ...filePart(content, name));
        const res = await api.postForm(GUEST_PATH, f);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        const checkout = await checkoutByUrl(res);
        const uploads = await CheckoutUpload.query().where({ checkout_id: checkout.id });
        expect(uploads).to.have.length(1);
        expect(uploads[0]).to.include({
          field_index: index,
          storage_driver: 'local',
          original_name: name,
          mime_type: mime,
          size_bytes: content.length,
        });
        const stored = await readFile(path.join(suite.uploadDir, uploads[0].storage_key));
        expect(stored.equals(content)).to.equal(true);
        expect(checkout.fields[String(index)]).to.deep.include({
          file: { name, mime_type: mime, size_bytes: content.length },
        });
        expect(await filesUnder(path.join(suite.uploadDir, '.incoming')), 'temporary files').to.deep.equal(
          [],
        );
      });
    }

    it('stores a DOC, recognised by its compound-file signature', async () => {
      const doc = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(504, 0)]);
      const f = form({ 'fields[0]': 'Neo' });
      f.append('field_files.2', ...filePart(doc, 'letter.doc'));
      const res = await api.postForm(GUEST_PATH, f);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const [upload] = await CheckoutUpload.query().where({ checkout_id: (await checkoutByUrl(res)).id });
      expect(upload.mime_type).to.equal('application/msword');
    });

    it('works on the authenticated checkout too', async () => {
      const token = await customerToken(await createCustomer(store), 'embed');
      const f = new FormData();
      f.append('product_id', String(product.id));
      f.append('quantity', '2');
      f.append('fields.0', 'Neo');
      f.append('field_files.1', ...filePart(await fixture('sample.png'), 'me.png'));
      const res = await api.postForm('/api/embed/checkout', f, token);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(dataOf(res).subtotal).to.equal('100.00');
      expect(
        await CheckoutUpload.query().where({ checkout_id: (await checkoutByUrl(res)).id }),
      ).to.have.length(1);
    });

    const refused: [string, () => Promise<[number | string, Buffer, string]>, string, string][] = [
      [
        'HTML named .png',
        async () => [1, await fixture('html-renamed.png'), 'html-renamed.png'],
        'field_files.1',
        'The image must be a JPG, PNG or GIF image.',
      ],
      [
        'a program named .png',
        async () => [1, await fixture('program-renamed.png'), 'program-renamed.png'],
        'field_files.1',
        'The image must be a JPG, PNG or GIF image.',
      ],
      [
        'a plain ZIP named .docx',
        async () => [2, await fixture('zip-renamed.docx'), 'zip-renamed.docx'],
        'field_files.2',
        'The content of the file does not match its .docx extension.',
      ],
      [
        'a PNG named .gif',
        async () => [1, await fixture('sample.png'), 'photo.gif'],
        'field_files.1',
        'The content of the image does not match its .gif extension.',
      ],
      [
        'a PDF in an image field',
        async () => [1, await fixture('sample.pdf'), 'sample.pdf'],
        'field_files.1',
        'The image must be a JPG, PNG or GIF image.',
      ],
      [
        'an image in a file field',
        async () => [2, await fixture('sample.png'), 'sample.png'],
        'field_files.2',
        'The file must be a PDF, DOC, DOCX, TXT or ZIP file.',
      ],
      [
        'text with NUL bytes',
        async () => [2, Buffer.from('abc\u0000def'), 'notes.txt'],
        'field_files.2',
        'The file must be a PDF, DOC, DOCX, TXT or ZIP file.',
      ],
      [
        'text that is not UTF-8',
        async () => [2, Buffer.from([0x48, 0xff, 0xfe, 0x49]), 'notes.txt'],
        'field_files.2',
        'The file must be a PDF, DOC, DOCX, TXT or ZIP file.',
      ],
      ['an empty file', async () => [1, Buffer.alloc(0), 'empty.png'], 'field_files.1', 'The file is empty.'],
      [
        'an image over 10 MB',
        async () => [1, Buffer.concat([await fixture('sample.png'), Buffer.alloc(10 * MiB)]), 'big.png'],
        'field_files.1',
        'The image may not be larger than 10 MB.',
      ],
      [
        'a file over 20 MB',
        async () => [2, Buffer.concat([await fixture('sample.pdf'), Buffer.alloc(20 * MiB)]), 'big.pdf'],
        'field_files.2',
        'The file may not be larger than 20 MB.',
      ],
      [
        'a file for a field that takes none',
        async () => [0, await fixture('sample.png'), 'a.png'],
        'field_files.0',
        'The product has no image or file field 0.',
      ],
      [
        'a file for an index the product lacks',
        async () => [9, await fixture('sample.png'), 'a.png'],
        'field_files.9',
        'The product has no image or file field 9.',
      ],
      [
        'a file part with another name',
        async () => ['avatar', await fixture('sample.png'), 'a.png'],
        'avatar',
        'Files are accepted only in parts named field_files.{index}.',
      ],
    ];
    for (const [name, make, key, message] of refused) {
      it(`refuses ${name} with 422 naming ${key}, storing nothing`, async () => {
        const before = await storedState();
        const [index, content, filename] = await make();
        const f = form({ 'fields[0]': 'Neo' });
        f.append(typeof index === 'number' ? `field_files.${index}` : index, ...filePart(content, filename));
        const res = await api.postForm(GUEST_PATH, f);
        expect(res.status, JSON.stringify(res.body)).to.equal(422);
        expect(res.body.success).to.equal(false);
        expect(res.body.errors).to.deep.equal({ [key]: [message] });
        expect(await storedState()).to.deep.equal(before);
      });
    }

    it('stores nothing when a good file comes with another invalid field', async () => {
      const before = await storedState();
      const f = form({ 'fields[0]': '', customer_email: 'nope' });
      f.append('field_files.1', ...filePart(await fixture('sample.png'), 'me.png'));
      f.append('field_files.2', ...filePart(await fixture('sample.pdf'), 'brief.pdf'));
      const res = await api.postForm(GUEST_PATH, f);
      expect(res.status).to.equal(422);
      expect(res.body.errors).to.have.keys('customer_email');
      const second = await api.postForm(
        GUEST_PATH,
        (() => {
          const g = form({ 'fields[0]': '' });
          g.append('field_files.1', ...filePart(Buffer.from('x'), 'me.png'));
          return g;
        })(),
      );
      expect(second.status).to.equal(422);
      expect(second.body.errors).to.deep.equal({
        'fields.0': ['Player name is required.'],
        'field_files.1': ['The image must be a JPG, PNG or GIF image.'],
      });
      expect(await storedState()).to.deep.equal(before);
    });

    it('keeps the files of the one checkout that got the last unit, and none of the refused ones', async () => {
      const limited = await createProductWithFields(
        store,
        [{ type: 'file', label: 'Brief', required: true }],
        {
          stock: 1,
        },
      );
      const pdf = await fixture('sample.pdf');
      const before = await filesUnder(suite.uploadDir);
      // Simultaneous requests: some are refused by the early stock check, others only when the transaction
      // fails to take the unit after their file was stored. Either way nothing of theirs may remain.
      const results = await Promise.all(
        Array.from({ length: 6 }, () => {
          const f = form({}, limited);
          f.append('field_files.0', ...filePart(pdf, 'brief.pdf'));
          return api.postForm(GUEST_PATH, f);
        }),
      );
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 400, 400, 400, 400, 400]);
      for (const r of results.filter((x) => x.status === 400))
        expect(r.body.message).to.equal('Insufficient stock');
      const added = (await filesUnder(suite.uploadDir)).filter((f) => !before.includes(f));
      expect(added).to.have.length(1);
      const [upload] = await CheckoutUpload.query()
        .join('checkouts', 'checkouts.id', 'checkout_uploads.checkout_id')
        .where('checkouts.product_id', limited.id);
      expect(upload.storage_key).to.equal(added[0]);
      expect((await Product.query().findById(limited.id))!.stock).to.equal(0);
    });
  });

  describe('content checks', () => {
    it('goes by content when the name has no extension', async () => {
      expect(judgeUpload('image', 'blob', await fixture('sample.gif'))).to.deep.equal({
        ok: true,
        kind: 'gif',
        mime: 'image/gif',
      });
      expect(judgeUpload('file', 'upload', await fixture('sample.docx'))).to.include({
        ok: true,
        kind: 'docx',
      });
    });

    it('takes a DOCX named .zip as a ZIP, and accepts .jpeg for a JPG', async () => {
      expect(judgeUpload('file', 'archive.zip', await fixture('sample.docx'))).to.include({
        ok: true,
        kind: 'zip',
      });
      expect(judgeUpload('image', 'PHOTO.JPEG', await fixture('sample.jpg'))).to.include({
        ok: true,
        kind: 'jpg',
      });
    });

    it('refuses a truncated ZIP', async () => {
      const zip = await fixture('sample.zip');
      expect(judgeUpload('file', 'a.zip', zip.subarray(0, zip.length - 10)).ok).to.equal(false);
    });
  });
});
