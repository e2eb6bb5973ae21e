/**
 * Reads the header blobs of rpm's own "ndb" database, `Packages.db`, the backend SUSE uses since SLE 15 SP3 and
 * openSUSE Leap 15.3 (and Tumbleweed). The layout, as rpm's lib/backend/ndb/rpmpkg.c writes it, all integers
 * 32-bit little-endian:
 *
 *  - the file is counted in 16-byte blocks; its first `slotPages` 4 KiB pages form the slot table, and its first
 *    32 bytes (the room of two slots) are the file header: "RpmP", format version 0, a generation counter, the
 *    number of slot pages, the next free package index;
 *  - each 16-byte slot is "Slot", the package index, the blob's first block and its block count; a slot whose
 *    first block is 0 is free;
 *  - a blob starts at its first block with a 16-byte head ("BlbS", the package index, a timestamp, the header's
 *    length), then the header itself, zero padding to the block boundary less 12 bytes, and a 12-byte tail: the
 *    Adler-32 of everything before it in the blob, the length again, and "BlbE".
 *
 * Blobs are found through the slot table, as rpm does, not by scanning for magic. Every slot is checked on its
 * own, so one damaged slot or blob costs that package, not the database. Blobs compressed with the optional LZO
 * build of rpm (not enabled by any distribution we know of) fail the header decoding later and are dropped there.
 */

const HEADER_MAGIC = 0x506d7052; // "RpmP"
const SLOT_MAGIC = 0x746f6c53; // "Slot"
const BLOB_HEAD_MAGIC = 0x53626c42; // "BlbS"
const BLOB_TAIL_MAGIC = 0x45626c42; // "BlbE"
const FORMAT_VERSION = 0;
const FILE_HEADER_SIZE = 32;
const SLOT_SIZE = 16;
const BLOCK_SIZE = 16;
const PAGE_SIZE = 4096;
const BLOCKS_PER_PAGE = PAGE_SIZE / BLOCK_SIZE;
const BLOB_HEAD_SIZE = 16;
const BLOB_TAIL_SIZE = 12;
/**
 * 2,048 slot pages hold over half a million packages, two orders of magnitude beyond any real system; a header
 * claiming more is damaged, and we then read only this many pages rather than walk a made-up table.
 */
const MAX_SLOT_PAGES = 2048;

/** True when the content starts like an ndb Packages.db (its "RpmP" magic), whatever its name. */
export function isNdbPackages(content: Buffer): boolean {
  return content.length >= FILE_HEADER_SIZE && content.readUInt32LE(0) === HEADER_MAGIC;
}

/** Adler-32 (RFC 1950) of `bytes`, the checksum of a blob's tail; sums are reduced every 5,552 bytes, as zlib does. */
function adler32(bytes: Uint8Array): number {
  const MOD = 65521;
  let a = 1;
  let b = 0;
  for (let start = 0; start < bytes.length; start += 5552) {
    const end = Math.min(start + 5552, bytes.length);
    for (let i = start; i < end; i++) {
      a += bytes[i]!;
      b += a;
    }
    a %= MOD;
    b %= MOD;
  }
  return ((b << 16) | a) >>> 0;
}

interface Slot {
  packageIndex: number;
  firstBlock: number;
  blockCount: number;
}

/** The occupied slots of the slot table that lie within the file, in table order. */
function readSlots(content: Buffer, slotPages: number): Slot[] {
  const slots: Slot[] = [];
  const tableEnd = Math.min(slotPages * PAGE_SIZE, content.length - (content.length % SLOT_SIZE));
  for (let at = FILE_HEADER_SIZE; at < tableEnd; at += SLOT_SIZE) {
    // rpm gives up on the whole table at a bad slot; one overwritten slot should not hide the other packages.
    if (content.readUInt32LE(at) !== SLOT_MAGIC) continue;
    const firstBlock = content.readUInt32LE(at + 8);
    if (firstBlock === 0) continue; // free slot
    slots.push({ packageIndex: content.readUInt32LE(at + 4), firstBlock, blockCount: content.readUInt32LE(at + 12) });
  }
  return slots;
}

/**
 * Whether the blob a slot points to is framed as rpm writes it: inside the file past the slot table, head and tail
 * magic, the slot's package index, a length that agrees between head, tail and block count. Cheap: no checksum.
 */
function isFramedBlob(content: Buffer, slot: Slot, slotPages: number): boolean {
  const { packageIndex, firstBlock, blockCount } = slot;
  if (packageIndex === 0 || firstBlock < slotPages * BLOCKS_PER_PAGE) return false; // blobs never sit in the table
  if (blockCount * BLOCK_SIZE < BLOB_HEAD_SIZE + BLOB_TAIL_SIZE) return false;
  if (firstBlock + blockCount > Math.floor(content.length / BLOCK_SIZE)) return false; // past the end: truncated
  const start = firstBlock * BLOCK_SIZE;
  if (content.readUInt32LE(start) !== BLOB_HEAD_MAGIC || content.readUInt32LE(start + 4) !== packageIndex) return false;
  const length = content.readUInt32LE(start + 12);
  // The block count is exactly what head, header and tail need, rounded up to whole blocks.
  if (Math.ceil((BLOB_HEAD_SIZE + length + BLOB_TAIL_SIZE) / BLOCK_SIZE) !== blockCount) return false;
  const tail = start + blockCount * BLOCK_SIZE - BLOB_TAIL_SIZE;
  return content.readUInt32LE(tail + 4) === length && content.readUInt32LE(tail + 8) === BLOB_TAIL_MAGIC;
}

/**
 * The header blobs of an ndb Packages.db in package-index order (the order rpm installed them), or [] when the
 * content is not one. Never throws: damaged slots and blobs are skipped, a truncated file yields what it holds.
 * The blobs are views into `content`, not copies.
 */
export function readNdbPackageBlobs(content: Buffer): Buffer[] {
  if (!isNdbPackages(content) || content.readUInt32LE(4) !== FORMAT_VERSION) return [];
  const slotPages = Math.min(content.readUInt32LE(12), MAX_SLOT_PAGES);
  if (slotPages === 0) return [];
  const framed = readSlots(content, slotPages)
    .filter((slot) => isFramedBlob(content, slot, slotPages))
    .sort((a, b) => a.firstBlock - b.firstBlock);
  const byIndex = new Map<number, Buffer>();
  let claimedEnd = 0;
  for (const slot of framed) {
    // rpm never lets blobs overlap. Taking each block at most once also keeps the checksum work linear in the file
    // size, however many slots a crafted file points at the same bytes.
    if (slot.firstBlock < claimedEnd) continue;
    claimedEnd = slot.firstBlock + slot.blockCount;
    // A package index appears once in a sound table; keep the first intact copy.
    if (byIndex.has(slot.packageIndex)) continue;
    const start = slot.firstBlock * BLOCK_SIZE;
    const tail = claimedEnd * BLOCK_SIZE - BLOB_TAIL_SIZE;
    if (content.readUInt32LE(tail) !== adler32(content.subarray(start, tail))) continue;
    byIndex.set(slot.packageIndex, content.subarray(start + BLOB_HEAD_SIZE, start + BLOB_HEAD_SIZE + content.readUInt32LE(start + 12)));
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, blob]) => blob);
}
