/**
 * Go versions: module versions as golang.org/x/mod/semver orders them, and Go release tags for the `stdlib`
 * and `toolchain` packages.
 *
 * Pseudo-versions (`v0.0.0-20191109021931-daa7c04131f5`, `v1.2.3-pre.0.2019…-abc…`, `v1.2.4-0.2019…-abc…`)
 * need no special case: they are SemVer pre-releases whose fixed-width timestamp sorts lexically in time order,
 * which is exactly how the go command orders them. `+incompatible` is build metadata and so ignored.
 *
 * Release tags are mapped to SemVer the way golang.org/x/vuln does for the Go vulnerability database, whose
 * `stdlib` ranges are written in that form: `go1.20` -> 1.20.0, `go1.21.5` -> 1.21.5, `go1.21rc2` -> 1.21.0-rc.2.
 * (go/version would put the language version `go1.21` below `go1.21rc1`; no binary reports a bare `go1.21`
 * since 1.21, and before 1.21 `go1.N` was the release itself, so the x/vuln reading is the right one here.)
 */
import type { VersionComparator } from '../shared/comparator.js';
import { compareParsedOrInvalidFirst } from '../shared/compare-primitives.js';
import { compareSemverPrecedence, type SemverPrecedence } from '../shared/semver-precedence.js';

const NUMBER = '0|[1-9][0-9]*';
const PRERELEASE_ID = '0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*';
const BUILD_ID = '[0-9a-zA-Z-]+';

/**
 * x/mod/semver's grammar: `vMAJOR[.MINOR[.PATCH[-PRERELEASE][+BUILD]]]`, no leading zeros, and the shorthand
 * forms `v1` and `v1.2` take no suffix. The `v` is optional here because OSV's Go ranges omit it.
 */
const MODULE_VERSION = new RegExp(
  `^v?(${NUMBER})(?:\\.(${NUMBER})(?:\\.(${NUMBER})` +
    `(?:-((?:${PRERELEASE_ID})(?:\\.(?:${PRERELEASE_ID}))*))?` +
    `(?:\\+${BUILD_ID}(?:\\.${BUILD_ID})*)?)?)?$`,
);

/** A Go release tag without its `go` prefix: `1`, `1.20`, `1.21.5`, `1.21rc2`, `1.9beta2`, `1.8.5rc4`. */
const RELEASE_TAG = new RegExp(`^(${NUMBER})(?:\\.(${NUMBER})(?:\\.(${NUMBER}))?(?:(alpha|beta|rc)(${NUMBER}))?)?$`);

function parseModuleVersion(version: string): SemverPrecedence | null {
  const m = MODULE_VERSION.exec(version);
  if (m === null) return null;
  return { major: m[1], minor: m[2] ?? '0', patch: m[3] ?? '0', prerelease: m[4] === undefined ? [] : m[4].split('.') };
}

function parseReleaseTag(tag: string): SemverPrecedence | null {
  const m = RELEASE_TAG.exec(tag);
  if (m === null) return null;
  return { major: m[1], minor: m[2] ?? '0', patch: m[3] ?? '0', prerelease: m[4] === undefined ? [] : [m[4], m[5]] };
}

/**
 * A binary's toolchain string may carry a vendor suffix (`go1.21.0-bigcorp`, which go/version also drops) or
 * GOEXPERIMENT tags after a space (`go1.21.5 X:boringcrypto`); neither changes which release it is.
 */
function stripToolchainDecorations(tag: string): string {
  return tag.split(/[\s-]/, 1)[0];
}

/** Parses a module version (with or without `v`) or a Go release tag (with or without `go`); null otherwise. */
export function parseGoVersion(version: string): SemverPrecedence | null {
  if (typeof version !== 'string') return null;
  if (version.startsWith('go')) return parseReleaseTag(stripToolchainDecorations(version.slice(2)));
  return parseModuleVersion(version) ?? parseReleaseTag(version);
}

/** SemVer precedence over Go module versions and release tags; invalid strings sort first, as in x/mod/semver. */
export function compareGoVersions(a: string, b: string): number {
  return compareParsedOrInvalidFirst(a, b, parseGoVersion, compareSemverPrecedence);
}

export const goComparator: VersionComparator = {
  name: 'go',
  compare: compareGoVersions,
  isValid: (version: string) => parseGoVersion(version) !== null,
};
