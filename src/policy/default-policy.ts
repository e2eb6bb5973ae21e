/**
 * The policy every account starts with, active: vulnerabilities above medium and known-exploited ones (CISA KEV,
 * whatever their severity) stop an image, medium ones warn, stale feed data warns, an exposed port 22 stops, and a
 * missing HEALTHCHECK warns. Applies to every image. Low-confidence findings (advisories not reviewed by their
 * publisher) only ever warn. docs/policy.md describes it rule by rule.
 */
import type { PolicyDocument } from './document.js';

export const DEFAULT_POLICY_ID = 'vigil-default';

export function defaultPolicy(): PolicyDocument {
  return {
    id: DEFAULT_POLICY_ID,
    name: 'Default policy',
    description:
      'Stops images with vulnerabilities above medium severity, known-exploited (CISA KEV) vulnerabilities of any severity, or SSH exposed; warns on medium ones, on unreviewed (low-confidence) ones above medium or known-exploited, stale feed data and no HEALTHCHECK.',
    version: '2',
    rule_sets: [
      {
        id: 'default-rule-set',
        name: 'Default rule set',
        version: '2',
        artifact_type: 'image',
        rules: [
          { id: 'vulns-above-medium', gate: 'vulnerabilities', trigger: 'package', action: 'STOP', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '>' }, { name: 'severity', value: 'medium' }, { name: 'confidence', value: 'high' }] },
          { id: 'vulns-above-medium-low-confidence', gate: 'vulnerabilities', trigger: 'package', action: 'WARN', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '>' }, { name: 'severity', value: 'medium' }, { name: 'confidence', value: 'low' }] },
          { id: 'known-exploited', gate: 'vulnerabilities', trigger: 'package', action: 'STOP', params: [{ name: 'package_type', value: 'all' }, { name: 'known_exploited_vulnerability', value: 'true' }, { name: 'confidence', value: 'high' }] },
          { id: 'known-exploited-low-confidence', gate: 'vulnerabilities', trigger: 'package', action: 'WARN', params: [{ name: 'package_type', value: 'all' }, { name: 'known_exploited_vulnerability', value: 'true' }, { name: 'confidence', value: 'low' }] },
          { id: 'vulns-medium', gate: 'vulnerabilities', trigger: 'package', action: 'WARN', params: [{ name: 'package_type', value: 'all' }, { name: 'severity_comparison', value: '=' }, { name: 'severity', value: 'medium' }] },
          { id: 'stale-feeds', gate: 'vulnerabilities', trigger: 'stale_feed_data', action: 'WARN', params: [{ name: 'max_days_since_sync', value: '2' }] },
          { id: 'ssh-exposed', gate: 'dockerfile', trigger: 'exposed_ports', action: 'STOP', params: [{ name: 'ports', value: '22' }, { name: 'type', value: 'blacklist' }] },
          { id: 'no-healthcheck', gate: 'dockerfile', trigger: 'instruction', action: 'WARN', params: [{ name: 'instruction', value: 'HEALTHCHECK' }, { name: 'check', value: 'not_exists' }] },
        ],
      },
    ],
    allowlists: [],
    mappings: [
      {
        id: 'all-images',
        name: 'All images',
        registry: '*',
        repository: '*',
        image: { type: 'tag', value: '*' },
        rule_set_ids: ['default-rule-set'],
        allowlist_ids: [],
      },
    ],
    allowlisted_images: [],
    denylisted_images: [],
  };
}
