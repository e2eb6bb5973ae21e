/**
 * Reader for rpm header blobs, the unit rpm stores per installed package in its database (and inside .rpm files).
 *
 * Layout (all integers big-endian):
 *   [magic 8E AD E8 01 + 4 reserved bytes]   only in .rpm files; database blobs start at the counts
 *   int32 indexCount, int32 dataLength
 *   indexCount × { int32 tag, int32 type, int32 offset, int32 count }
 *   dataLength bytes of data store, which the entries point into
 * The first entry is usually a region tag (62/63) describing the signed, immutable part of the header; entries
 * added at install time follow it. A reader that only wants values can treat the region like any other entry.
 */

export const RPMTAG = {
  NAME: 1000,
  VERSION: 1001,
  RELEASE: 1002,
  EPOCH: 1003,
  SIZE: 1009,
  VENDOR: 1011,
  LICENSE: 1014,
  ARCH: 1022,
  /** Full file paths, in headers of rpm < 4.0 (later ones split them into the three tags below). */
  OLDFILENAMES: 1027,
  SOURCERPM: 1044,
  /** Per file, the index of its directory in DIRNAMES. */
  DIRINDEXES: 1116,
  /** Per file, its name within its directory. */
  BASENAMES: 1117,
  /** The distinct directories, each ending in `/`. */
  DIRNAMES: 1118,
  LONGSIZE: 5009,
} as const;

export const RpmType = {
  NULL: 0,
  CHAR: 1,
  INT8: 2,
  INT16: 3,
  INT32: 4,
  INT64: 5,
  STRING: 6,
  BIN: 7,
  STRING_ARRAY: 8,
  I18NSTRING: 9,
} as const;

/** Byte width (also the required alignment) of each fixed-size type. */
const FIXED_WIDTH: Record<number, number> = {
  [RpmType.CHAR]: 1,
  [RpmType.INT8]: 1,
  [RpmType.INT16]: 2,
  [RpmType.INT32]: 4,
  [RpmType.INT64]: 8,
  [RpmType.BIN]: 1,
};

const HEADER_MAGIC = Buffer.from([0x8e, 0xad, 0xe8, 0x01]);
/** rpm's own sanity limits (HEADER_TAGS_MAX, HEADER_DATA_MAX in header_internal.h). */
const MAX_INDEX_COUNT = 0xffff;
const MAX_DATA_LENGTH = 0x0fffffff;
const INDEX_ENTRY_SIZE = 16;

export class RpmHeaderError extends Error {
  override name = 'RpmHeaderError';
}

export interface RpmIndexEntry {
  tag: number;
  type: number;
  /** Offset into the data store. */
  offset: number;
  count: number;
}

export type RpmTagValue = number[] | string | string[] | Buffer;

/**
 * A parsed header: the index is read and checked up front, values are decoded on request, since a header can
 * hold thousands of file names nobody here asks for.
 */
export class RpmHeader {
  constructor(
    readonly entries: ReadonlyMap<number, RpmIndexEntry>,
    private readonly data: Buffer,
  ) {}

  has(tag: number): boolean {
    return this.entries.has(tag);
  }

  /** The tag's value, or undefined when the header lacks it. Throws RpmHeaderError if its data is malformed. */
  get(tag: number): RpmTagValue | undefined {
    const entry = this.entries.get(tag);
    return entry ? decodeEntry(entry, this.data) : undefined;
  }

  /** A STRING or I18NSTRING tag (the untranslated text), or the first of a STRING_ARRAY. */
  string(tag: number): string | undefined {
    const value = this.get(tag);
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
    return undefined;
  }

  /** Every string of a STRING_ARRAY tag (or the one of a STRING tag); [] when absent. */
  strings(tag: number): string[] {
    const value = this.get(tag);
    if (typeof value === 'string') return [value];
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : [];
  }

  /** Every value of an integer tag; [] when absent. */
  numbers(tag: number): number[] {
    const value = this.get(tag);
    return Array.isArray(value) && value.every((v) => typeof v === 'number') ? (value as number[]) : [];
  }

  /** The first value of an integer tag. */
  number(tag: number): number | undefined {
    const value = this.get(tag);
    return Array.isArray(value) && typeof value[0] === 'number' ? value[0] : undefined;
  }
}

