/**
 * How Vigil's package types are named by the formats it writes and reads: syft artifact types, purl types, the
 * language syft reports, and the cataloger that finds them (syft's `foundBy`).
 */
import { OS_PACKAGE_TYPES, type PackageType } from '../model.js';

interface TypeNames {
  syft: string;
  purl: string;
  /** syft's `language`: empty for OS packages. */
  language: string;
  foundBy: string;
}

const NAMES: Record<PackageType, TypeNames> = {
  dpkg: { syft: 'deb', purl: 'deb', language: '', foundBy: 'dpkg' },
  apk: { syft: 'apk', purl: 'apk', language: '', foundBy: 'apk' },
  rpm: { syft: 'rpm', purl: 'rpm', language: '', foundBy: 'rpm' },
  npm: { syft: 'npm', purl: 'npm', language: 'javascript', foundBy: 'npm' },
  python: { syft: 'python', purl: 'pypi', language: 'python', foundBy: 'python' },
  gem: { syft: 'gem', purl: 'gem', language: 'ruby', foundBy: 'gem' },
  java: { syft: 'java-archive', purl: 'maven', language: 'java', foundBy: 'java' },
  go: { syft: 'go-module', purl: 'golang', language: 'go', foundBy: 'go-binary' },
  rust: { syft: 'rust-crate', purl: 'cargo', language: 'rust', foundBy: 'rust' },
  nuget: { syft: 'dotnet', purl: 'nuget', language: 'dotnet', foundBy: 'dotnet-deps' },
  composer: { syft: 'php-composer', purl: 'composer', language: 'php', foundBy: 'php-composer' },
};

function isPackageType(type: string): type is PackageType {
  return Object.hasOwn(NAMES, type);
}

/** Names of a Vigil type; a type Vigil does not know passes through as its own name. */
export function typeNames(type: string): TypeNames {
  return isPackageType(type) ? NAMES[type] : { syft: type, purl: type, language: '', foundBy: type };
}

const BY_PURL = new Map(Object.entries(NAMES).map(([type, n]) => [n.purl, type as PackageType]));

/** Vigil's type for a purl type (`deb` -> dpkg, `pypi` -> python, `maven` -> java, `golang` -> go). */
export function typeFromPurlType(purlType: string): PackageType | undefined {
  return BY_PURL.get(purlType.toLowerCase());
}

// syft's artifact types, plus Vigil's own names (what a `vigil:package:type` property carries).
const BY_SYFT = new Map<string, PackageType>([
  ...Object.entries(NAMES).map(([type, n]) => [n.syft, type as PackageType] as const),
  ...Object.keys(NAMES).map((type) => [type, type as PackageType] as const),
  ['jenkins-plugin', 'java'],
]);

/** Vigil's type for a syft artifact type (`deb`, `java-archive`, `go-module`...) or a Vigil type name. */
export function typeFromSyftType(syftType: string): PackageType | undefined {
  return BY_SYFT.get(syftType.toLowerCase());
}

export function isOsPackageType(type: string): boolean {
  return (OS_PACKAGE_TYPES as readonly string[]).includes(type);
}
