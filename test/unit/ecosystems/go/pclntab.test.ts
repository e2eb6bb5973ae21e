import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goBinaryCataloger } from '../../../../src/ecosystems/go/cataloger.js';
import { parsePclntab, pclntabSection, readGoFunctionNames } from '../../../../src/ecosystems/go/pclntab.js';
import { decodeGoSymbols, encodeGoSymbols, goSymbolIndexes, MAX_PACKAGES, MAX_SYMBOL_BYTES, splitGoFunctionName } from '../../../../src/ecosystems/go/symbols.js';
import { buildVulnlibBinaries, type VulnlibBinaries } from '../../../support/go-symbol-fixtures.js';
import { missingTools } from '../../../support/tools.js';


let built: VulnlibBinaries;

/** The ELF symbol table's spelling -> the pclntab's: assembly ABI suffixes dropped, type arguments shown as [...]. */
function pclnSpelling(nmName: string): string {
  return nmName.replace(/\.abi0$/, '').replace(/\[.*\]/, '[...]');
}

describe.skipIf(missingTools('go'))('pclntab of a binary built by go', () => {
  beforeAll(() => {
    built = buildVulnlibBinaries();
  }, 180_000);
  afterAll(() => built?.cleanup());

  it('lists every function the ELF symbol table lists (linker markers aside)', () => {
    const names = new Set(readGoFunctionNames(built.withSymbol));
    const missing = built.nmTextSymbols.map(pclnSpelling).filter((n) => !names.has(n) && !['runtime.text', 'runtime.etext'].includes(n) && !n.startsWith('type:') && !n.startsWith('type..'));
    expect(built.nmTextSymbols.length).toBeGreaterThan(500);
    expect(missing).toEqual([]);
    expect(names.has('example.com/vulnlib/parser.(*Decoder).Decode')).toBe(true);
  });

  it('reads the same names from a stripped build (-s -w keeps the pclntab)', () => {
    const full = readGoFunctionNames(built.withSymbol)!;
    expect(readGoFunctionNames(built.stripped)!.sort()).toEqual([...full].sort());
  });

  it('leaves out what the linker dropped', () => {
    const names = readGoFunctionNames(built.withoutSymbol)!;
    expect(names).toContain('example.com/vulnlib/parser.Safe');
    expect(names.some((n) => n.includes('Decode') && n.includes('vulnlib'))).toBe(false);
  });

  it('gives each module package its symbol index, keyed relative to the module', () => {
    const packages = goBinaryCataloger.parse('/usr/local/bin/app', built.withSymbol) as Awaited<ReturnType<typeof goBinaryCataloger.parse>>;
    const vulnlib = packages.find((p) => p.name === 'example.com/vulnlib')!;
    expect(vulnlib.version).toBe('v1.0.0');
    expect(vulnlib.goSymbols).toEqual({ packages: { parser: ['Decoder.Decode', 'Safe'] } });
    const stdlib = packages.find((p) => p.name === 'stdlib')!;
    expect(stdlib.version).toBe(built.goVersion);
    expect(stdlib.goSymbols!.packages['fmt']).toContain('Println');
    expect(stdlib.goSymbols!.packages['strings']).toContain('Fields');
    expect(Object.keys(stdlib.goSymbols!.packages)).not.toContain('net/http');
    // The main module's code is package main, which no advisory names.
    expect(packages.find((p) => p.name === 'example.com/app')!.goSymbols).toEqual({ packages: {} });
    expect(decodeGoSymbols(encodeGoSymbols(stdlib.goSymbols!))).toEqual(stdlib.goSymbols);
  });

  it('survives every truncation of the table and of the binary without throwing', () => {
    const table = pclntabSection(built.withSymbol)!;
    expect(parsePclntab(table)!.length).toBeGreaterThan(1000);
    for (let n = 0; n < 256; n++) expect(() => parsePclntab(table.subarray(0, n))).not.toThrow();
    for (let n = 256; n < table.length; n += Math.ceil(table.length / 97)) {
      const names = parsePclntab(table.subarray(0, n));
      // A cut table either does not hold together (its header points past the end) or yields fewer names.
      if (names) expect(names.length).toBeLessThanOrEqual(parsePclntab(table)!.length);
    }
    for (let n = 0; n < built.withSymbol.length; n += Math.ceil(built.withSymbol.length / 53)) {
      expect(() => readGoFunctionNames(built.withSymbol.subarray(0, n))).not.toThrow();
    }
  });
});

