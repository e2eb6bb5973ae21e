/**
 * A VulnerabilityProvider over OSV records held in memory, for matching tests without a database: the records are
 * parsed and indexed the way a feed sync indexes them (lower-cased ecosystem, release, normalised name, no entries
 * for withdrawn records). It counts the searches it answers, so tests can see how matching asks.
 */
import { parseOsvRecord } from '../../../../src/vulns/osv/record.js';
import { normalizePackageName } from '../../../../src/ecosystems/registry.js';
import { feedGroupName } from '../../../../src/vulns/records.js';
import {
  excludedGroupKey,
  type AffectedEntry,
  type AffectedSearch,
  recordKey,
  type MatchExclusions,
  type RecordRef,
  type VulnerabilityProvider,
} from '../../../../src/vulns/vulnerability-provider.js';
import type { OsvRecord } from '../../../../src/vulns/osv/types.js';

export class MemoryVulnerabilityProvider implements VulnerabilityProvider {
  private readonly entries = new Map<string, AffectedEntry[]>();
  private readonly byKey = new Map<string, OsvRecord>();
  readonly disabledFeeds = new Set<string>();
  readonly disabledGroups = new Set<string>();
  /** Each findAffected call, as asked. */
  readonly calls: AffectedSearch[][] = [];

  /** Adds raw OSV records (JSON objects) of a feed. */
  add(feed: string, records: unknown[]): this {
    for (const raw of records) {
      const record = parseOsvRecord(raw);
      this.byKey.set(recordKey({ feed, id: record.id }), record);
      if (record.withdrawn !== undefined) continue;
      for (const affected of record.affected) {
        if (!affected.package) continue;
        const ecosystem = affected.package.ecosystem.ecosystem.toLowerCase();
        const release = affected.package.ecosystem.release;
        const name = normalizePackageName(ecosystem, affected.package.name);
        const key = this.key(ecosystem, release, name);
        const entry: AffectedEntry = { feed, vuln_id: record.id, grp: feedGroupName(ecosystem, release ?? null), package_name: name, affected };
        this.entries.set(key, [...(this.entries.get(key) ?? []), entry]);
      }
    }
    return this;
  }

  disableGroup(feed: string, group: string): void {
    this.disabledGroups.add(excludedGroupKey(feed, group));
  }

  private key(ecosystem: string, release: string | undefined, name: string): string {
    return `${ecosystem}\u0000${release ?? ''}\u0000${name}`;
  }

  async findAffected(searches: readonly AffectedSearch[]): Promise<Map<string, AffectedEntry[]>[]> {
    this.calls.push(searches.map((s) => ({ ...s, names: [...s.names] })));
    return searches.map((s) => {
      const byName = new Map<string, AffectedEntry[]>();
      for (const name of s.names) {
        const found = this.entries.get(this.key(s.ecosystem, s.release, name));
        if (found) byName.set(name, found);
      }
      return byName;
    });
  }

  async exclusions(): Promise<MatchExclusions> {
    return { feeds: new Set(this.disabledFeeds), groups: new Set(this.disabledGroups) };
  }

  async records(refs: readonly RecordRef[]): Promise<Map<string, OsvRecord>> {
    const out = new Map<string, OsvRecord>();
    for (const ref of refs) {
      const record = this.byKey.get(recordKey(ref));
      if (record) out.set(recordKey(ref), record);
    }
    return out;
  }
}
