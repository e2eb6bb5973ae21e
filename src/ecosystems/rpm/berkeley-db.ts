/**
 * Reads the values of a Berkeley DB hash database, the format of rpm's `Packages` file before rpm 4.16
 * (CentOS/RHEL ≤ 8, Amazon Linux 2, older SUSE). rpm stores one header blob per value, keyed by instance number.
 *
 * Rather than following the hash buckets, every page is visited once: hash pages list key/data items, and data
 * too large for a page sits in a chain of overflow pages. Only what reading values needs is implemented; no
 * locking, no log, no writes. Encrypted databases are not supported.
 *
 * Layout references: Berkeley DB 5.3 dbinc/db_page.h (DBMETA, PAGE, HOFFPAGE).
 */

const HASH_MAGIC = 0x061561;
const PAGE_HEADER_SIZE = 26;
const PAGE_TYPE_HASH_UNSORTED = 2;
const PAGE_TYPE_OVERFLOW = 7;
const PAGE_TYPE_HASH_META = 8;
const PAGE_TYPE_HASH = 13;
const ITEM_KEYDATA = 1;
const ITEM_OFFPAGE = 3;
const MIN_PAGE_SIZE = 512;
const MAX_PAGE_SIZE = 65536;

/** Byte-order-aware field reads: Berkeley DB writes in the creating host's byte order. */
interface Reader {
  u16(offset: number): number;
  u32(offset: number): number;
}

function readerFor(buf: Buffer, littleEndian: boolean): Reader {
  return littleEndian
    ? { u16: (o) => buf.readUInt16LE(o), u32: (o) => buf.readUInt32LE(o) }
    : { u16: (o) => buf.readUInt16BE(o), u32: (o) => buf.readUInt32BE(o) };
}

interface HashDbLayout {
  read: Reader;
  pageSize: number;
  lastPage: number;
}

/** Reads the metadata page; undefined when this is not an unencrypted Berkeley DB hash database. */
function readHashMeta(content: Buffer): HashDbLayout | undefined {
  if (content.length < MIN_PAGE_SIZE) return undefined;
  let read: Reader;
  if (content.readUInt32LE(12) === HASH_MAGIC) read = readerFor(content, true);
  else if (content.readUInt32BE(12) === HASH_MAGIC) read = readerFor(content, false);
  else return undefined;
  const pageSize = read.u32(20);
  const encryptAlg = content[24];
  const type = content[25];
  if (type !== PAGE_TYPE_HASH_META || encryptAlg !== 0) return undefined;
  if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || (pageSize & (pageSize - 1)) !== 0) return undefined;
  // last_pgno may exceed what the (possibly truncated) file holds; never look past the end.
  const lastPage = Math.min(read.u32(32), Math.floor(content.length / pageSize) - 1);
  return { read, pageSize, lastPage };
}

/** Follows an overflow chain from `firstPage`, expecting `totalLength` bytes; undefined if the chain is broken. */
function readOverflow(content: Buffer, db: HashDbLayout, firstPage: number, totalLength: number): Buffer | undefined {
  const parts: Buffer[] = [];
  const visited = new Set<number>();
  let collected = 0;
  let page = firstPage;
  while (page !== 0) {
    // A damaged file may point outside itself or loop back on its own chain.
    if (page > db.lastPage || visited.has(page)) return undefined;
    visited.add(page);
    const start = page * db.pageSize;
    if (content[start + 25] !== PAGE_TYPE_OVERFLOW) return undefined;
    const length = db.read.u16(start + 22); // on overflow pages hf_offset holds the bytes used
    if (length > db.pageSize - PAGE_HEADER_SIZE) return undefined;
    parts.push(content.subarray(start + PAGE_HEADER_SIZE, start + PAGE_HEADER_SIZE + length));
    collected += length;
    if (collected >= totalLength) break;
    page = db.read.u32(start + 16); // next_pgno
  }
  if (collected < totalLength) return undefined;
  return Buffer.concat(parts).subarray(0, totalLength);
}

/** The data items of one hash page: odd-numbered items (even ones are keys). */
function pageValues(content: Buffer, db: HashDbLayout, pageStart: number): Buffer[] {
  const values: Buffer[] = [];
  const entries = db.read.u16(pageStart + 20);
  const maxEntries = Math.floor((db.pageSize - PAGE_HEADER_SIZE) / 2);
  if (entries > maxEntries) return values;
  const itemOffset = (index: number) => db.read.u16(pageStart + PAGE_HEADER_SIZE + 2 * index);
  for (let index = 1; index < entries; index += 2) {
    const offset = itemOffset(index);
    if (offset < PAGE_HEADER_SIZE || offset >= db.pageSize) continue;
    const at = pageStart + offset;
    const itemType = content[at];
    if (itemType === ITEM_OFFPAGE && offset + 12 <= db.pageSize) {
      const value = readOverflow(content, db, db.read.u32(at + 4), db.read.u32(at + 8));
      if (value) values.push(value);
    } else if (itemType === ITEM_KEYDATA) {
      // Items are packed from the end of the page downwards, so a value ends where its key starts.
      const end = itemOffset(index - 1);
      if (end > offset && end <= db.pageSize) values.push(content.subarray(at + 1, pageStart + end));
    }
    // Duplicate sets (H_DUPLICATE, H_OFFDUP) do not occur in rpm's Packages and are not read.
  }
  return values;
}

/** Every data value stored in a Berkeley DB hash database, or [] when the content is not one. */
export function readBerkeleyHashValues(content: Buffer): Buffer[] {
  const db = readHashMeta(content);
  if (!db) return [];
  const values: Buffer[] = [];
  for (let page = 1; page <= db.lastPage; page++) {
    const start = page * db.pageSize;
    const type = content[start + 25];
    if (type === PAGE_TYPE_HASH || type === PAGE_TYPE_HASH_UNSORTED) values.push(...pageValues(content, db, start));
  }
  return values;
}
