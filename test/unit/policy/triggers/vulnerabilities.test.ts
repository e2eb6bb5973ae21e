import { describe, expect, it } from 'vitest';
import type { TriggerParams } from '../../../../src/policy/evaluation-context.js';
import { vulnerabilitiesGate } from '../../../../src/policy/gates/vulnerabilities.js';
import { defaultTriggerId } from '../../../../src/policy/trigger-ids.js';
import type { PackageVulnerabilityItem } from '../../../../src/vulns/image-report.js';
import { daysAgo, fakeContext, finding, nvd, pkg, run, vendor, type FakeData } from './fake-context.js';

async function fire(trigger: string, data: FakeData, params: TriggerParams = {}) {
  return run(vulnerabilitiesGate, trigger, fakeContext(data), params);
}

/** The vuln ids of the findings vulnerabilities/package fires for. */
async function firedIds(findings: PackageVulnerabilityItem[], params: TriggerParams): Promise<string[]> {
  const fired = await fire('package', { vulnerabilities: findings }, { package_type: 'all', ...params });
  return fired.map((f) => f.triggerId.split('+')[0]);
}

const bySeverity = (['Unknown', 'Negligible', 'Low', 'Medium', 'High', 'Critical'] as const).map((severity) =>
  finding({ vuln: severity.toUpperCase(), severity }),
);

describe('vulnerabilities gate: every trigger evaluates', () => {
  it('has an evaluate on each active trigger', () => {
    for (const t of vulnerabilitiesGate.triggers) expect(t.evaluate, t.name).toBeTypeOf('function');
  });
});

describe('vulnerabilities/package: package_type', () => {
  const findings = [
    finding({ vuln: 'OS-DPKG', package_type: 'dpkg' }),
    finding({ vuln: 'OS-RPM', package_type: 'rpm' }),
    finding({ vuln: 'OS-APK', package_type: 'apk' }),
    finding({ vuln: 'NONOS-NPM', package_type: 'npm', package_name: 'lodash', package_version: '4.17.20', package_path: '/app/node_modules/lodash/package.json' }),
    finding({ vuln: 'NONOS-JAVA', package_type: 'java', package_name: 'log4j-core', package_version: '2.14.1', package_path: '/app/lib/log4j-core-2.14.1.jar' }),
  ];

  it('all takes every finding', async () => {
    expect(await firedIds(findings, { package_type: 'all' })).toEqual(['OS-DPKG', 'OS-RPM', 'OS-APK', 'NONOS-NPM', 'NONOS-JAVA']);
  });
  it('os takes dpkg, rpm and apk', async () => {
    expect(await firedIds(findings, { package_type: 'os' })).toEqual(['OS-DPKG', 'OS-RPM', 'OS-APK']);
  });
  it('non-os takes the others', async () => {
    expect(await firedIds(findings, { package_type: 'non-os' })).toEqual(['NONOS-NPM', 'NONOS-JAVA']);
  });
});

