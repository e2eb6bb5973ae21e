/**
 * Reads the build information the Go linker writes into every binary (what `go version -m` prints), following
 * Go's own debug/buildinfo: a 32-byte header starting with the magic `\xff Go buildinf:`, 16-byte aligned, at the
 * start of the `.go.buildinfo` section (or, in binaries whose section table is gone, somewhere in the data).
 *
 * Header: magic (14 bytes), pointer size (1), flags (1), then either
 *  - flags & 2 (Go >= 1.18): the version string and the module info follow the header inline, each prefixed
 *    with its length as an unsigned varint;
 *  - otherwise (Go 1.13-1.17): two pointers (virtual addresses) to Go string headers {data pointer, length},
 *    resolved through the ELF program headers; flags & 1 means big-endian pointers.
 * Module info is framed by two 16-byte sentinels, which are stripped.
 *
 * Only ELF is supported: Mach-O and PE binaries do not occur in Linux container images in practice.
 */
import { elfArchitecture, fileOffsetOf, isElf, parseElf, sectionData, type ElfFile } from '../../formats/elf.js';
import { parseGoModInfo, type GoModInfo } from './modinfo.js';

export interface GoBuildInfo extends GoModInfo {
  /** Toolchain version as recorded, e.g. `go1.19.8` (may carry suffixes such as ` X:boringcrypto`). */
  goVersion: string;
  /** GOARCH from the build settings, else derived from the ELF machine. */
  architecture?: string;
}

const MAGIC = Buffer.from('\xff Go buildinf:', 'latin1');
const HEADER_SIZE = 32;
const ALIGN = 16;
const FLAG_BIG_ENDIAN = 0x1;
const FLAG_INLINE_STRINGS = 0x2;
/** Go refuses longer strings too (debug/buildinfo: dataLen > 1<<32); real module info is well under 1 MiB. */
const MAX_STRING = 64 * 1024 * 1024;

/** Build info of an ELF Go binary, or undefined for anything else. Never throws. */
export function readGoBuildInfo(binary: Buffer): GoBuildInfo | undefined {
  try {
    if (!isElf(binary)) return undefined;
    const elf = parseElf(binary);
    const section = elf?.sections.find((s) => s.name === '.go.buildinfo');
    const sectionBytes = section && sectionData(binary, section);
    const found = (sectionBytes && decodeFirstHeader(sectionBytes, elf, binary)) ?? decodeFirstHeader(binary, elf, binary);
    if (!found) return undefined;
    const modinfo = parseGoModInfo(stripSentinels(found.modinfo));
    const goarch = modinfo.settings.find((s) => s.key === 'GOARCH')?.value;
    const architecture = goarch ?? (elf ? elfArchitecture(elf) : undefined);
    return { goVersion: found.version, ...modinfo, ...(architecture ? { architecture } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Decodes the first 16-byte aligned header in `region` (alignment relative to the region, which is a section
 * or the whole file: both start aligned) that yields a Go version string.
 */
function decodeFirstHeader(region: Buffer, elf: ElfFile | undefined, binary: Buffer): { version: string; modinfo: Buffer } | undefined {
  for (let i = region.indexOf(MAGIC); i >= 0; i = region.indexOf(MAGIC, i + 1)) {
    if (i % ALIGN !== 0 || region.length - i < HEADER_SIZE) continue;
    const header = region.subarray(i);
    const ptrSize = header[14]!;
    const flags = header[15]!;
    let version: Buffer | undefined;
    let modinfo: Buffer | undefined;
    if (flags & FLAG_INLINE_STRINGS) {
      const v = readVarintString(header, HEADER_SIZE);
      version = v?.value;
      modinfo = v && readVarintString(header, v.next)?.value;
    } else if (elf && (ptrSize === 4 || ptrSize === 8)) {
      const bigEndian = (flags & FLAG_BIG_ENDIAN) !== 0;
      const readPtr = (b: Buffer, o: number): number | undefined => {
        if (o + ptrSize > b.length) return undefined;
        if (ptrSize === 4) return bigEndian ? b.readUInt32BE(o) : b.readUInt32LE(o);
        return Number(bigEndian ? b.readBigUInt64BE(o) : b.readBigUInt64LE(o));
      };
      version = readGoString(binary, elf, ptrSize, readPtr, readPtr(header, 16));
      modinfo = readGoString(binary, elf, ptrSize, readPtr, readPtr(header, 16 + ptrSize));
    }
    const v = version?.toString('utf8');
    // A version is what tells a real header from the magic bytes occurring by chance (or in the go tool's own data).
    if (v && /^(go\d|devel )/.test(v)) return { version: v, modinfo: modinfo ?? Buffer.alloc(0) };
  }
  return undefined;
}

function readVarintString(b: Buffer, at: number): { value: Buffer; next: number } | undefined {
  let length = 0;
  let shift = 0;
  let o = at;
  for (;;) {
    if (o >= b.length || shift > 35) return undefined;
    const byte = b[o++]!;
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
    shift += 7;
  }
  if (length === 0 || length > MAX_STRING || o + length > b.length) return undefined;
  return { value: b.subarray(o, o + length), next: o + length };
}

/** A Go string whose header {data, len} is at virtual address `addr`. */
function readGoString(
  binary: Buffer,
  elf: ElfFile,
  ptrSize: number,
  readPtr: (b: Buffer, o: number) => number | undefined,
  addr: number | undefined,
): Buffer | undefined {
  if (addr === undefined) return undefined;
  const hdrAt = fileOffsetOf(elf, addr, 2 * ptrSize);
  if (hdrAt === undefined) return undefined;
  const dataAddr = readPtr(binary, hdrAt);
  const length = readPtr(binary, hdrAt + ptrSize);
  if (dataAddr === undefined || length === undefined || length === 0 || length > MAX_STRING) return undefined;
  const at = fileOffsetOf(elf, dataAddr, length);
  return at === undefined ? undefined : binary.subarray(at, at + length);
}

/**
 * Module info sits between two 16-byte binary sentinels, the closing one preceded by a newline (debug/buildinfo);
 * they are cut on bytes, before decoding, because they are not valid UTF-8.
 */
function stripSentinels(mod: Buffer): string {
  if (mod.length >= 33 && mod[mod.length - 17] === 0x0a) return mod.toString('utf8', 16, mod.length - 16);
  return '';
}
