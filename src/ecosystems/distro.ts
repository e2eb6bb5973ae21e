/**
 * Which distribution an image is built on, read from os-release (or the older release files when os-release is
 * missing). OS package catalogers need it for the purl namespace and `distro=` qualifier; matchers need it to
 * pick the right vulnerability feed.
 */
import type { DistroInfo } from './model.js';

const OS_RELEASE_FILES = ['/etc/os-release', '/usr/lib/os-release'];
const ALPINE_RELEASE = '/etc/alpine-release';
const DEBIAN_VERSION = '/etc/debian_version';
const REDHAT_RELEASE_FILES = ['/etc/redhat-release', '/etc/centos-release'];

/**
 * Paths detectDistro reads, in order of preference, so the layer walker can capture their content. On Debian and
 * many others /etc/os-release is a symlink to ../usr/lib/os-release; if the walker does not follow it,
 * /usr/lib/os-release is found next.
 */
export const DISTRO_FILES: string[] = [...OS_RELEASE_FILES, ALPINE_RELEASE, DEBIAN_VERSION, ...REDHAT_RELEASE_FILES];

/** Reads the shell-like KEY=value assignments of os-release(5) into a map; comments and junk lines are ignored. */
export function parseOsReleaseFields(content: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const rawLine of content.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z0-9_]+)=(.*)$/.exec(line);
    if (!match) continue;
    fields.set(match[1]!, unquoteOsReleaseValue(match[2]!));
  }
  return fields;
}

/** os-release values are shell words: "double" (with \" \\ \$ \` escapes), 'single', or bare. */
function unquoteOsReleaseValue(raw: string): string {
  const value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1);
  return value;
}

export function parseOsRelease(content: string): DistroInfo {
  const fields = parseOsReleaseFields(content);
  const like = (fields.get('ID_LIKE') ?? '').split(/\s+/).filter(Boolean).map((s) => s.toLowerCase());
  const prettyName = fields.get('PRETTY_NAME');
  return {
    // os-release(5): ID defaults to "linux" when absent.
    name: (fields.get('ID') || 'linux').toLowerCase(),
    version: fields.get('VERSION_ID') ?? '',
    like,
    ...(prettyName ? { prettyName } : {}),
  };
}

/** Distros that name themselves in /etc/redhat-release, with the ID and ID_LIKE their os-release would carry. */
const REDHAT_FAMILY: { pattern: RegExp; name: string; like: string[] }[] = [
  { pattern: /red hat enterprise linux/i, name: 'rhel', like: ['fedora'] },
  { pattern: /centos/i, name: 'centos', like: ['rhel', 'fedora'] },
  { pattern: /rocky/i, name: 'rocky', like: ['rhel', 'centos', 'fedora'] },
  { pattern: /almalinux/i, name: 'almalinux', like: ['rhel', 'centos', 'fedora'] },
  { pattern: /oracle linux/i, name: 'ol', like: ['fedora'] },
  { pattern: /amazon linux/i, name: 'amzn', like: ['centos', 'rhel', 'fedora'] },
  { pattern: /fedora/i, name: 'fedora', like: [] },
];

/** "CentOS Linux release 7.9.2009 (Core)" and the like. */
export function parseRedhatRelease(content: string): DistroInfo | undefined {
  const text = content.trim().split(/\r?\n/)[0]?.trim() ?? '';
  if (text === '') return undefined;
  const family = REDHAT_FAMILY.find((f) => f.pattern.test(text));
  const release = /release\s+([0-9][0-9.]*)/i.exec(text)?.[1]?.replace(/\.$/, '') ?? '';
  // CentOS's os-release VERSION_ID is the major version only ("7"), while its release file says 7.9.2009.
  const version = family?.name === 'centos' ? (release.split('.')[0] ?? '') : release;
  return { name: family?.name ?? 'rhel', version, like: family?.like ?? [], prettyName: text };
}

/** /etc/debian_version holds "12.5" on releases and "bookworm/sid" on testing; os-release's VERSION_ID is "12". */
function parseDebianVersion(content: string): DistroInfo | undefined {
  const text = content.trim();
  if (text === '') return undefined;
  const major = /^(\d+)(\.|$)/.exec(text)?.[1] ?? '';
  return { name: 'debian', version: major, like: [], prettyName: `Debian GNU/Linux ${text}` };
}

function parseAlpineRelease(content: string): DistroInfo | undefined {
  const version = content.trim();
  if (version === '') return undefined;
  return { name: 'alpine', version, like: [], prettyName: `Alpine Linux v${version}` };
}

/** os-release without ID or VERSION_ID tells us nothing the fallbacks couldn't say better. */
function isUsefulOsRelease(fields: Map<string, string>): boolean {
  return !!(fields.get('ID') || fields.get('VERSION_ID'));
}

/**
 * The image's distribution, given the content of (some of) DISTRO_FILES keyed by their absolute path, or
 * undefined when none of them says.
 */
export function detectDistro(files: Map<string, Buffer>): DistroInfo | undefined {
  for (const path of OS_RELEASE_FILES) {
    const content = files.get(path)?.toString('utf8');
    if (content !== undefined && isUsefulOsRelease(parseOsReleaseFields(content))) return parseOsRelease(content);
  }
  const alpine = files.get(ALPINE_RELEASE);
  if (alpine) {
    const info = parseAlpineRelease(alpine.toString('utf8'));
    if (info) return info;
  }
  const debian = files.get(DEBIAN_VERSION);
  if (debian) {
    const info = parseDebianVersion(debian.toString('utf8'));
    if (info) return info;
  }
  for (const path of REDHAT_RELEASE_FILES) {
    const content = files.get(path);
    if (!content) continue;
    const info = parseRedhatRelease(content.toString('utf8'));
    if (info) return info;
  }
  return undefined;
}

/** The purl `distro=` qualifier OS packages carry, e.g. `debian-12` or `alpine-3.18.4`. */
export function distroQualifier(distro: DistroInfo | undefined): string | undefined {
  if (!distro) return undefined;
  return distro.version ? `${distro.name}-${distro.version}` : distro.name;
}
