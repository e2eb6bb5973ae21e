import { ecosystemOf } from '../../ecosystems/registry.js';
import { compileUserRegex } from '../../util/user-regex.js';
import { OS_PACKAGE_TYPES, type PackageVulnerabilityItem } from '../../vulns/image-report.js';
import type { EvaluationContext, Fired, TriggerEvaluator, TriggerParams } from '../evaluation-context.js';
import type { GateDefinition, ParamDefinition } from '../gate-types.js';
import { booleanString, commaDelimitedStrings, enumString, floatString, integerString, isTrue, listOf, regexString } from '../params.js';
import { defaultTriggerId } from '../trigger-ids.js';
import { orderComparison, satisfiesOrder } from './common.js';
import { maxOf } from '../../util/arrays.js';

const GATE = 'vulnerabilities';
const DAY_MS = 86_400_000;
const SEVERITY_ORDER = ['unknown', 'negligible', 'low', 'medium', 'high', 'critical'];

/** `a <op> b` for the order operators of the policy format. */
function compareNumbers(op: string, a: number, b: number): boolean {
  return satisfiesOrder(a === b ? 0 : a < b ? -1 : a > b ? 1 : NaN, op);
}

/** The parameter as a number, or undefined when it is not given. */
function numberParam(params: TriggerParams, name: string): number | undefined {
  const v = params[name];
  return v === undefined || v.trim() === '' ? undefined : Number(v.trim());
}

/** vendor_only defaults to true: won't-fix findings are left out unless the rule says false. */
function vendorOnly(params: TriggerParams): boolean {
  return params.vendor_only === undefined ? true : isTrue(params.vendor_only);
}

