/**
 * Policy gates end to end: for every trigger of the gates below, a policy holding only that rule is evaluated
 * (GET /v2/images/{digest}/check) against an image it must fire on and an image it must stay quiet on. The images
 * are built here, uploaded (archives; one from a loopback registry with an actual Dockerfile) and analyzed once,
 * with the fixture OSV/KEV/EPSS feed synced first.
 *
 * To add a case, append a row to CASES; to add an image, add an entry to IMAGES (and its key to ImageKey).
 * The server retrieves /etc/passwd and /etc/app.conf and runs a content search for debug logging besides the
 * default secret search, so the content-reading gates (passwd_file, retrieved_files, secret_scans,
 * files/content_regex_match) are covered too.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForAnalysis } from '../support/analysis.js';
import { DEBIAN_OS_RELEASE, DPKG_STATUS, STATUS_D_LIBSSL3, mavenJar, requestsMetadata } from '../support/ecosystem-fixtures.js';
import { json, raw } from '../support/http.js';
import { buildImage, dockerArchiveTar, sha256, type BuiltImage, type FileSpec } from '../support/image-builder.js';
import { pushImage, startRegistry, type TestRegistry } from '../support/registry.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { EPSS_CSV, KEV_CATALOG, initialRecords, writeRecords } from '../vulns/fixture-feed.js';
import { missingTools } from '../support/tools.js';

// ---------------------------------------------------------------------------------------------------------------
// Images

type ImageKey = 'rich' | 'richBase' | 'plain' | 'actual' | 'driftV1' | 'driftV2';

interface ImageDef {
  /** Repository tag. For an image with an actual Dockerfile: `repository:tag` in the test registry. */
  tag: string;
  layers: FileSpec[][];
  /**
   * Dockerfile lines recorded in the config history (classic-builder form), from which the analysis guesses the
   * Dockerfile. ADD, COPY and RUN lines each made one layer, in order; the other lines are empty-layer steps.
   */
  history: string[];
  runtime?: Record<string, unknown>;
  /**
   * The image's actual Dockerfile. The archive upload route takes no Dockerfile (specs/openapi.yaml
   * /images/archives), so such an image is pushed to the loopback test registry and added by tag with
   * source.tag.dockerfile instead.
   */
  dockerfile?: string;
}

const APP_CONF = { rich: 'listen = 0.0.0.0:22\nlog = debug\n', plain: 'listen = 127.0.0.1:8080\n' };
const FTP_ENTRY = 'ftp:x:14:50:FTP User:/var/ftp:/sbin/nologin';
const PASSWD = {
  rich: `root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n${FTP_ENTRY}\n`,
  plain: 'app:x:1000:1000:app:/home/app:/sbin/nologin\n',
};
const APP_CONF_SHA256 = createHash('sha256').update(APP_CONF.rich).digest('hex');

function dpkgStanza(name: string, version: string, source?: string): string {
  return `Package: ${name}\nStatus: install ok installed\nPriority: optional\nSection: libs\nMaintainer: Debian <debian@example.org>\nArchitecture: amd64\n${
    source ? `Source: ${source}\n` : ''
  }Version: ${version}\nDescription: ${name} test package\n`;
}

const dpkgStatus = (...stanzas: string[]) => stanzas.join('\n');

function apkEntry(name: string, version: string, license: string): string {
  return `C:Q1${name}=\nP:${name}\nV:${version}\nA:x86_64\nS:1000\nI:2000\nT:${name}\nU:https://example.org/${name}\nL:${license}\no:${name}\n`;
}

const ALPINE_319_OS_RELEASE = 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n';
const DIST_PACKAGES = 'usr/lib/python3/dist-packages';

/** Two builds of one tag: libblkid1 upgraded, zlib1g removed, curl added; libc6 and libssl3 unchanged. */
const DRIFT_TAG = 'registry.example.com/gates/drift:latest';
const LIBC6 = dpkgStanza('libc6', '2.36-9+deb12u4', 'glibc');
const LIBSSL3_FIXED = dpkgStanza('libssl3', '3.0.13-1~deb12u1', 'openssl');

