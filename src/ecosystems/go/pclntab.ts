/**
 * Function names from a Go binary's pclntab, the table the Go runtime itself keeps for stack traces (so it
 * survives `-ldflags=-s -w`, unlike the ELF symbol table). Layout per Go's runtime/symtab.go and debug/gosym:
 *
 *   magic uint32 | pad, pad uint8 | minLC uint8 | ptrSize uint8 | then ptrSize-wide words:
 *   - 0xfffffff1 (Go 1.20+), 0xfffffff0 (1.18-1.19):
 *       nfunc, nfiles, textStart, funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset
 *   - 0xfffffffa (1.16-1.17): nfunc, nfiles, funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset
 *   - 0xfffffffb (1.2-1.15): nfunc, then the function table inline: nfunc pairs {entry pc, _func offset}, each
 *     _func starting {entry pc, nameoff int32} with nameoff relative to the table.
 *
 * From 1.16 on, the linker writes every function name once into `funcnametab` (NUL-terminated, directly followed by
 * `cutab`), inlined functions included: reading that region whole yields the functions compiled into the binary,
 * also those inlined into their callers (a call that was inlined still reaches the code). For 1.2-1.15 the
 * function table is walked instead (inlined functions are then missing).
 *
 * The input is untrusted: every offset is checked against the table, counts and name lengths are capped, and a
 * table that does not hold together yields undefined, never an exception or a long loop.
 */
import { parseElf, sectionData, type ElfFile } from '../../formats/elf.js';

/** Far above real binaries (a Kubernetes binary has ~100k functions), so only garbage reaches it. */
export const MAX_FUNCTION_NAMES = 1_000_000;
/** Longer names exist only as generic instantiations spelled out; they are cut, not trusted. */
const MAX_NAME_BYTES = 8192;

const MAGIC_GO12 = 0xfffffffb;
const MAGIC_GO116 = 0xfffffffa;
const MAGIC_GO118 = 0xfffffff0;
const MAGIC_GO120 = 0xfffffff1;

/** The pclntab of an ELF binary: the `.gopclntab` section (PIE builds name it `.data.rel.ro.gopclntab`). */
export function pclntabSection(binary: Buffer, elf: ElfFile | undefined = parseElf(binary)): Buffer | undefined {
  const section = elf?.sections.find((s) => s.name === '.gopclntab') ?? elf?.sections.find((s) => s.name.endsWith('.gopclntab'));
  return section ? sectionData(binary, section) : undefined;
}

/** The function names of an ELF Go binary, or undefined when it has no readable pclntab. Never throws. */
export function readGoFunctionNames(binary: Buffer, elf?: ElfFile): string[] | undefined {
  try {
    const table = pclntabSection(binary, elf);
    return table ? parsePclntab(table) : undefined;
  } catch {
    return undefined;
  }
}

/** Function names of a pclntab, or undefined when it is not one Vigil reads or does not hold together. */
export function parsePclntab(table: Buffer): string[] | undefined {
  if (table.length < 16 || table[4] !== 0 || table[5] !== 0) return undefined;
  const ptrSize = table[7]!;
  if (ptrSize !== 4 && ptrSize !== 8) return undefined;
  const minLC = table[6]!;
  if (![1, 2, 4].includes(minLC)) return undefined;
  // The magic is written in the target's byte order.
  const le = table.readUInt32LE(0);
  const be = table.readUInt32BE(0);
  const known = [MAGIC_GO12, MAGIC_GO116, MAGIC_GO118, MAGIC_GO120];
  const littleEndian = known.includes(le);
  if (!littleEndian && !known.includes(be)) return undefined;
  const magic = littleEndian ? le : be;
  const word = (o: number): number | undefined => {
    if (o < 0 || o + ptrSize > table.length) return undefined;
    if (ptrSize === 4) return littleEndian ? table.readUInt32LE(o) : table.readUInt32BE(o);
    const v = littleEndian ? table.readBigUInt64LE(o) : table.readBigUInt64BE(o);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(v);
  };
  const header = (i: number) => word(8 + i * ptrSize);
  if (magic === MAGIC_GO12) return go12Names(table, ptrSize, word, littleEndian);
  // Index of funcnameOffset among the header words; cuOffset follows it and ends the name table.
  const at = magic === MAGIC_GO116 ? 2 : 3;
  const nfunc = header(0);
  const start = header(at);
  const end = header(at + 1);
  if (nfunc === undefined || start === undefined || end === undefined) return undefined;
  const headerEnd = 8 + (at + 5) * ptrSize;
  if (nfunc > MAX_FUNCTION_NAMES || start < headerEnd || end < start || end > table.length) return undefined;
  return namesIn(table.subarray(start, end));
}

/** The NUL-terminated names of a funcnametab, deduplicated; undefined when the region is not such a table. */
function namesIn(region: Buffer): string[] | undefined {
  const names = new Set<string>();
  let from = 0;
  while (from < region.length) {
    let nul = region.indexOf(0, from);
    if (nul < 0) nul = region.length;
    if (nul > from) {
      if (names.size >= MAX_FUNCTION_NAMES) return undefined;
      names.add(region.toString('utf8', from, Math.min(nul, from + MAX_NAME_BYTES)));
    }
    from = nul + 1;
  }
  return names.size ? [...names] : undefined;
}

/** Go 1.2-1.15: the function table follows the header; each entry's _func names its function. */
function go12Names(table: Buffer, ptrSize: number, word: (o: number) => number | undefined, littleEndian: boolean): string[] | undefined {
  const nfunc = word(8);
  if (nfunc === undefined || nfunc === 0 || nfunc > MAX_FUNCTION_NAMES) return undefined;
  const functab = 8 + ptrSize;
  if (functab + nfunc * 2 * ptrSize > table.length) return undefined;
  const names = new Set<string>();
  for (let i = 0; i < nfunc; i++) {
    const funcOff = word(functab + (2 * i + 1) * ptrSize);
    if (funcOff === undefined || funcOff + ptrSize + 4 > table.length) return undefined;
    const o = funcOff + ptrSize;
    const nameOff = littleEndian ? table.readInt32LE(o) : table.readInt32BE(o);
    if (nameOff <= 0 || nameOff >= table.length) return undefined;
    // Looked for within the name cap only, so garbage without NULs costs no scan of the whole table per entry.
    const len = table.subarray(nameOff, nameOff + MAX_NAME_BYTES).indexOf(0);
    if (len > 0) names.add(table.toString('utf8', nameOff, nameOff + len));
  }
  return names.size ? [...names] : undefined;
}
