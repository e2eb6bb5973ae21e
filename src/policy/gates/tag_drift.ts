import type { PackageRow } from '../../images/store.js';
import type { Fired, TriggerEvaluator, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const packageType: ParamDefinition = {
  name: 'package_type',
  description: 'Comma-separated package types (for example apk,npm) to consider; without it all types count.',
  required: false,
  validator: anyString,
};

type Drift = 'packages_added' | 'packages_removed' | 'packages_modified';

/** One package identity, (type, name), with every version installed under it. */
interface PackageEntry {
  type: string;
  name: string;
  versions: string[];
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Packages by (type, name), with the package_type filter (case-insensitive) applied; sorted versions. */
function packagesByKey(packages: PackageRow[], types: Set<string> | undefined): Map<string, PackageEntry> {
  const byKey = new Map<string, PackageEntry>();
  for (const p of packages) {
    if (types && !types.has(p.type.toLowerCase())) continue;
    const key = JSON.stringify([p.type, p.name]);
    const entry = byKey.get(key) ?? { type: p.type, name: p.name, versions: [] };
    if (!entry.versions.includes(p.version)) entry.versions.push(p.version);
    byKey.set(key, entry);
  }
  for (const entry of byKey.values()) entry.versions.sort(compareStrings);
  return byKey;
}

function typeFilter(params: TriggerParams): Set<string> | undefined {
  const types = listOf(params.package_type ?? '').map((t) => t.toLowerCase());
  return types.length ? new Set(types) : undefined;
}

function sameVersions(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The finding for one package identity, or undefined when it did not drift in this trigger's sense. */
function driftMessage(drift: Drift, now: PackageEntry | undefined, before: PackageEntry | undefined): string | undefined {
  const versions = (e: PackageEntry) => e.versions.join(', ');
  if (drift === 'packages_added' && now && !before) return `Package added since the previous image: ${now.name} (${now.type}) ${versions(now)}`;
  if (drift === 'packages_removed' && before && !now) return `Package removed since the previous image: ${before.name} (${before.type}) ${versions(before)}`;
  if (drift === 'packages_modified' && now && before && !sameVersions(now.versions, before.versions)) {
    return `Package modified since the previous image: ${now.name} (${now.type}) ${versions(before)} -> ${versions(now)}`;
  }
  return undefined;
}

/**
 * The tag drift triggers: compare the image's packages with those of the image the tag pointed at before, by
 * (type, name); one firing per added, removed or changed package, in (type, name) order. Without a previous image
 * nothing has drifted.
 */
function driftEvaluator(drift: Drift): TriggerEvaluator {
  return async (ctx, params) => {
    const previous = await ctx.previousImagePackages();
    if (!previous) return [];
    const types = typeFilter(params);
    const now = packagesByKey(await ctx.packages(), types);
    const before = packagesByKey(previous.packages, types);
    const keys = [...new Set([...now.keys(), ...before.keys()])].sort(compareStrings);
    const firings: Fired[] = [];
    for (const key of keys) {
      const message = driftMessage(drift, now.get(key), before.get(key));
      if (message !== undefined) firings.push({ triggerId: defaultTriggerId('tag_drift', drift, message), message });
    }
    return firings;
  };
}

export const tagDriftGate: GateDefinition = {
  name: 'tag_drift',
  description:
    'Compares the image with the image previously analysed under the same tag and checks how its packages changed.',
  state: 'active',
  triggers: [
    {
      name: 'packages_added',
      description: 'Fires for each package present in this image but not in the previous image of the same tag.',
      params: [packageType],
      evaluate: driftEvaluator('packages_added'),
    },
    {
      name: 'packages_removed',
      description: 'Fires for each package present in the previous image of the same tag but no longer in this one.',
      params: [packageType],
      evaluate: driftEvaluator('packages_removed'),
    },
    {
      name: 'packages_modified',
      description: 'Fires for each package whose version differs from the one in the previous image of the same tag.',
      params: [packageType],
      evaluate: driftEvaluator('packages_modified'),
    },
  ],
};
