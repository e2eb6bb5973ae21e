/** VEX writer inputs shared by the OpenVEX and CycloneDX tests: every status, every justification, the awkward rows. */
import type { VexDocumentInput, VexJustification, VexProduct, VexStatement, VexStatus } from '../../../../src/vulns/vex/types.js';

export const DIGEST = 'sha256:4f5e3ba2a5ad3b6c1b7e8ac1d1b1b4a3c6d0e2f9a8b7c6d5e4f3a2b1c0d9e8f7';
export const DIGEST_HEX = DIGEST.slice('sha256:'.length);
export const T0 = '2024-03-02T08:30:00Z';
export const T1 = '2024-02-01T10:00:00Z';
export const T2 = '2024-02-15T12:34:56.789+01:00';

export const LIBC6: VexProduct = { purl: 'pkg:deb/debian/libc6@2.36-9%2Bdeb12u4?arch=amd64&distro=debian-12', name: 'libc6', version: '2.36-9+deb12u4', type: 'dpkg' };
export const LIBC_BIN: VexProduct = { purl: 'pkg:deb/debian/libc-bin@2.36-9%2Bdeb12u4?arch=amd64&distro=debian-12', name: 'libc-bin', version: '2.36-9+deb12u4', type: 'dpkg' };
export const OPENSSL: VexProduct = { purl: 'pkg:deb/debian/openssl@3.0.11-1~deb12u2?arch=amd64&distro=debian-12', name: 'openssl', version: '3.0.11-1~deb12u2', type: 'dpkg' };
export const LODASH: VexProduct = { purl: 'pkg:npm/lodash@4.17.20', name: 'lodash', version: '4.17.20', type: 'npm' };
export const REQUESTS: VexProduct = { purl: 'pkg:pypi/requests@2.25.0', name: 'requests', version: '2.25.0', type: 'python' };
/** No purl: the writers must name it themselves. */
export const NO_PURL: VexProduct = { purl: '', name: 'custom-tool', version: '1.2.3', type: 'binary' };

/** One statement with defaults; `over` replaces fields. */
export function statement(over: Partial<VexStatement> & { product: VexProduct; status: VexStatus }): VexStatement {
  return { vulnerabilityId: 'CVE-2023-4911', aliases: [], timestamp: T1, ...over };
}

const LOONEY_TUNABLES = {
  vulnerabilityId: 'CVE-2023-4911',
  aliases: ['DSA-5514-1', 'CVE-2023-4911'],
  description: 'Buffer overflow in the dynamic loader (GLIBC_TUNABLES).',
  url: 'https://nvd.nist.gov/vuln/detail/CVE-2023-4911',
};

export const STATEMENTS: VexStatement[] = [
  // Two packages, one identical assessment: one OpenVEX statement, one CycloneDX vulnerability.
  statement({ ...LOONEY_TUNABLES, product: LIBC6, status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path', impactStatement: 'setuid binaries are removed from the image.' }),
  statement({ ...LOONEY_TUNABLES, product: LIBC_BIN, status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path', impactStatement: 'setuid binaries are removed from the image.' }),
  // Same vulnerability, another package, another assessment: kept apart.
  statement({ ...LOONEY_TUNABLES, product: NO_PURL, status: 'affected', actionStatement: 'Rebuild custom-tool against glibc 2.36-9+deb12u3 or later.' }),
  statement({ vulnerabilityId: 'GHSA-35jh-r3h4-6jhm', aliases: ['CVE-2021-23337'], description: 'Command injection in lodash', product: LODASH, status: 'affected', timestamp: T2 }),
  statement({ vulnerabilityId: 'CVE-2023-5678', aliases: [], product: OPENSSL, status: 'fixed', statusNotes: 'Fixed by the 3.0.13 update.', timestamp: T2 }),
  statement({ vulnerabilityId: 'PYSEC-2023-74', aliases: ['CVE-2023-32681', 'GHSA-j8r2-6x86-q33q'], product: REQUESTS, status: 'under_investigation' }),
  statement({ vulnerabilityId: 'CVE-2023-0464', product: OPENSSL, status: 'not_affected', justification: 'fix_not_planned', statusNotes: 'Policy checks are disabled.' }),
];

export const INPUT: VexDocumentInput = {
  imageDigest: DIGEST,
  imageName: 'docker.io/library/debian',
  author: 'acme-security',
  timestamp: T0,
  documentId: 'urn:uuid:0f8e2f4c-9d1a-4b7e-8c3a-2d5e6f7a8b9c',
  toolName: 'vigil',
  toolVersion: '0.1.0',
  statements: STATEMENTS,
};

/** The same statements in another order, as a different query plan might return them. */
export const SHUFFLED: VexDocumentInput = { ...INPUT, statements: [...STATEMENTS].reverse() };

export const ALL_STATUSES: VexStatus[] = ['not_affected', 'affected', 'fixed', 'under_investigation'];
export const ALL_JUSTIFICATIONS: VexJustification[] = [
  'component_not_present',
  'vulnerable_code_not_present',
  'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary',
  'inline_mitigations_already_exist',
  'fix_not_planned',
];

/** A document of the given statements, everything else as INPUT. */
export function inputOf(statements: VexStatement[], over: Partial<VexDocumentInput> = {}): VexDocumentInput {
  return { ...INPUT, statements, ...over };
}

/** Names and texts a careless writer would mangle: quotes, backslashes, controls, purl delimiters, non-ASCII. */
export const ODD_NAME = 'Weird "Name" \\ ü/x?y#z@w <b>&amp;</b>\n\ttab 🚀';
export const ODD_VERSION = '1.0+a b:c';
export const ODD: VexDocumentInput = {
  imageDigest: 'sha256:' + 'e'.repeat(64),
  imageName: 'localhost:5000/My Team/App "x"',
  author: 'Zoë "the auditor" <zoe@example.com>',
  timestamp: T0,
  documentId: 'exports/42 for "Zoë"',
  toolName: 'vigil',
  toolVersion: '0.1.0-dev+abc',
  statements: [
    statement({
      vulnerabilityId: 'VIGIL-"odd"\\1',
      aliases: ['ALIAS <1>', '  ', 'ALIAS <1>'],
      description: 'line 1\nline 2 "quoted" \u0000 \u2028 end',
      url: 'not a url',
      product: { purl: '', name: ODD_NAME, version: ODD_VERSION, type: 'java' },
      status: 'affected',
      actionStatement: 'Run `rm -rf "/opt/x"` \\ then {restart}',
    }),
    statement({
      vulnerabilityId: 'VIGIL-"odd"\\1',
      product: { purl: 'pkg:generic/has%20blank@1 0 invalid', name: 'fallback name', version: '', type: '' },
      status: 'not_affected',
      justification: 'inline_mitigations_already_exist',
      impactStatement: 'ü ✓ \u0007 bell',
    }),
  ],
};