/** Parses a header blob. Throws RpmHeaderError when the blob is not a well-formed header. */
export function parseRpmHeader(blob: Buffer): RpmHeader {
  let start = 0;
  if (blob.length >= 8 && blob.subarray(0, 4).equals(HEADER_MAGIC)) start = 8;
  if (blob.length < start + 8) throw new RpmHeaderError(`header blob too short (${blob.length} bytes)`);
  const indexCount = blob.readUInt32BE(start);
  const dataLength = blob.readUInt32BE(start + 4);
  if (indexCount < 1 || indexCount > MAX_INDEX_COUNT) throw new RpmHeaderError(`implausible index count ${indexCount}`);
  if (dataLength > MAX_DATA_LENGTH) throw new RpmHeaderError(`implausible data length ${dataLength}`);
  const indexStart = start + 8;
  const dataStart = indexStart + indexCount * INDEX_ENTRY_SIZE;
  if (blob.length < dataStart + dataLength) {
    throw new RpmHeaderError(`header blob truncated: needs ${dataStart + dataLength} bytes, has ${blob.length}`);
  }
  const data = blob.subarray(dataStart, dataStart + dataLength);
  const entries = new Map<number, RpmIndexEntry>();
  for (let i = 0; i < indexCount; i++) {
    const at = indexStart + i * INDEX_ENTRY_SIZE;
    const entry: RpmIndexEntry = {
      tag: blob.readUInt32BE(at),
      type: blob.readUInt32BE(at + 4),
      offset: blob.readInt32BE(at + 8),
      count: blob.readUInt32BE(at + 12),
    };
    checkEntry(entry, dataLength);
    // Entries appended at install time ("dribbles") replace a same-tag entry of the region, as in rpm itself.
    entries.set(entry.tag, entry);
  }
  return new RpmHeader(entries, data);
}

function checkEntry(entry: RpmIndexEntry, dataLength: number): void {
  const { tag, type, offset, count } = entry;
  if (type > RpmType.I18NSTRING) throw new RpmHeaderError(`tag ${tag}: unknown type ${type}`);
  if (offset < 0 || offset > dataLength) throw new RpmHeaderError(`tag ${tag}: offset ${offset} outside data store`);
  if (type === RpmType.NULL) return;
  if (count === 0 || count > dataLength) throw new RpmHeaderError(`tag ${tag}: implausible count ${count}`);
  const width = FIXED_WIDTH[type];
  if (width !== undefined) {
    if (offset % width !== 0) throw new RpmHeaderError(`tag ${tag}: misaligned offset ${offset}`);
    if (offset + width * count > dataLength) throw new RpmHeaderError(`tag ${tag}: data runs past the data store`);
  }
}

function decodeEntry(entry: RpmIndexEntry, data: Buffer): RpmTagValue {
  const { tag, type, offset, count } = entry;
  switch (type) {
    case RpmType.NULL:
      return [];
    case RpmType.CHAR:
    case RpmType.INT8:
      return Array.from(data.subarray(offset, offset + count));
    case RpmType.INT16:
      return Array.from({ length: count }, (_, i) => data.readUInt16BE(offset + 2 * i));
    case RpmType.INT32:
      return Array.from({ length: count }, (_, i) => data.readUInt32BE(offset + 4 * i));
    case RpmType.INT64:
      // Sizes and timestamps: far below 2^53 in practice.
      return Array.from({ length: count }, (_, i) => Number(data.readBigUInt64BE(offset + 8 * i)));
    case RpmType.BIN:
      return data.subarray(offset, offset + count);
    case RpmType.STRING:
      return readStrings(data, offset, 1, tag)[0]!;
    case RpmType.STRING_ARRAY:
    case RpmType.I18NSTRING:
      return readStrings(data, offset, count, tag);
    default:
      throw new RpmHeaderError(`tag ${tag}: unknown type ${type}`);
  }
}

/** `count` consecutive NUL-terminated UTF-8 strings starting at `offset`. */
function readStrings(data: Buffer, offset: number, count: number, tag: number): string[] {
  const strings: string[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    const end = data.indexOf(0, at);
    if (end < 0) throw new RpmHeaderError(`tag ${tag}: unterminated string`);
    strings.push(data.toString('utf8', at, end));
    at = end + 1;
  }
  return strings;
}