describe('pclntab parser on crafted input', () => {
  /** A Go 1.18-style header (little-endian, 8-byte words) followed by `body`. */
  function go118(words: number[], body: Buffer): Buffer {
    const header = Buffer.alloc(8 + 8 * 8);
    header.writeUInt32LE(0xfffffff0, 0);
    header[6] = 1;
    header[7] = 8;
    words.forEach((w, i) => header.writeBigUInt64LE(BigInt(w), 8 + i * 8));
    return Buffer.concat([header, body]);
  }

  it('reads the name table between funcnameOffset and cuOffset', () => {
    const names = Buffer.from('main.main\0example.com/x.F\0runtime.main\0', 'latin1');
    const start = 72;
    const table = go118([3, 0, 0x401000, start, start + names.length, start + names.length, start + names.length, start + names.length], Buffer.concat([names, Buffer.alloc(16)]));
    expect(parsePclntab(table)).toEqual(['main.main', 'example.com/x.F', 'runtime.main']);
  });

  it('refuses offsets outside the table, out of order or inside the header, and absurd counts', () => {
    const body = Buffer.from('a.b\0', 'latin1');
    expect(parsePclntab(go118([1, 0, 0, 72, 1 << 30, 0, 0, 0], body))).toBeUndefined();
    expect(parsePclntab(go118([1, 0, 0, 76, 72, 0, 0, 0], body))).toBeUndefined();
    expect(parsePclntab(go118([1, 0, 0, 8, 76, 0, 0, 0], body))).toBeUndefined();
    expect(parsePclntab(go118([2 ** 40, 0, 0, 72, 76, 0, 0, 0], body))).toBeUndefined();
    const huge = go118([1, 0, 0, 72, 76, 0, 0, 0], body);
    huge.writeBigUInt64LE(0xffffffffffffffffn, 8 + 3 * 8);
    expect(parsePclntab(huge)).toBeUndefined();
  });

  it('refuses unknown magics, pointer sizes and instruction sizes', () => {
    const ok = go118([1, 0, 0, 72, 76, 76, 76, 76], Buffer.from('a.b\0', 'latin1'));
    expect(parsePclntab(ok)).toEqual(['a.b']);
    for (const [at, value] of [[0, 0x00], [7, 3], [6, 3], [4, 1]] as const) {
      const bad = Buffer.from(ok);
      bad[at] = value;
      expect(parsePclntab(bad)).toBeUndefined();
    }
  });

  it('walks a Go 1.2 function table and refuses name offsets outside it', () => {
    // header(8) nfunc(8) functab: {pc, funcoff} x1, then _func {entry, nameoff}, then the name.
    const table = Buffer.alloc(8 + 8 + 16 + 12 + 8);
    table.writeUInt32LE(0xfffffffb, 0);
    table[6] = 1;
    table[7] = 8;
    table.writeBigUInt64LE(1n, 8);
    table.writeBigUInt64LE(0x401000n, 16);
    table.writeBigUInt64LE(32n, 24);
    table.writeBigUInt64LE(0x401000n, 32);
    table.writeInt32LE(44, 40);
    table.write('p.F\0', 44, 'latin1');
    expect(parsePclntab(table)).toEqual(['p.F']);
    table.writeInt32LE(1 << 30, 40);
    expect(parsePclntab(table)).toBeUndefined();
  });

  it('returns undefined for garbage, quickly', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (let i = 0; i < 50; i++) {
      const junk = Buffer.from(Array.from({ length: 4096 }, random));
      junk.writeUInt32LE([0xfffffff1, 0xfffffff0, 0xfffffffa, 0xfffffffb][i % 4]!, 0);
      junk[4] = 0;
      junk[5] = 0;
      junk[6] = 1;
      junk[7] = 8;
      expect(() => parsePclntab(junk)).not.toThrow();
    }
    expect(readGoFunctionNames(Buffer.from('not an elf file at all'))).toBeUndefined();
  });
});