/** rich's bottom layer, which is also the whole of richBase: richBase is rich's base image. */
const RICH_BASE_LAYER: FileSpec[] = [
  { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
  { path: 'var/lib/dpkg/status', content: DPKG_STATUS },
  { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
  { path: 'usr/bin/su', content: 'ELF su', mode: 0o4755 },
  { path: 'usr/bin/wall', content: 'ELF wall', mode: 0o2755, gid: 5 },
  { path: 'etc/app.conf', content: APP_CONF.rich, mode: 0o666 },
  { path: 'etc/passwd', content: PASSWD.rich },
];
const RICH_BASE_HISTORY = ['ADD file:5d6b639e8b6bcc011fb0ed4b8c0b2f0b in /', 'CMD ["bash"]'];

const IMAGES: Record<ImageKey, ImageDef> = {
  /** The Debian base rich was built FROM (rich's bottom layer alone); the ancestry gate finds it by its layers. */
  richBase: {
    tag: 'registry.example.com/gates/debian-base:12',
    layers: [RICH_BASE_LAYER],
    history: RICH_BASE_HISTORY,
  },
  /**
   * Debian 12 with everything the triggers look for: a critical KEV vulnerability with a fix (libssl3), an unfixed
   * one (libc6), non-OS vulnerable packages (requests, lodash, log4j-core), a GPL-licensed npm package, setuid and
   * setgid binaries, a .pem key, a world-writable config file; its history runs as root and exposes 22 and 443
   * with no HEALTHCHECK. Uploaded as an archive, so its Dockerfile is guessed.
   */
  rich: {
    tag: 'registry.example.com/gates/rich:1',
    layers: [
      RICH_BASE_LAYER,
      [
        { path: `${DIST_PACKAGES}/requests-2.28.1.dist-info/METADATA`, content: requestsMetadata('2.28.1') },
        { path: 'app/node_modules/lodash/package.json', content: JSON.stringify({ name: 'lodash', version: '4.17.20', license: 'MIT' }) },
        { path: 'app/node_modules/gpl-widget/package.json', content: JSON.stringify({ name: 'gpl-widget', version: '1.0.0', license: 'GPL-3.0-only' }) },
        {
          path: 'opt/app/log4j-core-2.14.1.jar',
          content: mavenJar({ groupId: 'org.apache.logging.log4j', artifactId: 'log4j-core', version: '2.14.1', manifest: { 'Implementation-Version': '2.14.1' } }),
        },
        { path: 'etc/ssl/private/server.pem', content: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n', mode: 0o600 },
      ],
    ],
    history: [...RICH_BASE_HISTORY, 'COPY dir:3f1c0e2a in /', 'USER root', 'EXPOSE 22 443', 'CMD ["/app/start"]'],
    runtime: { User: 'root', ExposedPorts: { '22/tcp': {}, '443/tcp': {} }, Cmd: ['/app/start'] },
  },
  /**
   * Alpine 3.19 (which the fixture feed has no data for) with one MIT-licensed package and a different app.conf;
   * runs as `app`, exposes 8080, has a HEALTHCHECK. Uploaded as an archive.
   */
  plain: {
    tag: 'registry.example.com/gates/plain:1',
    layers: [
      [
        { path: 'etc/os-release', content: ALPINE_319_OS_RELEASE },
        { path: 'lib/apk/db/installed', content: apkEntry('musl', '1.2.4_git20230717-r4', 'MIT') },
        { path: 'etc/app.conf', content: APP_CONF.plain, mode: 0o644 },
        { path: 'etc/passwd', content: PASSWD.plain },
        { path: 'usr/bin/app', content: 'ELF app', mode: 0o755 },
      ],
    ],
    history: ['ADD file:9a0e7c1d in /', 'USER app', 'EXPOSE 8080', 'HEALTHCHECK CMD ["/usr/bin/app","--health"]', 'CMD ["/usr/bin/app"]'],
    runtime: {
      User: 'app',
      ExposedPorts: { '8080/tcp': {} },
      Healthcheck: { Test: ['CMD', '/usr/bin/app', '--health'] },
      Cmd: ['/usr/bin/app'],
    },
  },
  /** Distroless-style Debian 12 (libssl3 only: a vulnerability with a fix), added with its actual Dockerfile. */
  actual: {
    tag: 'gates/actual:1',
    layers: [
      [
        { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
        { path: 'var/lib/dpkg/status.d/libssl3', content: STATUS_D_LIBSSL3 },
        { path: 'app/server', content: 'ELF server', mode: 0o755 },
      ],
    ],
    history: ['COPY server /app/server', 'USER nobody', 'EXPOSE 443', 'HEALTHCHECK CMD ["/app/server","--health"]', 'ENTRYPOINT ["/app/server"]'],
    runtime: { User: 'nobody', ExposedPorts: { '443/tcp': {} }, Entrypoint: ['/app/server'] },
    dockerfile:
      'FROM gcr.io/distroless/base-debian12\nCOPY server /app/server\nUSER nobody\nEXPOSE 443\nHEALTHCHECK CMD ["/app/server","--health"]\nENTRYPOINT ["/app/server"]\n',
  },
  /** First build of DRIFT_TAG: only low/medium/won't-fix findings, libssl3 at the fixed version. */
  driftV1: {
    tag: DRIFT_TAG,
    layers: [
      [
        { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
        {
          path: 'var/lib/dpkg/status',
          content: dpkgStatus(LIBC6, dpkgStanza('libblkid1', '2.38.1-5+b1', 'util-linux (2.38.1-5)'), dpkgStanza('zlib1g', '1:1.2.13.dfsg-1', 'zlib'), LIBSSL3_FIXED),
        },
      ],
    ],
    history: ['ADD file:drift1 in /', 'CMD ["bash"]'],
  },
  /** Second build of DRIFT_TAG: its only finding is libc6's (low, no fix). */
  driftV2: {
    tag: DRIFT_TAG,
    layers: [
      [
        { path: 'etc/os-release', content: DEBIAN_OS_RELEASE },
        {
          path: 'var/lib/dpkg/status',
          content: dpkgStatus(LIBC6, dpkgStanza('libblkid1', '2.38.1-6', 'util-linux'), LIBSSL3_FIXED, dpkgStanza('curl', '7.88.1-10+deb12u5', 'curl')),
        },
      ],
    ],
    history: ['ADD file:drift2 in /', 'CMD ["bash"]'],
  },
};

/** Uploaded in this order, each upload finished before the next starts (the drift builds must be in tag order). */
const UPLOAD_ORDER: ImageKey[] = ['richBase', 'rich', 'plain', 'actual', 'driftV1', 'driftV2'];

/** The image with its config history replaced (digests of config and manifest recomputed). */
function withHistory(image: BuiltImage, lines: string[]): BuiltImage {
  const layerStep = (line: string) => /^(ADD|COPY|RUN)\s/.test(line);
  expect(lines.filter(layerStep), 'one ADD/COPY/RUN history step per layer').toHaveLength(image.layers.length);
  const created = image.config.created as string;
  const history = lines.map((line) => {
    const createdBy = line.startsWith('RUN ') ? `/bin/sh -c ${line.slice(4)}` : `/bin/sh -c #(nop)  ${line}`;
    return { created, created_by: createdBy, ...(layerStep(line) ? {} : { empty_layer: true }) };
  });
  const config = { ...image.config, history };
  const configBytes = Buffer.from(JSON.stringify(config));
  const manifest = { ...image.manifest, config: { ...(image.manifest.config as object), digest: sha256(configBytes), size: configBytes.length } };
  const manifestBytes = Buffer.from(JSON.stringify(manifest, null, 2));
  return { ...image, config, configBytes, configDigest: sha256(configBytes), manifest, manifestBytes, manifestDigest: sha256(manifestBytes) };
}

// ---------------------------------------------------------------------------------------------------------------
// Cases

interface GateCase {
  gate: string;
  trigger: string;
  params?: Record<string, string>;
  /** The image the rule must fire on. */
  fires: ImageKey;
  /** The image it must not fire on (left out only where another case shows the quiet side). */
  quiet?: ImageKey;
  /** A finding on `fires` has this message (with `triggerId`: the finding with that id). */
  message?: RegExp;
  /** A finding on `fires` has this trigger id; without it every finding's id is the md5 default. */
  triggerId?: string;
  /** Exactly these trigger ids fire on `fires` (sorted). */
  triggerIds?: string[];
  /** Exactly this many findings on `fires`. */
  count?: number;
  /** The trigger is deprecated: each evaluation reports one DeprecationWarning problem. */
  deprecated?: boolean;
}

const CASES: GateCase[] = [
  // always
  { gate: 'always', trigger: 'always', fires: 'rich', triggerId: 'always', message: /^Unconditional trigger match$/, count: 1 },
  { gate: 'always', trigger: 'always', fires: 'plain', triggerId: 'always', count: 1 },

  // dockerfile
  {
    gate: 'dockerfile', trigger: 'instruction', params: { instruction: 'USER', check: '=', value: 'root' }, fires: 'rich', quiet: 'plain',
    message: /^Dockerfile instruction USER check '=' against 'root' matched line 'USER root'$/, count: 1,
  },
  {
    gate: 'dockerfile', trigger: 'instruction', params: { instruction: 'HEALTHCHECK', check: 'not_exists' }, fires: 'rich', quiet: 'plain',
    message: /^Dockerfile instruction HEALTHCHECK not found \(check 'not_exists'\)$/, count: 1,
  },
  { gate: 'dockerfile', trigger: 'instruction', params: { instruction: 'EXPOSE', check: 'like', value: '.*\\b22\\b' }, fires: 'rich', quiet: 'plain', message: /matched line 'EXPOSE 22 443'$/ },
  // The guessed Dockerfile of `rich` has USER too, but only an actual one counts here.
  { gate: 'dockerfile', trigger: 'instruction', params: { instruction: 'USER', check: 'exists', actual_dockerfile_only: 'true' }, fires: 'actual', quiet: 'rich', message: /matched line 'USER nobody'$/ },
  { gate: 'dockerfile', trigger: 'effective_user', params: { users: 'root', type: 'blacklist' }, fires: 'rich', quiet: 'plain', message: /^Effective user root is in the denied list$/ },
  { gate: 'dockerfile', trigger: 'effective_user', params: { users: 'app,nobody', type: 'whitelist' }, fires: 'rich', quiet: 'plain', message: /^Effective user root is not in the allowed list$/ },
  {
    gate: 'dockerfile', trigger: 'exposed_ports', params: { ports: '22', type: 'blacklist' }, fires: 'rich', quiet: 'plain',
    message: /^Dockerfile exposes port 22\/tcp, which is in the denied list$/, count: 1,
  },
  {
    gate: 'dockerfile', trigger: 'exposed_ports', params: { ports: '8080', type: 'whitelist' }, fires: 'rich', quiet: 'plain',
    message: /^Dockerfile exposes port 443\/tcp, which is not in the allowed list$/, count: 2,
  },
  // `rich` exposes 443 too, in its guessed Dockerfile only.
  { gate: 'dockerfile', trigger: 'exposed_ports', params: { ports: '443', type: 'blacklist', actual_dockerfile_only: 'true' }, fires: 'actual', quiet: 'rich', count: 1 },
  { gate: 'dockerfile', trigger: 'no_dockerfile_provided', fires: 'rich', quiet: 'actual', message: /^Image was not analysed with an actual Dockerfile$/, count: 1 },

  // files
  { gate: 'files', trigger: 'name_match', params: { regex: '.*\\.pem' }, fires: 'rich', quiet: 'plain', message: /^File \/etc\/ssl\/private\/server\.pem matches the name regex \.\*\\\.pem$/, count: 1 },
  {
    gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/app.conf', checksum_algorithm: 'sha256', checksum: APP_CONF_SHA256, checksum_match: 'equals' },
    fires: 'rich', quiet: 'plain', message: new RegExp(`^File /etc/app\\.conf matches: sha256 ${APP_CONF_SHA256} equals ${APP_CONF_SHA256}$`),
  },
  {
    gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/app.conf', checksum: APP_CONF_SHA256, checksum_match: 'not_equals' },
    fires: 'plain', quiet: 'rich', message: /^File \/etc\/app\.conf matches: sha256 [0-9a-f]{64} not_equals/,
  },
  { gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/app.conf', mode: '00666', mode_op: 'equals' }, fires: 'rich', quiet: 'plain', message: /^File \/etc\/app\.conf matches: mode 0666 equals 0666$/ },
  { gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/app.conf', mode: '00644', mode_op: 'not_equals' }, fires: 'rich', quiet: 'plain', message: /mode 0666 not_equals 0644$/ },
  // A missing file fires unless skip_missing is true; a present file whose mode differs does not.
  {
    gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/ssl/private/server.pem', mode: '00644', mode_op: 'equals', skip_missing: 'false' },
    fires: 'plain', quiet: 'rich', message: /^File \/etc\/ssl\/private\/server\.pem is not present in the image/,
  },
  {
    gate: 'files', trigger: 'attribute_match', params: { filename: '/etc/ssl/private/server.pem', mode: '00600', mode_op: 'equals', skip_missing: 'true' },
    fires: 'rich', quiet: 'plain', message: /mode 0600 equals 0600$/,
  },
  { gate: 'files', trigger: 'suid_or_guid_set', fires: 'rich', quiet: 'plain', message: /^File \/usr\/bin\/su has the setuid bit set \(mode 4755\)$/, count: 2 },
  { gate: 'files', trigger: 'suid_or_guid_set', fires: 'rich', quiet: 'plain', message: /^File \/usr\/bin\/wall has the setgid bit set \(mode 2755\)$/, count: 2 },

  // licenses
  {
    gate: 'licenses', trigger: 'blacklist_exact_match', params: { licenses: 'GPL-3.0-only,BSD-4-Clause' }, fires: 'rich', quiet: 'plain', deprecated: true,
    message: /^Package gpl-widget-1\.0\.0 \(npm\) is distributed under a license on the denylist: GPL-3\.0-only$/, count: 1,
  },
  { gate: 'licenses', trigger: 'blacklist_partial_match', params: { licenses: 'GPL' }, fires: 'rich', quiet: 'plain', deprecated: true, message: /^Package gpl-widget-1\.0\.0 \(npm\) is distributed under a license matching the denylist: GPL-3\.0-only$/, count: 1 },
  { gate: 'licenses', trigger: 'denylist_exact_match', params: { licenses: 'GPL-3.0-only' }, fires: 'rich', quiet: 'plain', count: 1 },
  { gate: 'licenses', trigger: 'denylist_partial_match', params: { licenses: 'GPL-3' }, fires: 'rich', quiet: 'plain', count: 1 },

  // metadata
  { gate: 'metadata', trigger: 'attribute', params: { attribute: 'distro', check: '=', value: 'debian' }, fires: 'rich', quiet: 'plain', message: /^Image attribute distro \(debian\) matches check '=' 'debian'$/ },
  // Versions compare to the precision the policy gives: 3.19.1 = 3.19.
  { gate: 'metadata', trigger: 'attribute', params: { attribute: 'distro_version', check: '=', value: '3.19' }, fires: 'plain', quiet: 'rich', message: /^Image attribute distro_version \(3\.19\.1\) matches check '=' '3\.19'$/ },
  { gate: 'metadata', trigger: 'attribute', params: { attribute: 'layer_count', check: '>', value: '1' }, fires: 'rich', quiet: 'plain', message: /^Image attribute layer_count \(2\) matches check '>' '1'$/ },
  // Sizes as stored (uncompressed layer tars of the archives): rich 16 KiB, plain 5 KiB.
  { gate: 'metadata', trigger: 'attribute', params: { attribute: 'size', check: '>', value: '10000' }, fires: 'rich', quiet: 'plain', message: /^Image attribute size \(\d+\) matches check '>' '10000'$/ },

  // distro
  { gate: 'distro', trigger: 'deny', params: { distro: 'debian' }, fires: 'rich', quiet: 'plain', message: /^Image distro debian 12 is denied \(debian\)$/ },
  { gate: 'distro', trigger: 'deny', params: { distro: 'alpine', version: '3.18', check: '>' }, fires: 'plain', quiet: 'rich', message: /^Image distro alpine 3\.19(\.1)? is denied \(alpine > 3\.18\)$/ },
  { gate: 'distro', trigger: 'deny', params: { distro: 'Alpine', version: '3.19', check: '=' }, fires: 'plain', quiet: 'rich' },

  // packages
  { gate: 'packages', trigger: 'required_package', params: { name: 'libssl3' }, fires: 'plain', quiet: 'rich', message: /^Required input package \(libssl3\) is not present in container image$/ },
  {
    gate: 'packages', trigger: 'required_package', params: { name: 'libssl3', version: '3.0.13-1~deb12u1', version_match_type: 'exact' }, fires: 'rich', quiet: 'driftV1',
    message: /^Required input package \(libssl3\) is present \(3\.0\.11-1~deb12u2\), but not at the version specified in policy \(3\.0\.13-1~deb12u1\)$/,
  },
  {
    gate: 'packages', trigger: 'required_package', params: { name: 'libssl3', version: '3.0.12', version_match_type: 'minimum' }, fires: 'rich', quiet: 'driftV1',
    message: /^Required min-version input package \(libssl3\) is present \(3\.0\.11-1~deb12u2\), but is lower version than what is specified in policy \(3\.0\.12\)$/,
  },
  { gate: 'packages', trigger: 'blacklist', params: { name: 'libssl3' }, fires: 'rich', quiet: 'plain', deprecated: true, message: /^Package is blacklisted: libssl3$/, count: 1 },
  { gate: 'packages', trigger: 'denylist', params: { name: 'libssl3', version: '3.0.11-1~deb12u2' }, fires: 'rich', quiet: 'driftV1', message: /^Package is denylisted: libssl3-3\.0\.11-1~deb12u2$/, count: 1 },
  {
    gate: 'packages', trigger: 'metadata', params: { name: 'libssl3', version: '3.0.13-1~deb12u1', version_comparison: '<' }, fires: 'rich', quiet: 'driftV1',
    message: /^Package libssl3-3\.0\.11-1~deb12u2 \(dpkg\) matches name = libssl3, version < 3\.0\.13-1~deb12u1$/, count: 1,
  },
  { gate: 'packages', trigger: 'metadata', params: { name: 'zlib', name_comparison: 'like' }, fires: 'rich', quiet: 'plain', message: /^Package zlib1g-1:1\.2\.13\.dfsg-1 \(dpkg\) matches name like zlib$/, count: 1 },

  // vulnerabilities
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'all', severity_comparison: '>=', severity: 'high' }, fires: 'rich', quiet: 'driftV1',
    triggerId: 'DSA-9001-1+libssl3', message: /^CRITICAL Vulnerability found in os package type \(dpkg\) - libssl3 \(fixed in: 3\.0\.13-1~deb12u1\)\(DSA-9001-1 - \S+\)$/,
    triggerIds: ['DSA-9001-1+libssl3', 'GHSA-lodash-0008+lodash', 'GHSA-log4j-0010+log4j-core-2.14.1.jar'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'non-os' }, fires: 'rich', quiet: 'driftV1',
    triggerId: 'GHSA-lodash-0008+lodash', message: /^HIGH Vulnerability found in non-os package type \(npm\) - \S*lodash\S* \(fixed in: 4\.17\.21\)/,
    triggerIds: ['GHSA-lodash-0008+lodash', 'GHSA-log4j-0010+log4j-core-2.14.1.jar', 'PYSEC-2099-6+requests-2.28.1'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'os', fix_available: 'true' }, fires: 'rich', quiet: 'driftV2',
    triggerIds: ['DSA-9001-1+libssl3', 'DSA-9004-1+libblkid1'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'os', fix_available: 'false' }, fires: 'driftV2', quiet: 'actual',
    triggerId: 'DEBIAN-CVE-2099-0002+libc6', message: /^LOW Vulnerability found in os package type \(dpkg\) - libc6 \(DEBIAN-CVE-2099-0002 - \S+\)$/, triggerIds: ['DEBIAN-CVE-2099-0002+libc6'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'all', known_exploited_vulnerability: 'true' }, fires: 'rich', quiet: 'driftV1',
    triggerIds: ['DSA-9001-1+libssl3', 'GHSA-log4j-0010+log4j-core-2.14.1.jar'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'all', epss_score_comparison: '>=', epss_score: '0.5' }, fires: 'rich', quiet: 'driftV1',
    triggerIds: ['DSA-9001-1+libssl3'],
  },
  {
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'all', epss_score_comparison: '>', epss_percentile: '0.4' }, fires: 'rich', quiet: 'driftV1',
    triggerIds: ['DSA-9001-1+libssl3', 'PYSEC-2099-6+requests-2.28.1'],
  },
  {
    // The fixture records carry CVSS as their publisher's (vendor) scores; NVD scores come only with CVE-id records.
    gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'all', vendor_cvss_v3_base_score_comparison: '>=', vendor_cvss_v3_base_score: '9.0' }, fires: 'rich', quiet: 'driftV1',
    triggerId: 'DSA-9001-1+libssl3', message: /\(vendor_cvss_v3_base_score=9\.8\)\(DSA-9001-1 - /, triggerIds: ['DSA-9001-1+libssl3', 'GHSA-log4j-0010+log4j-core-2.14.1.jar'],
  },
  { gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'non-os', package_path_exclude: '/opt/app/.*' }, fires: 'rich', quiet: 'driftV1', triggerIds: ['GHSA-lodash-0008+lodash', 'PYSEC-2099-6+requests-2.28.1'] },
  // Won't-fix findings count only with vendor_only=false (zlib1g's is one, driftV2 no longer has zlib1g).
  { gate: 'vulnerabilities', trigger: 'package', params: { package_type: 'os', vendor_only: 'false', severity_comparison: '=', severity: 'unknown' }, fires: 'driftV1', quiet: 'driftV2', triggerIds: ['DEBIAN-CVE-2099-0003+zlib1g'] },
  { gate: 'vulnerabilities', trigger: 'denylist', params: { vulnerability_ids: 'CVE-2099-0001,CVE-2000-9999' }, fires: 'rich', quiet: 'driftV1', message: /^Denylisted vulnerabilities detected: \['CVE-2099-0001'\]$/, count: 1 },
  { gate: 'vulnerabilities', trigger: 'blacklist', params: { vulnerability_ids: 'DSA-9001-1' }, fires: 'rich', quiet: 'driftV1', deprecated: true, message: /^Blacklisted vulnerabilities detected: \['DSA-9001-1'\]$/, count: 1 },
  // alpine:3.19 has no feed group, so its sync time is unknown; debian:12 was synced in beforeAll.
  { gate: 'vulnerabilities', trigger: 'stale_feed_data', params: { max_days_since_sync: '2' }, fires: 'plain', quiet: 'rich', message: /alpine:3\.19/, count: 1 },
  {
    gate: 'vulnerabilities', trigger: 'vulnerability_data_unavailable', fires: 'plain', quiet: 'rich',
    message: /^Distro-specific feed data not found for distro namespace: alpine:3\.19\. Cannot perform CVE scan OS\/distro packages$/, count: 1,
  },

  // passwd_file reads the retrieved /etc/passwd: rich has root (bash), daemon and ftp; plain only app; actual none.
  { gate: 'passwd_file', trigger: 'content_not_available', fires: 'actual', quiet: 'rich', message: /^\/etc\/passwd was not found in the image/, count: 1 },
  { gate: 'passwd_file', trigger: 'blacklist_usernames', params: { user_names: 'ftp,games' }, fires: 'rich', quiet: 'plain', message: new RegExp(`^User name ftp is listed in /etc/passwd: ${FTP_ENTRY}$`), count: 1 },
  { gate: 'passwd_file', trigger: 'blacklist_userids', params: { user_ids: '0,1' }, fires: 'rich', quiet: 'plain', count: 2 },
  { gate: 'passwd_file', trigger: 'blacklist_groupids', params: { group_ids: '50' }, fires: 'rich', quiet: 'plain', message: /^Group id 50 /, count: 1 },
  { gate: 'passwd_file', trigger: 'blacklist_shells', params: { shells: '/bin/bash,/bin/zsh' }, fires: 'rich', quiet: 'plain', message: /^Login shell \/bin\/bash .*root:x:0:0/, count: 1 },
  { gate: 'passwd_file', trigger: 'blacklist_full_entry', params: { entry: FTP_ENTRY }, fires: 'rich', quiet: 'plain', count: 1 },

  // retrieved_files: /etc/app.conf is retrieved from rich and plain; actual has none.
  { gate: 'retrieved_files', trigger: 'content_not_available', params: { path: '/etc/app.conf' }, fires: 'actual', quiet: 'rich', message: /^\/etc\/app\.conf was not retrieved/, count: 1 },
  { gate: 'retrieved_files', trigger: 'content_regex', params: { path: '/etc/app.conf', check: 'match', regex: 'log *= *debug' }, fires: 'rich', quiet: 'plain', count: 1 },
  { gate: 'retrieved_files', trigger: 'content_regex', params: { path: '/etc/app.conf', check: 'no_match', regex: '.*127\\.0\\.0\\.1' }, fires: 'rich', quiet: 'plain', message: /^No line of \/etc\/app\.conf matches/, count: 1 },

  // secret_scans: rich has a private key (the default expressions); plain has no secret.
  { gate: 'secret_scans', trigger: 'content_regex_checks', fires: 'rich', quiet: 'plain', message: /^The secret search found a match for PRIV_KEY in \/etc\/ssl\/private\/server\.pem$/, count: 1 },
  { gate: 'secret_scans', trigger: 'content_regex_checks', params: { content_regex_name: 'PRIV_KEY', filename_regex: '/etc/ssl/.*' }, fires: 'rich', quiet: 'plain', count: 1 },
  { gate: 'secret_scans', trigger: 'content_regex_checks', params: { match_type: 'notfound' }, fires: 'plain', quiet: 'rich', message: /^The secret search found no match for any configured expression in any file$/, count: 1 },

  // files/content_regex_match: the configured DEBUG_LOGGING expression matches rich's app.conf only.
  { gate: 'files', trigger: 'content_regex_match', fires: 'rich', quiet: 'plain', message: /^File \/etc\/app\.conf has content matching the expression DEBUG_LOGGING/, count: 1 },
  { gate: 'files', trigger: 'content_regex_match', params: { regex_name: 'DEBUG_LOGGING' }, fires: 'rich', quiet: 'plain', count: 1 },

  // ancestry: richBase is rich's base image; plain has no analyzed ancestor. `{{digest:key}}` is that image's digest.
  { gate: 'ancestry', trigger: 'allowed_base_image_digest', params: { base_digest: '{{digest:richBase}}' }, fires: 'plain', quiet: 'rich', message: /^No base image was found/, count: 1 },
  // (the case above shows rich quiet when its base is approved)
  { gate: 'ancestry', trigger: 'allowed_base_image_digest', params: { base_digest: '{{digest:plain}}' }, fires: 'rich', message: /^Base image sha256:[0-9a-f]{64} is not one of the approved/, count: 1 },
  { gate: 'ancestry', trigger: 'denylist_ancestor_image_digest', params: { ancestor_digest: '{{digest:richBase}},{{digest:plain}}' }, fires: 'rich', quiet: 'plain', message: /^Ancestor image sha256:[0-9a-f]{64} is denylisted$/, count: 1 },

  // tag_drift: driftV2 replaced driftV1 under DRIFT_TAG; driftV1 has no previous image.
  { gate: 'tag_drift', trigger: 'packages_added', fires: 'driftV2', quiet: 'driftV1', message: /^Package added since the previous image: curl \(dpkg\) 7\.88\.1-10\+deb12u5$/, count: 1 },
  { gate: 'tag_drift', trigger: 'packages_removed', fires: 'driftV2', quiet: 'driftV1', message: /^Package removed since the previous image: zlib1g \(dpkg\) 1:1\.2\.13\.dfsg-1$/, count: 1 },
  {
    gate: 'tag_drift', trigger: 'packages_modified', params: { package_type: 'dpkg' }, fires: 'driftV2', quiet: 'driftV1',
    message: /^Package modified since the previous image: libblkid1 \(dpkg\) 2\.38\.1-5\+b1 -> 2\.38\.1-6$/, count: 1,
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Setup

let server: TestServer;
let registry: TestRegistry;
let work: string;
const analyzed = {} as Record<ImageKey, { digest: string; tag: string }>;

async function addImage(key: ImageKey): Promise<{ digest: string; tag: string }> {
  const def = IMAGES[key];
  const image = withHistory(await buildImage({ layers: def.layers, runtime: def.runtime }), def.history);
  if (def.dockerfile !== undefined) {
    const [repository, ref] = def.tag.split(':');
    await pushImage(registry.url, repository, ref, image);
    const tag = `${registry.host}/${def.tag}`;
    const res = await json(server.url, 'POST', '/v2/images', { source: { tag: { pull_string: tag, dockerfile: Buffer.from(def.dockerfile).toString('base64') } } });
    expect(res.status, res.text).toBe(200);
    return { digest: res.json.image_digest, tag };
  }
  const res = await raw(server.url, 'POST', '/v2/images/archives', {
    headers: { 'content-type': 'application/x-tar' },
    body: await dockerArchiveTar(image, { repoTags: [def.tag] }),
  });
  expect(res.status, res.text).toBe(200);
  return { digest: res.json.image_digest, tag: def.tag };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'vigil-gates-'));
  writeRecords(join(work, 'osv'), initialRecords());
  writeFileSync(join(work, 'kev.json'), JSON.stringify(KEV_CATALOG));
  writeFileSync(join(work, 'epss.csv'), EPSS_CSV);
  [server, registry] = await Promise.all([
    startTestServer({
      VIGIL_FEED_SOURCES: `osv=${join(work, 'osv')},kev=${join(work, 'kev.json')},epss=${join(work, 'epss.csv')}`,
      VIGIL_RETRIEVE_FILES: '/etc/passwd,/etc/app.conf',
      VIGIL_CONTENT_SEARCH_REGEXES: JSON.stringify({ DEBUG_LOGGING: 'log *= *debug' }),
    }),
    startRegistry(),
  ]);
  expect((await raw(server.url, 'POST', '/v2/system/feeds?wait=true')).json.status).toBe('done');
  for (const key of UPLOAD_ORDER) analyzed[key] = await addImage(key);
  const statuses = await Promise.all(UPLOAD_ORDER.map((key) => waitForAnalysis(server, 'admin', analyzed[key].digest)));
  expect(Object.fromEntries(UPLOAD_ORDER.map((key, i) => [key, statuses[i]]))).toEqual(Object.fromEntries(UPLOAD_ORDER.map((key) => [key, 'analyzed'])));
});
afterAll(async () => {
  await Promise.all([server?.close(), registry?.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------
// Evaluation

interface Finding {
  trigger_id: string;
  gate: string;
  trigger: string;
  message: string;
  action: string;
  rule_id: string;
}

interface Problem {
  severity: string;
  problem_type: string;
  details: string;
}

function policyFor(id: string, c: GateCase) {
  const digestOf = (_: string, key: string) => analyzed[key as ImageKey].digest;
  const params = Object.entries(c.params ?? {}).map(([name, value]) => ({ name, value: value.replace(/\{\{digest:(\w+)\}\}/g, digestOf) }));
  return {
    id,
    name: id,
    version: '2',
    rule_sets: [{ id: 'rs', name: 'rs', version: '2', rules: [{ id: 'rule', gate: c.gate, trigger: c.trigger, action: 'STOP', params }] }],
    mappings: [{ id: 'all', name: 'all', registry: '*', repository: '*', image: { type: 'tag', value: '*' }, rule_set_ids: ['rs'], allowlist_ids: [] }],
  };
}

async function evaluate(key: ImageKey, policyId: string) {
  const { digest, tag } = analyzed[key];
  const res = await raw(server.url, 'GET', `/v2/images/${digest}/check?tag=${encodeURIComponent(tag)}&policy_id=${policyId}`);
  expect(res.status, res.text).toBe(200);
  expect(res.json).toMatchObject({ policy_id: policyId, image_digest: digest, evaluated_tag: tag });
  const [evaluation] = res.json.evaluations;
  expect(evaluation.image_mapped_to_rule).toBe(true);
  return evaluation as { status: string; final_action: string; number_of_findings: number; evaluation_problems: Problem[]; details: { findings: Finding[] } };
}

function expectProblems(problems: Problem[], c: GateCase): void {
  expect(problems.filter((p) => p.severity === 'error' || p.problem_type === 'TriggerNotEvaluable')).toEqual([]);
  expect(problems.map((p) => p.problem_type)).toEqual(c.deprecated ? ['DeprecationWarning'] : []);
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const describeParams = (p: Record<string, string> | undefined) =>
  Object.entries(p ?? {})
    .map(([k, v]) => `${k}=${v.length > 20 ? `${v.slice(0, 12)}…` : v}`)
    .join(' ');

describe.skipIf(missingTools('docker-registry'))('policy gates: each trigger fires on one image and stays quiet on another', () => {
  CASES.forEach((c, index) => {
    const name = `${c.gate}/${c.trigger}${c.params ? ` (${describeParams(c.params)})` : ''}: fires on ${c.fires}${c.quiet ? `, quiet on ${c.quiet}` : ''}`;
    it(name, async () => {
      const policyId = `gates-${index}-${c.gate}-${c.trigger}`.replace(/_/g, '-');
      const created = await json(server.url, 'POST', '/v2/policies', policyFor(policyId, c));
      expect(created.status, created.text).toBe(200);

      const firing = await evaluate(c.fires, policyId);
      expectProblems(firing.evaluation_problems, c);
      const findings = firing.details.findings;
      expect(findings.length, `no finding on ${c.fires}`).toBeGreaterThan(0);
      expect(firing).toMatchObject({ status: 'fail', final_action: 'stop', number_of_findings: findings.length });
      for (const f of findings) {
        expect(f).toMatchObject({ gate: c.gate, trigger: c.trigger, action: 'stop', rule_id: 'rule' });
        if (!c.triggerId && !c.triggerIds) expect(f.trigger_id, 'the default trigger id: md5(gate + trigger + message)').toBe(md5(`${c.gate}${c.trigger}${f.message}`));
      }
      const shown = findings.map((f) => `${f.trigger_id}: ${f.message}`).join('\n');
      if (c.count !== undefined) expect(findings, shown).toHaveLength(c.count);
      if (c.triggerIds) expect(findings.map((f) => f.trigger_id).sort(), shown).toEqual(c.triggerIds);
      const subject = c.triggerId ? findings.filter((f) => f.trigger_id === c.triggerId) : findings;
      expect(subject.length, `no finding with trigger id ${c.triggerId}:\n${shown}`).toBeGreaterThan(0);
      if (c.message) expect(subject.some((f) => c.message!.test(f.message)), `no message matches ${c.message}:\n${shown}`).toBe(true);

      if (c.quiet) {
        const quiet = await evaluate(c.quiet, policyId);
        expectProblems(quiet.evaluation_problems, c);
        expect(quiet.details.findings, `fired on ${c.quiet}`).toEqual([]);
        expect(quiet).toMatchObject({ status: 'pass', final_action: 'go', number_of_findings: 0 });
      }
    });
  });
});
