import { describe, expect, it } from 'vitest';
import type { GoSymbolIndex } from '../../../src/ecosystems/go/symbols.js';
import { goReachability, isUnreviewed } from '../../../src/vulns/go-reachability.js';
import type { OsvAffected } from '../../../src/vulns/osv/types.js';

function affected(imports?: unknown): OsvAffected {
  return {
    package: { name: 'golang.org/x/net', ecosystem: { ecosystem: 'Go', raw: 'Go' } },
    severity: [],
    ranges: [],
    versions: [],
    ...(imports === undefined ? {} : { ecosystemSpecific: { imports } }),
  };
}

const xnet: GoSymbolIndex = { packages: { html: ['Parse', 'Tokenizer.Next'], 'http2/hpack': null, '': ['Root'] } };
const stdlib: GoSymbolIndex = { packages: { 'net/http': ['Server.Serve'], fmt: ['Println'] } };

describe('goReachability', () => {
  it('is reachable when one named symbol is compiled in, pointer receivers spelled either way', () => {
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/html', symbols: ['Tokenizer.Next'] }]))).toBe('reachable');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/html', symbols: ['(*Tokenizer).Next'] }]))).toBe('reachable');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net', symbols: ['Root'] }]))).toBe('reachable');
    expect(goReachability(stdlib, 'stdlib', affected([{ path: 'net/http', symbols: ['Server.Serve'] }]))).toBe('reachable');
  });

  it('is reachable when a named package is compiled in and the record names no symbols', () => {
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/html' }]))).toBe('reachable');
  });

  it('is not reachable when no named symbol or package is compiled in', () => {
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/html', symbols: ['Render'] }]))).toBe('not-reachable');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/websocket' }, { path: 'golang.org/x/net/html', symbols: ['Render'] }]))).toBe('not-reachable');
    expect(goReachability(stdlib, 'stdlib', affected([{ path: 'crypto/tls', symbols: ['Conn.Handshake'] }]))).toBe('not-reachable');
  });

  it('is unknown without imports, without an index, for a package whose symbols were not kept, or a path outside the module', () => {
    expect(goReachability(xnet, 'golang.org/x/net', affected())).toBe('unknown');
    expect(goReachability(xnet, 'golang.org/x/net', affected([]))).toBe('unknown');
    expect(goReachability(undefined, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/html', symbols: ['Render'] }]))).toBe('unknown');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'golang.org/x/net/http2/hpack', symbols: ['Decoder.Write'] }]))).toBe('reachable');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ path: 'example.com/elsewhere', symbols: ['F'] }]))).toBe('unknown');
    expect(goReachability(xnet, 'golang.org/x/net', affected([{ symbols: ['F'] }]))).toBe('unknown');
    expect(goReachability(xnet, 'golang.org/x/net', affected('not a list'))).toBe('unknown');
  });

  it('reads review_status', () => {
    expect(isUnreviewed({ databaseSpecific: { review_status: 'UNREVIEWED' } })).toBe(true);
    expect(isUnreviewed({ databaseSpecific: { review_status: 'REVIEWED' } })).toBe(false);
    expect(isUnreviewed({})).toBe(false);
  });
});
