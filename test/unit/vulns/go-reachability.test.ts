import { describe, expect, it } from 'vitest';
import type { GoSymbolIndex } from '../../../src/ecosystems/go/symbols.js';
import { keepingRecords, newMatchCache } from '../../../src/vulns/findings.js';
import { goReachability, isUnreviewed, refineGoMatches } from '../../../src/vulns/go-reachability.js';
import { matchPackages } from '../../../src/vulns/match-package.js';
import { MemoryVulnerabilityProvider } from './matching/memory-provider.js';
import type { OsvAffected } from '../../../src/vulns/osv/types.js';
import type { RecordRef, VulnerabilityProvider } from '../../../src/vulns/vulnerability-provider.js';

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

/** A Go advisory on golang.org/x/net below 0.23.0, naming `imports` when given. */
const goRecord = (id: string, imports: unknown, reviewStatus?: string) => ({
  schema_version: '1.6.0',
  id,
  modified: '2024-01-01T00:00:00Z',
  affected: [
    {
      package: { ecosystem: 'Go', name: 'golang.org/x/net' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '0.23.0' }] }],
      ...(imports === undefined ? {} : { ecosystem_specific: { imports } }),
    },
  ],
  ...(reviewStatus ? { database_specific: { review_status: reviewStatus } } : {}),
});

describe('refineGoMatches over a provider (no database)', () => {
  const provider = new MemoryVulnerabilityProvider().add('osv', [
    goRecord('GO-2099-0001', [{ path: 'golang.org/x/net/html', symbols: ['Render'] }]),
    goRecord('GO-2099-0002', [{ path: 'golang.org/x/net/html', symbols: ['Parse'] }]),
    goRecord('GO-2099-0003', undefined, 'UNREVIEWED'),
  ]);
  const pkg = { type: 'go', name: 'golang.org/x/net', version: 'v0.22.0' };
  const npmPkg = { type: 'npm', name: 'left-pad', version: '1.0.0' };

  it('drops a match whose named symbols the binary lacks, keeps the reachable one, and rates unreviewed records low', async () => {
    const candidates = await matchPackages(provider, [pkg, npmPkg], undefined);
    expect(candidates[0]!.map((m) => m.vulnId).sort()).toEqual(['GO-2099-0001', 'GO-2099-0002', 'GO-2099-0003']);
    const asked: number[] = [];
    const { matches, suppressed } = await refineGoMatches(provider, [pkg, npmPkg], candidates, async (_p, index) => {
      asked.push(index);
      return xnet;
    });
    expect(matches[0]!.map((m) => [m.vulnId, m.confidence]).sort()).toEqual([
      ['GO-2099-0002', 'high'],
      ['GO-2099-0003', 'low'],
    ]);
    expect(matches[1]).toEqual([]);
    expect(suppressed).toEqual([{ packageIndex: 0, vulnId: 'GO-2099-0001', feed: 'osv', reason: 'not-reachable' }]);
    // The symbol index is read once, and only for the Go package.
    expect(asked).toEqual([0]);
  });
});

/** A memory provider that logs the record ids each records() call asks for. */
function countingProvider(): { provider: VulnerabilityProvider; asked: string[][] } {
  const memory = new MemoryVulnerabilityProvider().add('osv', [
    goRecord('GO-2099-0001', [{ path: 'golang.org/x/net/html', symbols: ['Render'] }]),
    goRecord('GO-2099-0002', [{ path: 'golang.org/x/net/html', symbols: ['Parse'] }]),
  ]);
  const asked: string[][] = [];
  const provider: VulnerabilityProvider = {
    findAffected: (searches) => memory.findAffected(searches),
    exclusions: () => memory.exclusions(),
    records: (refs: readonly RecordRef[]) => {
      asked.push(refs.map((r) => r.id).sort());
      return memory.records(refs);
    },
  };
  return { provider, asked };
}

// A run's match cache keeps the whole records this step reads, so images sharing a Go module read its advisories
// once per run, with the results of reading them each time.
describe('keepingRecords (a run-scoped record cache)', () => {
  const pkg = { type: 'go', name: 'golang.org/x/net', version: 'v0.22.0' };
  const index: GoSymbolIndex = { packages: { html: ['Parse'] } };

  it('reads a record once per run and refines later images exactly as the first', async () => {
    const { provider, asked } = countingProvider();
    const candidates = await matchPackages(provider, [pkg], undefined);
    const uncached = await refineGoMatches(provider, [pkg], candidates, async () => index);
    const cache = newMatchCache();
    const kept = keepingRecords(provider, cache.records);
    asked.length = 0;
    const first = await refineGoMatches(kept, [pkg], candidates, async () => index);
    const second = await refineGoMatches(kept, [pkg], candidates, async () => index);
    expect(first).toEqual(uncached);
    expect(second).toEqual(uncached);
    expect(first.matches[0]!.map((m) => m.vulnId)).toEqual(['GO-2099-0002']);
    expect(asked).toEqual([['GO-2099-0001', 'GO-2099-0002']]);
  });

  it('remembers a record the data does not hold, and reads only what it has not seen', async () => {
    const { provider, asked } = countingProvider();
    const kept = keepingRecords(provider, newMatchCache().records);
    expect([...(await kept.records([{ feed: 'osv', id: 'GO-2099-9999' }])).keys()]).toEqual([]);
    const found = await kept.records([
      { feed: 'osv', id: 'GO-2099-9999' },
      { feed: 'osv', id: 'GO-2099-0001' },
    ]);
    expect([...found.keys()]).toEqual(['osv\u0000GO-2099-0001']);
    expect(asked).toEqual([['GO-2099-9999'], ['GO-2099-0001']]);
  });

  it('keeps no more than its bound and reads the rest each time', async () => {
    const { provider, asked } = countingProvider();
    const records = newMatchCache().records;
    const kept = keepingRecords(provider, records, 1);
    const refs = [
      { feed: 'osv', id: 'GO-2099-0001' },
      { feed: 'osv', id: 'GO-2099-0002' },
    ];
    expect((await kept.records(refs)).size).toBe(2);
    expect((await kept.records(refs)).size).toBe(2);
    expect(records.size).toBe(1);
    expect(asked).toEqual([['GO-2099-0001', 'GO-2099-0002'], ['GO-2099-0002']]);
  });
});