describe('Go function names as symbols', () => {
  it('splits names into import path and vulndb symbol', () => {
    expect(splitGoFunctionName('net/http.(*Server).Serve')).toEqual({ pkg: 'net/http', symbol: 'Server.Serve' });
    expect(splitGoFunctionName('net/http.(*Server).Serve-fm')).toEqual({ pkg: 'net/http', symbol: 'Server.Serve' });
    expect(splitGoFunctionName('net/http.Header.Get')).toEqual({ pkg: 'net/http', symbol: 'Header.Get' });
    expect(splitGoFunctionName('gopkg.in/yaml%2ev3.Unmarshal.func1')).toEqual({ pkg: 'gopkg.in/yaml.v3', symbol: 'Unmarshal' });
    expect(splitGoFunctionName('example.com/m/p.Map[...]')).toEqual({ pkg: 'example.com/m/p', symbol: 'Map' });
    expect(splitGoFunctionName('example.com/m/p.(*List[go.shape.int_0]).Push')).toEqual({ pkg: 'example.com/m/p', symbol: 'List.Push' });
    expect(splitGoFunctionName('example.com/m/p.init.0')).toEqual({ pkg: 'example.com/m/p', symbol: 'init' });
    expect(splitGoFunctionName('type:.eq.[2]interface {}')).toBeUndefined();
    expect(splitGoFunctionName('go:buildid')).toBeUndefined();
    expect(splitGoFunctionName('nodot')).toBeUndefined();
  });

  it('assigns each package to the longest module path holding it, the rest of the library to stdlib', () => {
    const idx = goSymbolIndexes(
      ['example.com/a/x.F', 'example.com/a/sub/y.G', 'example.com/a.Root', 'net/http.(*Client).Do', 'vendor/golang.org/x/net/idna.ToASCII', 'main.main', 'other.org/z.H'],
      ['example.com/a', 'example.com/a/sub'],
    );
    expect(idx.get('example.com/a')).toEqual({ packages: { '': ['Root'], x: ['F'] } });
    expect(idx.get('example.com/a/sub')).toEqual({ packages: { y: ['G'] } });
    expect(idx.get('stdlib')).toEqual({ packages: { 'net/http': ['Client.Do'], 'vendor/golang.org/x/net/idna': ['ToASCII'] } });
  });

  it('keeps only the package list past the symbol bound, and nothing past the package bound', () => {
    const many = Array.from({ length: Math.ceil(MAX_SYMBOL_BYTES / 20) }, (_, i) => `example.com/m/p.Function${String(i).padStart(10, '0')}`);
    expect(goSymbolIndexes(many, ['example.com/m']).get('example.com/m')).toEqual({ packages: { p: null } });
    const packages = Array.from({ length: MAX_PACKAGES + 1 }, (_, i) => `example.com/m/p${i}.F`);
    expect(goSymbolIndexes(packages, ['example.com/m']).get('example.com/m')).toBeUndefined();
  });

  it('reads back no index from a corrupt or oversized stored value', () => {
    expect(decodeGoSymbols(Buffer.from('not gzip'))).toBeUndefined();
    expect(decodeGoSymbols(null)).toBeUndefined();
    expect(decodeGoSymbols(encodeGoSymbols({ packages: [] as unknown as Record<string, string[]> }))).toBeUndefined();
  });
});
