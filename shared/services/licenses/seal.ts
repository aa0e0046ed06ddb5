import crypto from 'node:crypto';

/**
 * Encrypted answers (docs/license.md, "Encrypted answers"). The JSON document that would have been sent is
 * encrypted whole with AES-256-GCM under the product's 32-byte key, with a fresh random 96-bit IV per
 * answer and no additional authenticated data, and sent as
 *   {"encrypted": true, "alg": "AES-256-GCM", "iv": b64(12 bytes), "tag": b64(16 bytes), "data": b64(ciphertext)}
 * (standard base64 with padding).
 */
export interface EncryptedAnswer {
  encrypted: true;
  alg: 'AES-256-GCM';
  iv: string;
  tag: string;
  data: string;
}

export function encryptAnswer(key: Buffer, plaintext: string): EncryptedAnswer {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return {
    encrypted: true,
    alg: 'AES-256-GCM',
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

/** The inverse, as a client does it (used by tests and the docs' example). */
export function decryptAnswer(key: Buffer, answer: Pick<EncryptedAnswer, 'iv' | 'tag' | 'data'>): string {
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(answer.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(answer.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(answer.data, 'base64')), decipher.final()]).toString(
    'utf8',
  );
}
