import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { DEFAULT_ERROR_CODE, ERROR_CODES } from '../../shared/error-codes';
import { ERROR_MESSAGES_AR } from '../../shared/i18n/buyer-messages';

describe('error codes', () => {
  const doc = readFileSync(path.join(__dirname, '../../docs/errors.md'), 'utf8');

  it('docs/errors.md lists every code in a table row of its own', () => {
    const listed = new Set([...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|/gm)].map((m) => m[1]));
    const missing = Object.values(ERROR_CODES).filter((code) => !listed.has(code));
    expect(missing, 'codes docs/errors.md does not list').to.deep.equal([]);
  });

  it('every code is lower_snake_case, named as its key, has Arabic, and defaults are declared codes', () => {
    for (const [key, code] of Object.entries(ERROR_CODES)) {
      expect(code).to.match(/^[a-z]+(_[a-z]+)*$/);
      expect(code).to.equal(key);
      expect(ERROR_MESSAGES_AR[code]({}), code).to.match(/[\u0600-\u06FF]/);
    }
    for (const code of Object.values(DEFAULT_ERROR_CODE)) {
      expect(Object.values(ERROR_CODES)).to.include(code);
    }
  });
});
