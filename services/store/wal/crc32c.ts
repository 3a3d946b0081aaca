// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven with
// slicing-by-8. Node 20 has no zlib.crc32, and that one is CRC-32 (IEEE) anyway.

const POLY = 0x82f63b78;

/** TABLE[k * 256 + b]: CRC of byte b followed by k zero bytes. */
const TABLE = (() => {
  const t = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    let c = t[i];
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff] ^ (c >>> 8);
      t[k * 256 + i] = c >>> 0;
    }
  }
  return t;
})();

/**
 * CRC-32C of data[start, end). `crc` is the CRC of preceding data, so that
 * crc32c(b, crc32c(a)) === crc32c(a ‖ b).
 */
export function crc32c(data: Uint8Array, crc = 0, start = 0, end = data.length): number {
  const t = TABLE;
  let c = ~crc >>> 0;
  let i = start;
  for (; end - i >= 8; i += 8) {
    c ^= data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    c =
      t[1792 + (c & 0xff)] ^
      t[1536 + ((c >>> 8) & 0xff)] ^
      t[1280 + ((c >>> 16) & 0xff)] ^
      t[1024 + (c >>> 24)] ^
      t[768 + data[i + 4]] ^
      t[512 + data[i + 5]] ^
      t[256 + data[i + 6]] ^
      t[data[i + 7]];
  }
  for (; i < end; i++) c = t[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
