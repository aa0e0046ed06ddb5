import { execFileSync } from 'node:child_process';

/**
 * Two decoders of the ZATCA QR, written apart from the platform's encoder and from each other, so a test
 * that agrees with both checks the bytes rather than the code that wrote them.
 */

/** Walks the bytes with a DataView: tag (uint8), length (uint8), value (UTF-8 through TextDecoder). */
export function decodeWithDataView(base64: string): Array<{ tag: number; length: number; value: string }> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  const view = new DataView(bytes.buffer);
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const out: Array<{ tag: number; length: number; value: string }> = [];
  let offset = 0;
  while (offset < view.byteLength) {
    const tag = view.getUint8(offset);
    const length = view.getUint8(offset + 1);
    if (offset + 2 + length > view.byteLength) throw new Error(`tag ${tag} overruns the record`);
    out.push({ tag, length, value: utf8.decode(bytes.subarray(offset + 2, offset + 2 + length)) });
    offset += 2 + length;
  }
  return out;
}

const PYTHON_DECODER = `
import base64, json, sys
raw = base64.b64decode(sys.stdin.read().strip(), validate=True)
fields, i = [], 0
while i < len(raw):
    tag, length = raw[i], raw[i + 1]
    value = raw[i + 2:i + 2 + length]
    if len(value) != length:
        raise SystemExit("tag %d overruns the record" % tag)
    fields.append({"tag": tag, "length": length, "value": value.decode("utf-8")})
    i += 2 + length
print(json.dumps(fields, ensure_ascii=False))
`;

/** The same decoding by a small Python program run through python3. */
export function decodeWithPython(base64: string): Array<{ tag: number; length: number; value: string }> {
  const out = execFileSync('python3', ['-c', PYTHON_DECODER], { input: base64, encoding: 'utf8' });
  return JSON.parse(out) as Array<{ tag: number; length: number; value: string }>;
}
