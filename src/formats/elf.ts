/**
 * Just enough ELF to find data inside an executable: header, section headers (with names) and program headers,
 * plus mapping a virtual address back to a file offset. Every read is bounds-checked because the input is any
 * file an image happens to contain; a malformed file yields undefined or fewer sections, never an exception.
 */

export interface ElfSection {
  name: string;
  type: number;
  addr: number;
  offset: number;
  size: number;
}

export interface ElfSegment {
  type: number;
  flags: number;
  offset: number;
  vaddr: number;
  filesz: number;
}

export interface ElfFile {
  bits: 32 | 64;
  littleEndian: boolean;
  /** e_machine, e.g. 62 for x86-64. */
  machine: number;
  sections: ElfSection[];
  segments: ElfSegment[];
}

export const PT_LOAD = 1;
export const PF_W = 2;
const SHT_NOBITS = 8;

export function isElf(data: Uint8Array): boolean {
  return data.length >= 16 && data[0] === 0x7f && data[1] === 0x45 && data[2] === 0x4c && data[3] === 0x46;
}

export function parseElf(data: Buffer): ElfFile | undefined {
  if (!isElf(data)) return undefined;
  const bits = data[4] === 1 ? 32 : data[4] === 2 ? 64 : undefined;
  const littleEndian = data[5] === 1 ? true : data[5] === 2 ? false : undefined;
  if (bits === undefined || littleEndian === undefined) return undefined;
  const headerSize = bits === 64 ? 64 : 52;
  if (data.length < headerSize) return undefined;

  const u16 = (o: number): number => (littleEndian ? data.readUInt16LE(o) : data.readUInt16BE(o));
  const u32 = (o: number): number => (littleEndian ? data.readUInt32LE(o) : data.readUInt32BE(o));
  // Offsets and addresses beyond 2^53 cannot point into a buffer anyway; Number() keeps the arithmetic simple.
  const word = (o: number): number =>
    bits === 64 ? Number(littleEndian ? data.readBigUInt64LE(o) : data.readBigUInt64BE(o)) : u32(o);

  const machine = u16(18);
  const phoff = word(bits === 64 ? 32 : 28);
  const shoff = word(bits === 64 ? 40 : 32);
  const phentsize = u16(bits === 64 ? 54 : 42);
  const phnum = u16(bits === 64 ? 56 : 44);
  const shentsize = u16(bits === 64 ? 58 : 46);
  const shnum = u16(bits === 64 ? 60 : 48);
  const shstrndx = u16(bits === 64 ? 62 : 50);

  const segments: ElfSegment[] = [];
  const minPh = bits === 64 ? 56 : 32;
  if (phoff > 0 && phentsize >= minPh && phoff + phnum * phentsize <= data.length) {
    for (let i = 0; i < phnum; i++) {
      const o = phoff + i * phentsize;
      segments.push(
        bits === 64
          ? { type: u32(o), flags: u32(o + 4), offset: word(o + 8), vaddr: word(o + 16), filesz: word(o + 32) }
          : { type: u32(o), offset: u32(o + 4), vaddr: u32(o + 8), filesz: u32(o + 16), flags: u32(o + 24) },
      );
    }
  }

  const raw: (ElfSection & { nameOffset: number })[] = [];
  const minSh = bits === 64 ? 64 : 40;
  if (shoff > 0 && shentsize >= minSh && shoff + shnum * shentsize <= data.length) {
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * shentsize;
      raw.push(
        bits === 64
          ? { name: '', nameOffset: u32(o), type: u32(o + 4), addr: word(o + 16), offset: word(o + 24), size: word(o + 32) }
          : { name: '', nameOffset: u32(o), type: u32(o + 4), addr: u32(o + 12), offset: u32(o + 16), size: u32(o + 20) },
      );
    }
  }
  const strtab = raw[shstrndx];
  const sections: ElfSection[] = raw.map(({ nameOffset, ...s }) => ({
    ...s,
    name: strtab && strtab.type !== SHT_NOBITS ? readCString(data, strtab.offset + nameOffset, strtab.offset + strtab.size) : '',
  }));
  return { bits, littleEndian, machine, sections, segments };
}

function readCString(data: Buffer, start: number, limit: number): string {
  const end = Math.min(limit, data.length);
  if (start < 0 || start >= end) return '';
  let i = start;
  while (i < end && data[i] !== 0) i++;
  return data.toString('latin1', start, i);
}

/** File bytes of a section, or undefined when it has none (NOBITS) or lies outside the file. */
export function sectionData(data: Buffer, section: ElfSection): Buffer | undefined {
  if (section.type === SHT_NOBITS || section.offset + section.size > data.length) return undefined;
  return data.subarray(section.offset, section.offset + section.size);
}

/** File offset holding virtual address `addr` (per the loadable segments, else the sections), or undefined. */
export function fileOffsetOf(elf: ElfFile, addr: number, length: number): number | undefined {
  for (const s of elf.segments) {
    if (s.type === PT_LOAD && addr >= s.vaddr && addr + length <= s.vaddr + s.filesz) return s.offset + (addr - s.vaddr);
  }
  for (const s of elf.sections) {
    if (s.type !== SHT_NOBITS && s.addr !== 0 && addr >= s.addr && addr + length <= s.addr + s.size) return s.offset + (addr - s.addr);
  }
  return undefined;
}

/** GOARCH-style name of an ELF machine, for binaries whose build info predates recorded GOARCH. */
export function elfArchitecture(elf: ElfFile): string | undefined {
  switch (elf.machine) {
    case 3: return '386';
    case 62: return 'amd64';
    case 40: return 'arm';
    case 183: return 'arm64';
    case 21: return elf.littleEndian ? 'ppc64le' : 'ppc64';
    case 22: return 's390x';
    case 243: return elf.bits === 64 ? 'riscv64' : undefined;
    case 8: return elf.bits === 64 ? (elf.littleEndian ? 'mips64le' : 'mips64') : elf.littleEndian ? 'mipsle' : 'mips';
    case 258: return 'loong64';
    default: return undefined;
  }
}
