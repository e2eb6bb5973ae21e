import { ecosystemOf } from '../../ecosystems/registry.js';
import type { PackageRow } from '../../images/store.js';
import { compileUserRegex } from '../../util/user-regex.js';
import { semverComparator } from '../../ecosystems/shared/semver.js';
import type { EvaluationContext, Fired, TriggerEvaluator, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { anyString, commaDelimitedStrings, enumString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { orderComparison, satisfiesOrder } from './common.js';

const GATE = 'packages';

/** Negative, zero or positive as the package's version is lower than, equal to or higher than `version`. */
function compareVersion(pkg: PackageRow, version: string): number {
  if (pkg.version === version) return 0;
  // SemVer (lenient) for types without a format of their own.
  return (ecosystemOf(pkg.type.toLowerCase())?.comparator ?? semverComparator).compare(pkg.version, version);
}


/** An optional string parameter; an empty value counts as not given. */
function given(params: TriggerParams, name: string): string | undefined {
  const v = params[name];
  return v === undefined || v === '' ? undefined : v;
}

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/** Firings with the same id said the same thing about the same package (several copies of it): keep one. */
function distinct(firings: Fired[]): Fired[] {
  return [...new Map(firings.map((f) => [f.triggerId, f])).values()];
}

/**
 * packages/required_package: fires (once) unless a package with the name is installed and, when a version is given,
 * one of them has exactly that version (exact) or that version or a newer one by its type's ordering (minimum).
 */
async function evaluateRequiredPackage(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const name = given(params, 'name');
  if (name === undefined) return [];
  const version = given(params, 'version');
  const minimum = params.version_match_type === 'minimum';
  const candidates = (await ctx.packages()).filter((p) => p.name === name);
  if (!candidates.length) {
    const what = version === undefined ? name : `${name},${version}`;
    return [fired('required_package', `Required input package (${what}) is not present in container image`)];
  }
  if (version === undefined) return [];
  const satisfied = candidates.some((p) => (minimum ? compareVersion(p, version) >= 0 : p.version === version));
  if (satisfied) return [];
  const present = [...new Set(candidates.map((p) => p.version))].sort().join(', ');
  return [
    fired(
      'required_package',
      minimum
        ? `Required min-version input package (${name}) is present (${present}), but is lower version than what is specified in policy (${version})`
        : `Required input package (${name}) is present (${present}), but not at the version specified in policy (${version})`,
    ),
  ];
}

/**
 * packages/denylist (and its older name blacklist): fires for each installed package with the name and, when given,
 * exactly the version. The messages are the engine's (`Package is blacklisted: name[-version]`, "denylisted" under the
 * new name), so several copies of one package give one firing.
 */
function denylistEvaluator(trigger: 'denylist' | 'blacklist'): TriggerEvaluator {
  return async (ctx, params) => {
    const name = given(params, 'name');
    if (name === undefined) return [];
    const version = given(params, 'version');
    const word = trigger === 'blacklist' ? 'blacklisted' : 'denylisted';
    const matches = (await ctx.packages()).filter((p) => p.name === name && (version === undefined || p.version === version));
    return distinct(matches.map((p) => fired(trigger, `Package is ${word}: ${version === undefined ? p.name : `${p.name}-${p.version}`}`)));
  };
}

/** name_comparison as a test of names: equality, or a regular expression matched at the start (like Python's re.match). */
function nameTest(op: string, pattern: string): (pkgName: string) => boolean {
  switch (op) {
    case '=':
      return (n) => n === pattern;
    case '!=':
      return (n) => n !== pattern;
    case 'like':
    case 'not_like': {
      const re = compileUserRegex(`^(?:${pattern})`);
      return op === 'like' ? (n) => re.test(n) : (n) => !re.test(n);
    }
    default:
      throw new Error(`unknown name comparison '${op}'`);
  }
}

/**
 * packages/metadata: fires for each installed package whose name satisfies name_comparison (default `=`) and, when a
 * version is given, whose version satisfies version_comparison (default `=`) by its type's version ordering.
 */
async function evaluateMetadata(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const name = given(params, 'name');
  if (name === undefined) return [];
  const nameOp = params.name_comparison ?? '=';
  const version = given(params, 'version');
  const versionOp = params.version_comparison ?? '=';
  const criteria = `name ${nameOp} ${name}` + (version === undefined ? '' : `, version ${versionOp} ${version}`);
  const nameMatches = nameTest(nameOp, name);
  const matches = (await ctx.packages()).filter(
    (p) => nameMatches(p.name) && (version === undefined || satisfiesOrder(compareVersion(p, version), versionOp)),
  );
  return distinct(matches.map((p) => fired('metadata', `Package ${p.name}-${p.version} (${p.type}) matches ${criteria}`)));
}

const denyParams: ParamDefinition[] = [
  {
    name: 'name',
    description: 'Name of the package that must not be installed.',
    required: true,
    example: 'openssh-server',
    validator: anyString,
  },
  {
    name: 'version',
    description: 'Only this exact version of the package is forbidden; without it every version is.',
    required: false,
    example: '1.0.1',
    validator: anyString,
  },
];

const DENY_DESCRIPTION =
  'Fires when the image has an installed package with the given name and, if one is given, the given version.';

export const packagesGate: GateDefinition = {
  name: 'packages',
  description: 'Checks the distribution packages installed in the image.',
  state: 'active',
  triggers: [
    {
      name: 'required_package',
      description: 'Fires when the named package (optionally at a particular version) is missing from the image.',
      params: [
        {
          name: 'name',
          description: 'Name of the package the image must have installed.',
          required: true,
          example: 'libssl',
          validator: anyString,
        },
        {
          name: 'version',
          description: 'Version the installed package must have (or at least have, see version_match_type).',
          required: false,
          example: '1.10.3rc3',
          validator: anyString,
        },
        {
          name: 'version_match_type',
          description: 'When a version is given: require exactly that version, or that version or newer.',
          required: false,
          example: 'exact',
          validator: enumString(['exact', 'minimum']),
        },
      ],
      evaluate: evaluateRequiredPackage,
    },
    {
      name: 'verify',
      description: "Checks installed files against the image's own package database and fires on discrepancies.",
      params: [
        {
          name: 'only_packages',
          description: 'Verify only these packages instead of all of them.',
          required: false,
          example: 'libssl,openssl',
          validator: commaDelimitedStrings,
        },
        {
          name: 'only_directories',
          description: 'Verify only files under these directories instead of everywhere.',
          required: false,
          example: '/usr,/var/lib',
          validator: commaDelimitedStrings,
        },
        {
          name: 'check',
          description: 'Look for only one kind of discrepancy (changed or missing files) rather than all kinds.',
          required: false,
          example: 'changed',
          validator: enumString(['changed', 'missing']),
        },
      ],
      // No evaluate, on purpose. verify compares installed files with the digests, modes and sizes the image's own
      // package database records for them; Vigil's analysis keeps no per-package file manifest (file digests by
      // package), so the check cannot be made with the stored data. The trigger stays listed so policies using it
      // validate; it never fires, and the evaluation reports a TriggerNotEvaluable warning for the rule instead of
      // passing it silently.
    },
    {
      name: 'blacklist',
      description: `${DENY_DESCRIPTION} Older name of denylist.`,
      params: denyParams,
      state: 'deprecated',
      supersededBy: 'denylist',
      evaluate: denylistEvaluator('blacklist'),
    },
    {
      name: 'denylist',
      description: DENY_DESCRIPTION,
      params: denyParams,
      evaluate: denylistEvaluator('denylist'),
    },
    {
      name: 'metadata',
      description:
        'Fires for each installed package whose name and version satisfy the given comparisons.',
      params: [
        {
          name: 'name',
          description: 'Package name to compare installed package names with.',
          required: true,
          validator: anyString,
        },
        {
          name: 'name_comparison',
          description: 'How package names are compared with name: equality or a like/not_like pattern.',
          required: false,
          validator: enumString(['=', '!=', 'like', 'not_like']),
        },
        {
          name: 'version',
          description: 'Version to compare the matching packages\' versions with.',
          required: false,
          validator: anyString,
        },
        {
          name: 'version_comparison',
          description: 'How package versions are compared with version.',
          required: false,
          validator: orderComparison,
        },
      ],
      evaluate: evaluateMetadata,
    },
  ],
};
