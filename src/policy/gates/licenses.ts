import type { PackageRow } from '../../images/store.js';
import type { Fired, TriggerEvaluator } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { commaDelimitedStrings, listOf } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';

const exactLicenses: ParamDefinition = {
  name: 'licenses',
  description: 'License names that are not allowed; a package matches only if one of its licenses is identical to an entry.',
  required: true,
  example: 'GPLv2+,GPL-3+,BSD-2-clause',
  validator: commaDelimitedStrings,
};

const partialLicenses: ParamDefinition = {
  name: 'licenses',
  description: "Substrings that are not allowed; a package matches if any of its license names contains an entry.",
  required: true,
  example: 'LGPL,BSD',
  validator: commaDelimitedStrings,
};

const EXACT_DESCRIPTION =
  'Fires when an installed package is distributed under a license whose name exactly equals one in the list.';
const PARTIAL_DESCRIPTION =
  'Fires when an installed package is distributed under a license whose name contains one of the listed strings.';

type LicenseTest = (license: string, entry: string) => boolean;

const exactly: LicenseTest = (license, entry) => license === entry;
const containing: LicenseTest = (license, entry) => license.includes(entry);

/** The package's licenses that match an entry of the list, in the package's order, each once. */
function deniedLicenses(pkg: PackageRow, entries: string[], test: LicenseTest): string[] {
  return [...new Set(pkg.licenses.filter((license) => entries.some((entry) => test(license, entry))))];
}

/**
 * The license denylist triggers: one firing per installed package (of any type) with at least one license that
 * equals (exact) or contains (partial, case-sensitive) an entry of the list, naming the package and those licenses.
 * (The engine fired once for the whole image; a firing per package lets allowlists name single packages.)
 */
function licenseEvaluator(trigger: string, test: LicenseTest, how: string): TriggerEvaluator {
  return async (ctx, params) => {
    const entries = listOf(params.licenses ?? '');
    if (!entries.length) return [];
    const firings: Fired[] = [];
    for (const pkg of await ctx.packages()) {
      const denied = deniedLicenses(pkg, entries, test);
      if (!denied.length) continue;
      const message = `Package ${pkg.name}-${pkg.version} (${pkg.type}) is distributed under ${denied.length > 1 ? 'licenses' : 'a license'} ${how}: ${denied.join(', ')}`;
      firings.push({ triggerId: defaultTriggerId('licenses', trigger, message), message });
    }
    // Copies of one package at several locations say the same thing: keep one firing.
    return [...new Map(firings.map((f) => [f.triggerId, f])).values()];
  };
}

const EXACT_HOW = 'on the denylist';
const PARTIAL_HOW = 'matching the denylist';

export const licensesGate: GateDefinition = {
  name: 'licenses',
  description: 'Checks the software licenses of the packages found in the image.',
  state: 'active',
  triggers: [
    {
      name: 'blacklist_exact_match',
      description: `${EXACT_DESCRIPTION} Older name of denylist_exact_match.`,
      params: [exactLicenses],
      state: 'deprecated',
      supersededBy: 'denylist_exact_match',
      evaluate: licenseEvaluator('blacklist_exact_match', exactly, EXACT_HOW),
    },
    {
      name: 'blacklist_partial_match',
      description: `${PARTIAL_DESCRIPTION} Older name of denylist_partial_match.`,
      params: [partialLicenses],
      state: 'deprecated',
      supersededBy: 'denylist_partial_match',
      evaluate: licenseEvaluator('blacklist_partial_match', containing, PARTIAL_HOW),
    },
    {
      name: 'denylist_exact_match',
      description: EXACT_DESCRIPTION,
      params: [exactLicenses],
      evaluate: licenseEvaluator('denylist_exact_match', exactly, EXACT_HOW),
    },
    {
      name: 'denylist_partial_match',
      description: PARTIAL_DESCRIPTION,
      params: [partialLicenses],
      evaluate: licenseEvaluator('denylist_partial_match', containing, PARTIAL_HOW),
    },
  ],
};