describe('vulnerabilities/package: severity', () => {
  it('defaults to severity > unknown', async () => {
    expect(await firedIds(bySeverity, {})).toEqual(['NEGLIGIBLE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
  });
  it('defaults the comparison to > when only severity is given', async () => {
    expect(await firedIds(bySeverity, { severity: 'medium' })).toEqual(['HIGH', 'CRITICAL']);
  });
  it.each([
    ['=', ['MEDIUM']],
    ['!=', ['UNKNOWN', 'NEGLIGIBLE', 'LOW', 'HIGH', 'CRITICAL']],
    ['<', ['UNKNOWN', 'NEGLIGIBLE', 'LOW']],
    ['>', ['HIGH', 'CRITICAL']],
    ['<=', ['UNKNOWN', 'NEGLIGIBLE', 'LOW', 'MEDIUM']],
    ['>=', ['MEDIUM', 'HIGH', 'CRITICAL']],
  ])('severity_comparison %s medium', async (op, expected) => {
    expect(await firedIds(bySeverity, { severity_comparison: op, severity: 'medium' })).toEqual(expected);
  });
  it('defaults the severity to unknown when only the comparison is given', async () => {
    expect(await firedIds(bySeverity, { severity_comparison: '=' })).toEqual(['UNKNOWN']);
  });
  it('compares case-insensitively, on both sides', async () => {
    const odd = [finding({ vuln: 'LOWER', severity: 'high' as PackageVulnerabilityItem['severity'] }), finding({ vuln: 'UPPER', severity: 'HIGH' as PackageVulnerabilityItem['severity'] })];
    expect(await firedIds(odd, { severity_comparison: '=', severity: 'High' })).toEqual(['LOWER', 'UPPER']);
  });
  it('counts an unrecognised severity as unknown', async () => {
    const odd = [finding({ vuln: 'ODD', severity: '' as PackageVulnerabilityItem['severity'] })];
    expect(await firedIds(odd, { severity_comparison: '=', severity: 'unknown' })).toEqual(['ODD']);
  });
});

describe('vulnerabilities/package: NVD CVSS v3 scores', () => {
  const findings = [
    finding({ vuln: 'TWO-SOURCES', nvd_data: nvd({ base: 5.0, expl: 1.0, impact: 2.0 }, { base: 9.8, expl: 3.9, impact: 5.9 }) }),
    finding({ vuln: 'MEDIUM', nvd_data: nvd({ base: 6.5, expl: 2.8, impact: 3.6 }) }),
    finding({ vuln: 'NONE' }),
    finding({ vuln: 'NULL-SCORES', nvd_data: nvd({ base: null, expl: null, impact: null }) }),
    finding({ vuln: 'VENDOR-ONLY', vendor_data: vendor({ base: 9.9, expl: 3.9, impact: 6.0 }) }),
  ];

  it('base score uses the max over the NVD entries and defaults to >=', async () => {
    expect(await firedIds(findings, { cvss_v3_base_score: '9.8' })).toEqual(['TWO-SOURCES']);
    expect(await firedIds(findings, { cvss_v3_base_score: '6.5' })).toEqual(['TWO-SOURCES', 'MEDIUM']);
  });
  it('a missing score counts as -1', async () => {
    expect(await firedIds(findings, { cvss_v3_base_score_comparison: '<', cvss_v3_base_score: '0' })).toEqual(['NONE', 'NULL-SCORES', 'VENDOR-ONLY']);
    expect(await firedIds(findings, { cvss_v3_base_score_comparison: '=', cvss_v3_base_score: '-1' })).toEqual(['NONE', 'NULL-SCORES', 'VENDOR-ONLY']);
  });
  it('exploitability score with its own comparison', async () => {
    expect(await firedIds(findings, { cvss_v3_exploitability_score_comparison: '>', cvss_v3_exploitability_score: '2.8' })).toEqual(['TWO-SOURCES']);
    expect(await firedIds(findings, { cvss_v3_exploitability_score_comparison: '<=', cvss_v3_exploitability_score: '2.8' })).toEqual([
      'MEDIUM',
      'NONE',
      'NULL-SCORES',
      'VENDOR-ONLY',
    ]);
  });
  it('impact score with its own comparison', async () => {
    expect(await firedIds(findings, { cvss_v3_impact_score_comparison: '=', cvss_v3_impact_score: '3.6' })).toEqual(['MEDIUM']);
    expect(await firedIds(findings, { cvss_v3_impact_score_comparison: '!=', cvss_v3_impact_score: '3.6' })).toEqual(['TWO-SOURCES', 'NONE', 'NULL-SCORES', 'VENDOR-ONLY']);
  });
  it('all given scores must hold', async () => {
    expect(await firedIds(findings, { cvss_v3_base_score: '6', cvss_v3_impact_score_comparison: '<', cvss_v3_impact_score: '4' })).toEqual(['MEDIUM']);
  });
  it('names the scores in the message, as Python writes floats', async () => {
    const [f] = await fire('package', { vulnerabilities: [finding({ nvd_data: nvd({ base: 9.0, expl: 3.9, impact: 5.9 }) })] }, { package_type: 'all', cvss_v3_base_score: '9', cvss_v3_impact_score: '5' });
    expect(f.message).toBe(
      'HIGH Vulnerability found in os package type (dpkg) - openssl (cvss_v3_base_score=9.0 cvss_v3_impact_score=5.9)(CVE-2024-0001 - https://osv.dev/vulnerability/CVE-2024-0001)',
    );
  });
});

describe('vulnerabilities/package: vendor CVSS v3 scores', () => {
  const findings = [
    finding({ vuln: 'VENDOR-HIGH', vendor_data: vendor({ base: 5.0, expl: 1.2, impact: 2.5 }, { base: 8.8, expl: 2.8, impact: 5.9 }) }),
    finding({ vuln: 'VENDOR-LOW', vendor_data: vendor({ base: 3.1, expl: 1.6, impact: 1.4 }) }),
    finding({ vuln: 'NVD-ONLY', nvd_data: nvd({ base: 9.8, expl: 3.9, impact: 5.9 }) }),
  ];

  it('base score uses the max over the vendor entries, >= by default, never NVD scores', async () => {
    expect(await firedIds(findings, { vendor_cvss_v3_base_score: '8.8' })).toEqual(['VENDOR-HIGH']);
  });
  it('a missing vendor score counts as -1', async () => {
    expect(await firedIds(findings, { vendor_cvss_v3_base_score_comparison: '<', vendor_cvss_v3_base_score: '4' })).toEqual(['VENDOR-LOW', 'NVD-ONLY']);
  });
  it('exploitability score with its own comparison', async () => {
    expect(await firedIds(findings, { vendor_cvss_v3_exploitability_score_comparison: '>=', vendor_cvss_v3_exploitability_score: '1.6' })).toEqual([
      'VENDOR-HIGH',
      'VENDOR-LOW',
    ]);
  });
  it('impact score with its own comparison', async () => {
    expect(await firedIds(findings, { vendor_cvss_v3_impact_score_comparison: '>', vendor_cvss_v3_impact_score: '5' })).toEqual(['VENDOR-HIGH']);
  });
  it('names the vendor scores in the message after the NVD ones', async () => {
    const item = finding({ nvd_data: nvd({ base: 7.5 }), vendor_data: vendor({ base: 8.1, expl: 2.2, impact: 5.9 }) });
    const [f] = await fire('package', { vulnerabilities: [item] }, { package_type: 'os', cvss_v3_base_score: '7', vendor_cvss_v3_base_score: '8', vendor_cvss_v3_exploitability_score: '2' });
    expect(f.message).toBe(
      'HIGH Vulnerability found in os package type (dpkg) - openssl (cvss_v3_base_score=7.5)(vendor_cvss_v3_base_score=8.1 vendor_cvss_v3_exploitability_score=2.2)(CVE-2024-0001 - https://osv.dev/vulnerability/CVE-2024-0001)',
    );
  });
});

describe('vulnerabilities/package: fix_available and vendor_only', () => {
  const findings = [
    finding({ vuln: 'FIXED', fix: '3.0.13-1~deb12u1' }),
    finding({ vuln: 'UNFIXED', fix: 'None' }),
    finding({ vuln: 'WONTFIX', fix: 'None', will_not_fix: true }),
  ];

  it('fix_available=true keeps findings with a fixed version', async () => {
    expect(await firedIds(findings, { fix_available: 'true' })).toEqual(['FIXED']);
  });
  it('fix_available=false keeps findings without one', async () => {
    expect(await firedIds(findings, { fix_available: 'false' })).toEqual(['UNFIXED']);
  });
  it('fix_available is case-insensitive', async () => {
    expect(await firedIds(findings, { fix_available: 'TRUE' })).toEqual(['FIXED']);
  });
  it("vendor_only defaults to true: won't-fix findings are skipped", async () => {
    expect(await firedIds(findings, {})).toEqual(['FIXED', 'UNFIXED']);
    expect(await firedIds(findings, { vendor_only: 'true' })).toEqual(['FIXED', 'UNFIXED']);
  });
  it("vendor_only=false keeps won't-fix findings", async () => {
    expect(await firedIds(findings, { vendor_only: 'false' })).toEqual(['FIXED', 'UNFIXED', 'WONTFIX']);
  });
});

describe('vulnerabilities/package: max_days_since_creation (at least N days old)', () => {
  const findings = [
    finding({ vuln: 'EXACTLY-7', detected_at: daysAgo(7) }),
    finding({ vuln: 'OLDER', detected_at: daysAgo(30) }),
    finding({ vuln: 'ALMOST-7', detected_at: daysAgo(7, -1000) }),
    finding({ vuln: 'TODAY', detected_at: daysAgo(0) }),
    finding({ vuln: 'UNKNOWN-TIME' }),
  ];

  it('fires only for findings detected at least N days before now', async () => {
    expect(await firedIds(findings, { max_days_since_creation: '7' })).toEqual(['EXACTLY-7', 'OLDER']);
  });
  it('0 days takes every finding with a detection time', async () => {
    expect(await firedIds(findings, { max_days_since_creation: '0' })).toEqual(['EXACTLY-7', 'OLDER', 'ALMOST-7', 'TODAY']);
  });
  it('without the parameter the detection time does not matter', async () => {
    expect(await firedIds(findings, {})).toHaveLength(5);
  });
  it('names the detection date in the message', async () => {
    const [f] = await fire('package', { vulnerabilities: [finding({ detected_at: daysAgo(10) })] }, { package_type: 'all', max_days_since_creation: '7' });
    expect(f.message).toContain(' - openssl (max_days_since_creation=2024-06-20)(CVE-2024-0001 - ');
  });
});

describe('vulnerabilities/package: max_days_since_fix (at least N days, only with fix_available=true)', () => {
  const findings = [
    finding({ vuln: 'FIX-30', fix: '1.1', detected_at: daysAgo(100), fix_observed_at: daysAgo(30) }),
    finding({ vuln: 'FIX-29', fix: '1.1', detected_at: daysAgo(100), fix_observed_at: daysAgo(29) }),
    finding({ vuln: 'FIX-UNKNOWN', fix: '1.1' }),
    finding({ vuln: 'NO-FIX', detected_at: daysAgo(100), fix_observed_at: null }),
  ];

  it('fires only when the fix was first observed at least N days ago', async () => {
    expect(await firedIds(findings, { fix_available: 'true', max_days_since_fix: '30' })).toEqual(['FIX-30']);
  });
  it('is ignored without fix_available=true', async () => {
    expect(await firedIds(findings, { max_days_since_fix: '30' })).toEqual(['FIX-30', 'FIX-29', 'FIX-UNKNOWN', 'NO-FIX']);
    expect(await firedIds(findings, { fix_available: 'false', max_days_since_fix: '30' })).toEqual(['NO-FIX']);
  });
  it('names the fix date in the message', async () => {
    const [f] = await fire('package', { vulnerabilities: [findings[0]] }, { package_type: 'all', fix_available: 'true', max_days_since_fix: '30', max_days_since_creation: '1' });
    expect(f.message).toBe(
      'HIGH Vulnerability found in os package type (dpkg) - openssl (fixed in: 1.1)(max_days_since_creation=2024-03-22 max_days_since_fix=2024-05-31)(FIX-30 - https://osv.dev/vulnerability/CVE-2024-0001)',
    );
  });
});

describe('vulnerabilities/package: package_path_exclude', () => {
  const findings = [
    finding({ vuln: 'TEST-JAR', package_type: 'java', package_name: 'junit', package_version: '4.12', package_path: '/app/test/junit-4.12.jar' }),
    finding({ vuln: 'APP-JAR', package_type: 'java', package_name: 'guava', package_version: '30.0', package_path: '/app/lib/guava-30.0.jar' }),
    finding({ vuln: 'OS-IN-TEST', package_type: 'dpkg', package_path: '/app/test/var/lib/dpkg/status' }),
    finding({ vuln: 'NO-PATH', package_type: 'python', package_name: 'requests', package_version: '2.0.0', package_path: null }),
  ];

  it('leaves out non-os findings whose path matches, never os ones', async () => {
    expect(await firedIds(findings, { package_path_exclude: '.*/test/.*' })).toEqual(['APP-JAR', 'OS-IN-TEST', 'NO-PATH']);
  });
  it('matches at the start of the path, as Python re.match does', async () => {
    expect(await firedIds(findings, { package_path_exclude: 'test' })).toEqual(['TEST-JAR', 'APP-JAR', 'OS-IN-TEST', 'NO-PATH']);
    expect(await firedIds(findings, { package_path_exclude: '/app/test' })).toEqual(['APP-JAR', 'OS-IN-TEST', 'NO-PATH']);
  });
  it('an alternation is anchored as a whole', async () => {
    expect(await firedIds(findings, { package_path_exclude: 'x|/app/lib' })).toEqual(['TEST-JAR', 'OS-IN-TEST', 'NO-PATH']);
  });
});

describe('vulnerabilities/package: known_exploited_vulnerability', () => {
  const findings = [finding({ vuln: 'KEV', is_kev: true }), finding({ vuln: 'NOT-KEV', is_kev: false })];

  it('true keeps only KEV findings', async () => {
    expect(await firedIds(findings, { known_exploited_vulnerability: 'true' })).toEqual(['KEV']);
  });
  it('false keeps only the others', async () => {
    expect(await firedIds(findings, { known_exploited_vulnerability: 'false' })).toEqual(['NOT-KEV']);
  });
  it('absent does not filter', async () => {
    expect(await firedIds(findings, {})).toEqual(['KEV', 'NOT-KEV']);
  });
  it('true without severity parameters takes KEV findings of every severity, unknown included', async () => {
    const kev = bySeverity.map((f) => ({ ...f, is_kev: true }));
    expect(await firedIds([...kev, finding({ vuln: 'NOT-KEV', severity: 'Critical' })], { known_exploited_vulnerability: 'true' })).toEqual([
      'UNKNOWN', 'NEGLIGIBLE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL',
    ]);
  });
  it('true with a severity parameter still compares severity', async () => {
    const kev = bySeverity.map((f) => ({ ...f, is_kev: true }));
    expect(await firedIds(kev, { known_exploited_vulnerability: 'true', severity: 'medium' })).toEqual(['HIGH', 'CRITICAL']);
    expect(await firedIds(kev, { known_exploited_vulnerability: 'true', severity_comparison: '>' })).toEqual(['NEGLIGIBLE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
  });
  it('false keeps the default severity comparison (> unknown)', async () => {
    expect(await firedIds(bySeverity, { known_exploited_vulnerability: 'false' })).toEqual(['NEGLIGIBLE', 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL']);
  });
});

describe('vulnerabilities/package: EPSS', () => {
  const findings = [
    finding({ vuln: 'LIKELY', epss: [{ epss: 0.2, percentile: 0.9 }, { epss: 0.95, percentile: 0.999 }] }),
    finding({ vuln: 'UNLIKELY', epss: [{ epss: 0.01, percentile: 0.4 }] }),
    finding({ vuln: 'NO-EPSS' }),
  ];

  it('epss_score compares the max score, >= by default', async () => {
    expect(await firedIds(findings, { epss_score: '0.95' })).toEqual(['LIKELY']);
    expect(await firedIds(findings, { epss_score: '0.01' })).toEqual(['LIKELY', 'UNLIKELY']);
  });
  it('epss_score_comparison applies, with a missing score as -1', async () => {
    expect(await firedIds(findings, { epss_score_comparison: '<', epss_score: '0.1' })).toEqual(['UNLIKELY', 'NO-EPSS']);
  });
  it('epss_percentile compares the max percentile, >= by default', async () => {
    expect(await firedIds(findings, { epss_percentile: '0.5' })).toEqual(['LIKELY']);
    expect(await firedIds(findings, { epss_percentile: '0.4' })).toEqual(['LIKELY', 'UNLIKELY']);
  });
  it('both given: both must hold', async () => {
    expect(await firedIds(findings, { epss_score: '0.5', epss_percentile: '0.9999' })).toEqual([]);
    expect(await firedIds(findings, { epss_score: '0.5', epss_percentile: '0.99' })).toEqual(['LIKELY']);
  });
});

describe('vulnerabilities/package: confidence (Vigil addition)', () => {
  const findings = [finding({ vuln: 'REVIEWED', confidence: 'high' }), finding({ vuln: 'UNREVIEWED', confidence: 'low' })];

  it('takes every finding by default and with all', async () => {
    expect(await firedIds(findings, {})).toEqual(['REVIEWED', 'UNREVIEWED']);
    expect(await firedIds(findings, { confidence: 'all' })).toEqual(['REVIEWED', 'UNREVIEWED']);
  });
  it('high and low select by the finding\'s confidence', async () => {
    expect(await firedIds(findings, { confidence: 'high' })).toEqual(['REVIEWED']);
    expect(await firedIds(findings, { confidence: 'low' })).toEqual(['UNREVIEWED']);
  });
  it('is validated as an enum', () => {
    const param = vulnerabilitiesGate.triggers.find((t) => t.name === 'package')!.params.find((p) => p.name === 'confidence')!;
    expect(param.validator.check('low')).toBeUndefined();
    expect(param.validator.check('medium')).toMatch(/must be one of all, high, low/);
  });
});

describe('vulnerabilities/package: trigger ids and messages', () => {
  async function one(item: PackageVulnerabilityItem) {
    const fired = await fire('package', { vulnerabilities: [item] }, { package_type: 'all' });
    expect(fired).toHaveLength(1);
    return fired[0];
  }

  it('os: <vuln>+<package name>, the name in the message, with the fixed versions', async () => {
    const f = await one(finding({ vuln: 'CVE-2023-5678', fix: '3.0.13-1,3.0.14-1', url: 'https://security-tracker.debian.org/tracker/CVE-2023-5678' }));
    expect(f.triggerId).toBe('CVE-2023-5678+openssl');
    expect(f.message).toBe(
      'HIGH Vulnerability found in os package type (dpkg) - openssl (fixed in: 3.0.13-1, 3.0.14-1)(CVE-2023-5678 - https://security-tracker.debian.org/tracker/CVE-2023-5678)',
    );
  });
  it('java: last component of the path; the path in the message', async () => {
    const f = await one(finding({ vuln: 'GHSA-jfh8-c2jp-5v3q', severity: 'Critical', package_type: 'java', package_name: 'log4j-core', package_version: '2.14.1', package_path: '/opt/app/lib/log4j-core-2.14.1.jar', fix: '2.15.0', url: 'https://github.com/advisories/GHSA-jfh8-c2jp-5v3q' }));
    expect(f.triggerId).toBe('GHSA-jfh8-c2jp-5v3q+log4j-core-2.14.1.jar');
    expect(f.message).toBe(
      'CRITICAL Vulnerability found in non-os package type (java) - /opt/app/lib/log4j-core-2.14.1.jar (fixed in: 2.15.0)(GHSA-jfh8-c2jp-5v3q - https://github.com/advisories/GHSA-jfh8-c2jp-5v3q)',
    );
  });
  it('npm: second-to-last component of the path', async () => {
    const f = await one(finding({ vuln: 'GHSA-p6mc-m468-83gw', severity: 'Medium', package_type: 'npm', package_name: 'lodash', package_version: '4.17.15', package_path: '/usr/lib/node_modules/lodash/package.json' }));
    expect(f.triggerId).toBe('GHSA-p6mc-m468-83gw+lodash');
    expect(f.message).toBe(
      'MEDIUM Vulnerability found in non-os package type (npm) - /usr/lib/node_modules/lodash/package.json (GHSA-p6mc-m468-83gw - https://osv.dev/vulnerability/CVE-2024-0001)',
    );
  });
  it('gem: last component of the path', async () => {
    const f = await one(finding({ vuln: 'CVE-2022-1', package_type: 'gem', package_name: 'rack', package_version: '2.2.3', package_path: '/usr/local/bundle/specifications/rack-2.2.3.gemspec' }));
    expect(f.triggerId).toBe('CVE-2022-1+rack-2.2.3.gemspec');
  });
  it('python and other types: <name>-<version>', async () => {
    const f = await one(finding({ vuln: 'CVE-2023-32681', package_type: 'python', package_name: 'requests', package_version: '2.28.0', package_path: '/usr/lib/python3/site-packages/requests-2.28.0.dist-info/METADATA' }));
    expect(f.triggerId).toBe('CVE-2023-32681+requests-2.28.0');
    const g = await one(finding({ vuln: 'GO-2023-1', package_type: 'go', package_name: 'golang.org/x/net', package_version: 'v0.7.0', package_path: '/usr/bin/app' }));
    expect(g.triggerId).toBe('GO-2023-1+golang.org/x/net-v0.7.0');
  });
  it('java or npm without a usable path: <name>-<version>; the name stands in for the path in the message', async () => {
    const j = await one(finding({ vuln: 'CVE-1', package_type: 'java', package_name: 'guava', package_version: '30.0', package_path: null }));
    expect(j.triggerId).toBe('CVE-1+guava-30.0');
    expect(j.message).toContain('non-os package type (java) - guava (CVE-1 - ');
    const n = await one(finding({ vuln: 'CVE-2', package_type: 'npm', package_name: 'left-pad', package_version: '1.0.0', package_path: 'package.json' }));
    expect(n.triggerId).toBe('CVE-2+left-pad-1.0.0');
  });
  it('fires once per finding, in the findings order, deterministically', async () => {
    const findings = [finding({ vuln: 'B' }), finding({ vuln: 'A', package_name: 'zlib1g' })];
    const first = await fire('package', { vulnerabilities: findings }, { package_type: 'all' });
    const second = await fire('package', { vulnerabilities: findings }, { package_type: 'all' });
    expect(first.map((f) => f.triggerId)).toEqual(['B+openssl', 'A+zlib1g']);
    expect(second).toEqual(first);
  });
  it('no findings, no firings', async () => {
    expect(await fire('package', {}, { package_type: 'all' })).toEqual([]);
  });
});

describe('vulnerabilities/stale_feed_data', () => {
  const group = (lastSync: string | null, extra: Partial<{ feed: string; enabled: boolean; group: string }> = {}) => ({
    feed: 'osv',
    group: 'debian:12',
    enabled: true,
    recordCount: 1000,
    lastSync,
    ...extra,
  });

  it('does not fire for an image without a distro namespace', async () => {
    expect(await fire('stale_feed_data', { feedGroups: [group(null)] }, { max_days_since_sync: '1' })).toEqual([]);
  });
  it('does not fire when the data is recent enough', async () => {
    expect(await fire('stale_feed_data', { namespace: 'debian:12', feedGroups: [group(daysAgo(2))] }, { max_days_since_sync: '10' })).toEqual([]);
  });
  it('does not fire at exactly N days (more than N is stale)', async () => {
    expect(await fire('stale_feed_data', { namespace: 'debian:12', feedGroups: [group(daysAgo(10))] }, { max_days_since_sync: '10' })).toEqual([]);
  });
  it('fires when the last sync is more than N days old, naming namespace and sync time', async () => {
    const fired = await fire('stale_feed_data', { namespace: 'debian:12', feedGroups: [group(daysAgo(12))] }, { max_days_since_sync: '10' });
    expect(fired).toHaveLength(1);
    expect(fired[0].message).toBe(
      'The vulnerability data for distro namespace debian:12 was last synced at 2024-06-18T12:00:00.000Z, older than max_days_since_sync (10) days',
    );
    expect(fired[0].triggerId).toBe(defaultTriggerId('vulnerabilities', 'stale_feed_data', fired[0].message));
  });
  it('uses the oldest sync among the enabled groups of the namespace', async () => {
    const groups = [group(daysAgo(1)), group(daysAgo(20), { feed: 'other' }), group(daysAgo(40), { feed: 'off', enabled: false }), group(daysAgo(50), { group: 'debian:11' })];
    const fired = await fire('stale_feed_data', { namespace: 'debian:12', feedGroups: groups }, { max_days_since_sync: '10' });
    expect(fired.map((f) => f.message)).toEqual([
      'The vulnerability data for distro namespace debian:12 was last synced at 2024-06-10T12:00:00.000Z, older than max_days_since_sync (10) days',
    ]);
  });
  it('fires when the namespace has no (enabled) group', async () => {
    const fired = await fire('stale_feed_data', { namespace: 'alpine:3.19', feedGroups: [group(daysAgo(1)), group(daysAgo(1), { group: 'alpine:3.19', enabled: false })] }, { max_days_since_sync: '10' });
    expect(fired).toHaveLength(1);
    expect(fired[0].message).toContain('No vulnerability data group for distro namespace alpine:3.19');
  });
  it('fires when the sync time is unknown', async () => {
    const fired = await fire('stale_feed_data', { namespace: 'debian:12', feedGroups: [group(daysAgo(1)), group(null, { feed: 'other' })] }, { max_days_since_sync: '10' });
    expect(fired).toHaveLength(1);
    expect(fired[0].message).toContain('debian:12 has never been synced');
  });
});

describe('vulnerabilities/vulnerability_data_unavailable', () => {
  const dpkg = [pkg('dpkg', 'openssl', '3.0.11-1')];
  const group = (recordCount: number, enabled = true, name = 'debian:12') => ({ feed: 'osv', group: name, enabled, recordCount, lastSync: daysAgo(1) });

  it('does not fire when an enabled group of the namespace has records', async () => {
    expect(await fire('vulnerability_data_unavailable', { packages: dpkg, namespace: 'debian:12', feedGroups: [group(0, true, 'debian:11'), group(10)] })).toEqual([]);
  });
  it('fires when the namespace group is empty', async () => {
    const fired = await fire('vulnerability_data_unavailable', { packages: dpkg, namespace: 'debian:12', feedGroups: [group(0)] });
    expect(fired).toEqual([
      {
        triggerId: defaultTriggerId('vulnerabilities', 'vulnerability_data_unavailable', fired[0].message),
        message: 'Distro-specific feed data not found for distro namespace: debian:12. Cannot perform CVE scan OS/distro packages',
      },
    ]);
  });
  it('fires when the namespace group is disabled or missing', async () => {
    expect(await fire('vulnerability_data_unavailable', { packages: dpkg, namespace: 'debian:12', feedGroups: [group(10, false)] })).toHaveLength(1);
    expect(await fire('vulnerability_data_unavailable', { packages: dpkg, namespace: 'debian:12', feedGroups: [] })).toHaveLength(1);
  });
  it('fires for distro packages of a distro without a namespace', async () => {
    const fired = await fire('vulnerability_data_unavailable', { packages: dpkg, distro: { name: 'kali', version: '2024.2', like: [] }, feedGroups: [group(10)] });
    expect(fired.map((f) => f.message)).toEqual(['Distro-specific feed data not found for distro namespace: kali:2024.2. Cannot perform CVE scan OS/distro packages']);
  });
  it('does not fire for an image without distro packages', async () => {
    expect(await fire('vulnerability_data_unavailable', { packages: [pkg('npm', 'lodash', '4.17.21')], namespace: 'debian:12', feedGroups: [] })).toEqual([]);
    expect(await fire('vulnerability_data_unavailable', { packages: [] })).toEqual([]);
  });
});

describe.each(['denylist', 'blacklist'])('vulnerabilities/%s', (trigger) => {
  const word = trigger === 'denylist' ? 'Denylisted' : 'Blacklisted';
  const findings = [
    finding({ vuln: 'CVE-2021-44228', package_type: 'java', package_name: 'log4j-core', package_version: '2.14.1' }),
    finding({ vuln: 'GHSA-p6mc-m468-83gw', aliases: ['CVE-2020-8203'] }),
    finding({ vuln: 'CVE-2019-9999', will_not_fix: true }),
  ];

  it('fires once, listing the given ids found, in the order given', async () => {
    const fired = await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'CVE-2000-0001, CVE-2020-8203,CVE-2021-44228' });
    expect(fired).toHaveLength(1);
    expect(fired[0].message).toBe(`${word} vulnerabilities detected: ['CVE-2020-8203', 'CVE-2021-44228']`);
    expect(fired[0].triggerId).toBe(defaultTriggerId('vulnerabilities', trigger, fired[0].message));
  });
  it('matches aliases and ids case-insensitively, each listed id once', async () => {
    const fired = await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'cve-2020-8203,CVE-2020-8203' });
    expect(fired.map((f) => f.message)).toEqual([`${word} vulnerabilities detected: ['cve-2020-8203']`]);
  });
  it('does not fire when none is found', async () => {
    expect(await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'CVE-2000-0001' })).toEqual([]);
  });
  it("vendor_only (default true) ignores won't-fix findings", async () => {
    expect(await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'CVE-2019-9999' })).toEqual([]);
    expect(await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'CVE-2019-9999', vendor_only: 'true' })).toEqual([]);
    const fired = await fire(trigger, { vulnerabilities: findings }, { vulnerability_ids: 'CVE-2019-9999', vendor_only: 'false' });
    expect(fired.map((f) => f.message)).toEqual([`${word} vulnerabilities detected: ['CVE-2019-9999']`]);
  });
});