/** Milliseconds since the epoch, or undefined for a missing or unreadable time. */
function timeOf(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

function severityIndex(severity: string | undefined): number {
  const i = SEVERITY_ORDER.indexOf((severity ?? '').toLowerCase());
  return i < 0 ? 0 : i;
}

function packageClass(item: PackageVulnerabilityItem): 'os' | 'non-os' {
  return OS_PACKAGE_TYPES.has(item.package_type.toLowerCase()) ? 'os' : 'non-os';
}

function hasFix(item: PackageVulnerabilityItem): boolean {
  return item.fix !== 'None' && item.fix.trim() !== '';
}

type ScoreName = 'base_score' | 'exploitability_score' | 'impact_score';

/** The highest CVSS v3 score of a kind over a list of sources, -1 when none has one (as the engine does). */
function maxScore(data: readonly { cvss_v3?: Partial<Record<ScoreName, number | null>> }[], score: ScoreName): number {
  return maxOf(data.map((d) => d.cvss_v3?.[score]).filter((v): v is number => typeof v === 'number'), -1);
}

function maxEpss(item: PackageVulnerabilityItem, key: 'epss' | 'percentile'): number {
  return maxOf(item.epss.map((e) => e[key]).filter((v) => typeof v === 'number'), -1);
}

/** A float as Python's str() writes it (7 -> "7.0"), so messages read as the engine's do. */
function pyFloat(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** `(a=1 b=2)` for the given parts, or nothing; a 0 score is left out as the engine's truthiness test does. */
function detailGroup(parts: [string, number | string | undefined][]): string {
  const shown = parts.filter(([, v]) => v !== undefined && v !== 0 && v !== '');
  return shown.length ? `(${shown.map(([k, v]) => `${k}=${typeof v === 'number' ? pyFloat(v) : v}`).join(' ')})` : '';
}

/** The id an allowlist names a package of a finding by: see the trigger_id formats of the reference (section 4). */
function packageKey(item: PackageVulnerabilityItem): string {
  if (packageClass(item) === 'os') return item.package_name;
  const parts = (item.package_path ?? '').split('/');
  const key = ecosystemOf(item.package_type.toLowerCase())?.allowlistKey?.(parts);
  return key || `${item.package_name}-${item.package_version}`;
}

interface ScoreCheck {
  param: string;
  score: ScoreName;
  vendor: boolean;
}

const SCORE_CHECKS: ScoreCheck[] = [
  { param: 'cvss_v3_base_score', score: 'base_score', vendor: false },
  { param: 'cvss_v3_exploitability_score', score: 'exploitability_score', vendor: false },
  { param: 'cvss_v3_impact_score', score: 'impact_score', vendor: false },
  { param: 'vendor_cvss_v3_base_score', score: 'base_score', vendor: true },
  { param: 'vendor_cvss_v3_exploitability_score', score: 'exploitability_score', vendor: true },
  { param: 'vendor_cvss_v3_impact_score', score: 'impact_score', vendor: true },
];

/** The vulnerabilities/package rule, its parameters read once. */
interface PackageRule {
  packageType: string;
  /** Undefined when the rule does not compare severity at all (a KEV rule without severity parameters). */
  severity: { op: string; idx: number } | undefined;
  scores: { check: ScoreCheck; op: string; threshold: number }[];
  fixAvailable: boolean | undefined;
  vendorOnly: boolean;
  createdBefore: number | undefined;
  fixedBefore: number | undefined;
  pathExclude: RegExp | undefined;
  kev: boolean | undefined;
  epssOp: string;
  epssScore: number | undefined;
  epssPercentile: number | undefined;
  /** `all`, or only findings of this confidence (vulns/go-reachability.ts). */
  confidence: string;
}

function packageRule(params: TriggerParams, now: Date): PackageRule {
  const days = (name: string): number | undefined => {
    const n = numberParam(params, name);
    return n === undefined ? undefined : now.getTime() - Math.trunc(n) * DAY_MS;
  };
  const optionalBool = (name: string): boolean | undefined => (params[name] === undefined ? undefined : isTrue(params[name]));
  const fixAvailable = optionalBool('fix_available');
  const exclude = params.package_path_exclude;
  const kev = optionalBool('known_exploited_vulnerability');
  // The engine's defaults (> unknown) leave out findings of unknown severity. A rule asking for known-exploited
  // findings without any severity parameter means every one of them: exploitation matters more than a missing rating.
  const severityGiven = params.severity !== undefined || params.severity_comparison !== undefined;
  return {
    packageType: params.package_type ?? 'all',
    severity: kev === true && !severityGiven ? undefined : { op: params.severity_comparison ?? '>', idx: severityIndex(params.severity ?? 'unknown') },
    scores: SCORE_CHECKS.flatMap((check) => {
      const threshold = numberParam(params, check.param);
      return threshold === undefined ? [] : [{ check, op: params[`${check.param}_comparison`] ?? '>=', threshold }];
    }),
    fixAvailable,
    vendorOnly: vendorOnly(params),
    createdBefore: days('max_days_since_creation'),
    // Like the engine, max_days_since_fix counts only together with fix_available=true.
    fixedBefore: fixAvailable === true ? days('max_days_since_fix') : undefined,
    // re.match semantics: the pattern must match at the start of the path.
    pathExclude: exclude === undefined || exclude === '' ? undefined : compileUserRegex(`^(?:${exclude})`),
    kev,
    epssOp: params.epss_score_comparison ?? '>=',
    epssScore: numberParam(params, 'epss_score'),
    epssPercentile: numberParam(params, 'epss_percentile'),
    confidence: params.confidence ?? 'all',
  };
}

/** The message of a firing: the engine's Check_Output, including the details of the criteria that were given. */
function packageMessage(item: PackageVulnerabilityItem, rule: PackageRule): string {
  const cls = packageClass(item);
  const pkgname = cls === 'non-os' ? item.package_path || item.package_name : item.package_name;
  const fixMsg = hasFix(item) ? `(fixed in: ${item.fix.split(',').map((v) => v.trim()).join(', ')})` : '';
  const scoreParts = (vendor: boolean) =>
    detailGroup(
      rule.scores
        .filter((s) => s.check.vendor === vendor)
        .map((s): [string, number] => [s.check.param, maxScore(vendor ? item.vendor_data : item.nvd_data, s.check.score)]),
    );
  const date = (v: string | null | undefined) => {
    const t = timeOf(v);
    return t === undefined ? undefined : new Date(t).toISOString().slice(0, 10);
  };
  const timeMsg = detailGroup([
    ['max_days_since_creation', rule.createdBefore === undefined ? undefined : date(item.detected_at)],
    ['max_days_since_fix', rule.fixedBefore === undefined ? undefined : date(item.fix_observed_at)],
  ]);
  return (
    `${item.severity.toUpperCase()} Vulnerability found in ${cls} package type (${item.package_type}) - ${pkgname} ` +
    `${fixMsg}${scoreParts(false)}${timeMsg}${scoreParts(true)}(${item.vuln} - ${item.url})`
  );
}

/** Whether a finding meets every criterion of the rule. */
function packageRuleMatches(item: PackageVulnerabilityItem, rule: PackageRule): boolean {
  const cls = packageClass(item);
  if (rule.packageType !== 'all' && rule.packageType !== cls) return false;
  if (rule.severity && !compareNumbers(rule.severity.op, severityIndex(item.severity), rule.severity.idx)) return false;
  if (cls === 'non-os' && rule.pathExclude && item.package_path != null && rule.pathExclude.test(item.package_path)) return false;
  if (rule.vendorOnly && item.will_not_fix) return false;
  if (rule.createdBefore !== undefined) {
    // "max" days in the name, "at least N days old" in effect (the engine's semantics).
    const detected = timeOf(item.detected_at);
    if (detected === undefined || detected > rule.createdBefore) return false;
  }
  if (rule.fixedBefore !== undefined) {
    const observed = hasFix(item) ? timeOf(item.fix_observed_at) : undefined;
    if (observed === undefined || observed > rule.fixedBefore) return false;
  }
  for (const { check, op, threshold } of rule.scores) {
    if (!compareNumbers(op, maxScore(check.vendor ? item.vendor_data : item.nvd_data, check.score), threshold)) return false;
  }
  if (rule.fixAvailable !== undefined && rule.fixAvailable !== hasFix(item)) return false;
  if (rule.kev !== undefined && rule.kev !== item.is_kev) return false;
  if (rule.epssScore !== undefined && !compareNumbers(rule.epssOp, maxEpss(item, 'epss'), rule.epssScore)) return false;
  if (rule.epssPercentile !== undefined && !compareNumbers(rule.epssOp, maxEpss(item, 'percentile'), rule.epssPercentile)) return false;
  // A finding without the field (an older stored evaluation input) counts as high.
  if (rule.confidence !== 'all' && rule.confidence !== (item.confidence ?? 'high')) return false;
  return true;
}

/** vulnerabilities/package: one firing per finding that meets every given criterion, id `<vuln>+<pkgkey>`. */
async function evaluatePackage(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const rule = packageRule(params, ctx.now);
  return (await ctx.vulnerabilities())
    .filter((item) => packageRuleMatches(item, rule))
    .map((item) => ({ triggerId: `${item.vuln}+${packageKey(item)}`, message: packageMessage(item, rule) }));
}

function fired(trigger: string, message: string): Fired {
  return { triggerId: defaultTriggerId(GATE, trigger, message), message };
}

/**
 * vulnerabilities/stale_feed_data: fires when the oldest last sync of the enabled feed groups for the image's distro
 * namespace is more than max_days_since_sync days old, or unknown (no such group, or one never synced). Images without a
 * distro namespace have nothing to be stale about. The message carries the sync time rather than an age in days so
 * that its trigger id stays the same from one day to the next.
 */
async function evaluateStaleFeedData(ctx: EvaluationContext, params: TriggerParams): Promise<Fired[]> {
  const namespace = ctx.distroNamespace();
  const maxDays = numberParam(params, 'max_days_since_sync');
  if (namespace === undefined || maxDays === undefined) return [];
  const groups = (await ctx.feedGroups()).filter((g) => g.enabled && g.group === namespace);
  const syncs = groups.map((g) => timeOf(g.lastSync));
  const maxAge = `max_days_since_sync (${Math.trunc(maxDays)})`;
  if (!groups.length) return [fired('stale_feed_data', `No vulnerability data group for distro namespace ${namespace}; its sync time is unknown, so it counts as older than ${maxAge} days`)];
  if (syncs.some((t) => t === undefined)) {
    return [fired('stale_feed_data', `The vulnerability data for distro namespace ${namespace} has never been synced, so it counts as older than ${maxAge} days`)];
  }
  const oldest = Math.min(...(syncs as number[]));
  if (oldest >= ctx.now.getTime() - Math.trunc(maxDays) * DAY_MS) return [];
  return [fired('stale_feed_data', `The vulnerability data for distro namespace ${namespace} was last synced at ${new Date(oldest).toISOString()}, older than ${maxAge} days`)];
}

/**
 * vulnerabilities/vulnerability_data_unavailable: fires when the image has distro packages but no enabled feed group
 * with records covers its distro namespace (an image whose distro has no namespace has no data either).
 */
async function evaluateDataUnavailable(ctx: EvaluationContext): Promise<Fired[]> {
  const packages = await ctx.packages();
  if (!packages.some((p) => OS_PACKAGE_TYPES.has(p.type.toLowerCase()))) return [];
  const namespace = ctx.distroNamespace();
  if (namespace !== undefined && (await ctx.feedGroups()).some((g) => g.enabled && g.group === namespace && g.recordCount > 0)) return [];
  const distro = ctx.image.distro;
  const shown = namespace ?? (distro ? `${distro.name}:${distro.version}` : 'unknown');
  return [
    fired(
      'vulnerability_data_unavailable',
      `Distro-specific feed data not found for distro namespace: ${shown}. Cannot perform CVE scan OS/distro packages`,
    ),
  ];
}

/** A list as Python's str() writes it (`['CVE-1', 'CVE-2']`), the engine's message format. */
function pyList(items: string[]): string {
  return `[${items.map((i) => `'${i}'`).join(', ')}]`;
}

/**
 * vulnerabilities/denylist (and its older name blacklist): fires once, naming the listed ids found in the image, matched
 * by the finding's id or one of its aliases, case-insensitively. Under blacklist the message keeps the engine's wording,
 * so trigger ids (md5 of the message) from engine allowlists still match.
 */
function denylistEvaluator(trigger: 'denylist' | 'blacklist'): TriggerEvaluator {
  return async (ctx, params) => {
    const wanted = listOf(params.vulnerability_ids ?? '');
    const skipWontFix = vendorOnly(params);
    const present = new Set<string>();
    for (const item of await ctx.vulnerabilities()) {
      if (skipWontFix && item.will_not_fix) continue;
      for (const id of [item.vuln, ...(item.aliases ?? [])]) present.add(id.toUpperCase());
    }
    const seen = new Set<string>();
    const found = wanted.filter((id) => {
      const key = id.toUpperCase();
      if (seen.has(key) || !present.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (!found.length) return [];
    const word = trigger === 'blacklist' ? 'Blacklisted' : 'Denylisted';
    return [fired(trigger, `${word} vulnerabilities detected: ${pyList(found)}`)];
  };
}

/** A `<score>_comparison` operator plus its `<score>` value. */
function scoreParams(name: string, what: string): ParamDefinition[] {
  return [
    {
      name: `${name}_comparison`,
      description: `Operator used to compare the ${what} with ${name}.`,
      required: false,
      example: '>',
      validator: orderComparison,
    },
    {
      name,
      description: `The ${what} threshold the vulnerability is compared with.`,
      required: false,
      validator: floatString,
    },
  ];
}

const denyParams: ParamDefinition[] = [
  {
    name: 'vulnerability_ids',
    description: 'Vulnerability identifiers; the trigger fires if any of them is found in the image.',
    required: true,
    example: 'CVE-2019-1234',
    validator: commaDelimitedStrings,
  },
  {
    name: 'vendor_only',
    description: "When true, ignore matches the vendor has marked as ones it won't fix.",
    required: false,
    example: 'true',
    validator: booleanString,
  },
];

const DENY_DESCRIPTION = 'Fires (once) when any vulnerability from the given list is found in the image.';

export const vulnerabilitiesGate: GateDefinition = {
  name: 'vulnerabilities',
  description: 'Checks the known vulnerabilities (CVEs and similar advisories) found in the image.',
  state: 'active',
  triggers: [
    {
      name: 'package',
      description: 'Fires for each vulnerability found in an image package that meets all of the given criteria.',
      params: [
        {
          name: 'package_type',
          description: 'Which packages to consider: all, operating-system packages only (os) or the others only (non-os).',
          required: true,
          example: 'all',
          validator: enumString(['all', 'os', 'non-os']),
        },
        {
          name: 'severity_comparison',
          description: "Operator used to compare the vulnerability's severity with severity.",
          required: false,
          example: '>',
          validator: orderComparison,
        },
        {
          name: 'severity',
          description: 'The severity level the vulnerability is compared with.',
          required: false,
          example: 'high',
          validator: enumString(['unknown', 'negligible', 'low', 'medium', 'high', 'critical']),
        },
        ...scoreParams('cvss_v3_base_score', 'CVSS v3 base score'),
        ...scoreParams('cvss_v3_exploitability_score', 'CVSS v3 exploitability subscore'),
        ...scoreParams('cvss_v3_impact_score', 'CVSS v3 impact subscore'),
        {
          name: 'fix_available',
          description: 'When given, the vulnerability must have a fixed version (true) or must not have one (false).',
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'vendor_only',
          description: "When true, skip vulnerabilities whose fix the vendor has marked as one it won't provide.",
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'max_days_since_creation',
          description: 'Fire only for vulnerabilities first detected in the image more than this many days ago.',
          required: false,
          example: '7',
          validator: integerString,
        },
        {
          name: 'max_days_since_fix',
          description:
            'Fire only when a fix has been available for more than this many days; used only together with fix_available=true.',
          required: false,
          example: '30',
          validator: integerString,
        },
        ...scoreParams('vendor_cvss_v3_base_score', 'vendor-assigned CVSS v3 base score'),
        ...scoreParams('vendor_cvss_v3_exploitability_score', 'vendor-assigned CVSS v3 exploitability subscore'),
        ...scoreParams('vendor_cvss_v3_impact_score', 'vendor-assigned CVSS v3 impact subscore'),
        {
          name: 'package_path_exclude',
          description:
            'Regular expression on package locations; matching non-OS packages are left out of the check.',
          required: false,
          example: '.*test\\.jar*',
          validator: regexString,
        },
        // Vigil additions (Enterprise has equivalents whose exact names are not published).
        {
          name: 'known_exploited_vulnerability',
          description:
            'When given, the vulnerability must be (true) or must not be (false) in the CISA Known Exploited Vulnerabilities catalog. With true and neither severity nor severity_comparison, findings of every severity count, unknown included.',
          required: false,
          example: 'true',
          validator: booleanString,
        },
        {
          name: 'epss_score_comparison',
          description: "Operator used to compare the vulnerability's EPSS score or percentile with epss_score / epss_percentile.",
          required: false,
          example: '>',
          validator: orderComparison,
        },
        {
          name: 'epss_score',
          description: 'EPSS probability 0-1: the estimated chance of exploitation that the EPSS score is compared with.',
          required: false,
          validator: floatString,
        },
        {
          name: 'epss_percentile',
          description: "EPSS percentile (0-1) the vulnerability's percentile is compared with.",
          required: false,
          validator: floatString,
        },
        {
          name: 'confidence',
          description:
            'Which findings to consider by confidence: all (the default), high, or low (from advisories their publisher has not reviewed, such as unreviewed Go advisories).',
          required: false,
          example: 'high',
          validator: enumString(['all', 'high', 'low']),
        },
      ],
      evaluate: evaluatePackage,
    },
    {
      name: 'stale_feed_data',
      description:
        "Fires when the vulnerability data for the image's distribution was last synced longer ago than allowed, or its sync time is unknown.",
      params: [
        {
          name: 'max_days_since_sync',
          description: 'Largest accepted age, in days, of the last vulnerability data sync.',
          required: true,
          example: '10',
          validator: integerString,
        },
      ],
      evaluate: evaluateStaleFeedData,
    },
    {
      name: 'vulnerability_data_unavailable',
      description: "Fires when there is no vulnerability data for the image's distribution packages (rpm, dpkg, apk and so on).",
      params: [],
      evaluate: evaluateDataUnavailable,
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
  ],
};
