/**
 * CRC-64-AVRO (Rabin) fingerprint of a schema's Parsing Canonical Form, as the
 * Avro specification defines it for single-object encoding. avsc 5 offers only
 * cryptographic hashes, so the 64-bit Rabin table lives here.
 */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: bigint[] = (() => {
  const t: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & (-(fp & 1n) & MASK));
    t.push(fp);
  }
  return t;
})();

export function rabin64(data: Uint8Array): bigint {
  let fp = EMPTY;
  for (const b of data) fp = (fp >> 8n) ^ TABLE[Number((fp ^ BigInt(b)) & 0xffn)]!;
  return fp;
}

/** The 8 fingerprint bytes as they travel in a single-object message (little-endian). */
export function fingerprintBytes(canonicalForm: string): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(rabin64(Buffer.from(canonicalForm, 'utf8')));
  return out;
}
