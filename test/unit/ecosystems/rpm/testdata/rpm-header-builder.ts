/**
 * Encodes rpm header blobs by hand, for cases a real rpm will not produce on demand (duplicate "dribble" tags,
 * 64-bit sizes, headers damaged in specific ways). Real headers come from fixtures/rpmdb.ts.
 */
import { RpmType } from '../../../../../src/ecosystems/rpm/header.js';

export interface HeaderEntrySpec {
  tag: number;
  type: number;
  value: string | string[] | number[] | Buffer;
}

const ALIGN: Record<number, number> = { [RpmType.INT16]: 2, [RpmType.INT32]: 4, [RpmType.INT64]: 8 };

function encodeValue(spec: HeaderEntrySpec): { bytes: Buffer; count: number } {
  const { type, value } = spec;
  if (type === RpmType.STRING && typeof value === 'string') return { bytes: Buffer.from(`${value}\0`), count: 1 };
  if ((type === RpmType.STRING_ARRAY || type === RpmType.I18NSTRING) && Array.isArray(value)) {
    return { bytes: Buffer.from(value.map((s) => `${s}\0`).join('')), count: value.length };
  }
  if (type === RpmType.BIN && Buffer.isBuffer(value)) return { bytes: value, count: value.length };
  if (Array.isArray(value)) {
    const numbers = value as number[];
    const width = { [RpmType.INT8]: 1, [RpmType.CHAR]: 1, [RpmType.INT16]: 2, [RpmType.INT32]: 4, [RpmType.INT64]: 8 }[type];
    if (width === undefined) throw new Error(`cannot encode type ${type}`);
    const bytes = Buffer.alloc(width * numbers.length);
    numbers.forEach((n, i) => {
      if (width === 1) bytes.writeUInt8(n, i);
      else if (width === 2) bytes.writeUInt16BE(n, 2 * i);
      else if (width === 4) bytes.writeUInt32BE(n, 4 * i);
      else bytes.writeBigUInt64BE(BigInt(n), 8 * i);
    });
    return { bytes, count: numbers.length };
  }
  throw new Error(`value does not fit type ${type}`);
}

/** A header blob as rpm stores it in its database (no leading magic), or as in a .rpm file with `withMagic`. */
export function buildRpmHeaderBlob(entries: HeaderEntrySpec[], options: { withMagic?: boolean } = {}): Buffer {
  const index = Buffer.alloc(16 * entries.length);
  const chunks: Buffer[] = [];
  let dataLength = 0;
  entries.forEach((entry, i) => {
    const align = ALIGN[entry.type] ?? 1;
    const padding = (align - (dataLength % align)) % align;
    if (padding) chunks.push(Buffer.alloc(padding));
    dataLength += padding;
    const { bytes, count } = encodeValue(entry);
    index.writeUInt32BE(entry.tag, 16 * i);
    index.writeUInt32BE(entry.type, 16 * i + 4);
    index.writeUInt32BE(dataLength, 16 * i + 8);
    index.writeUInt32BE(count, 16 * i + 12);
    chunks.push(bytes);
    dataLength += bytes.length;
  });
  const counts = Buffer.alloc(8);
  counts.writeUInt32BE(entries.length, 0);
  counts.writeUInt32BE(dataLength, 4);
  const magic = options.withMagic ? [Buffer.from([0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0])] : [];
  return Buffer.concat([...magic, counts, index, ...chunks]);
}
