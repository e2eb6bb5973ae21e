/**
 * The typed, normalised shape of an OSV record (https://ossf.github.io/osv-schema/) as the rest of Vigil uses it.
 * Only the fields the matcher and the vulnerability views need are kept; `credits` and unknown fields are dropped.
 */

/** Severity scoring methods the OSV schema defines; anything else is rejected, since we could not interpret it. */
export const OSV_SEVERITY_TYPES = ['CVSS_V2', 'CVSS_V3', 'CVSS_V4', 'Ubuntu'] as const;
export type OsvSeverityType = (typeof OSV_SEVERITY_TYPES)[number];

export const OSV_RANGE_TYPES = ['ECOSYSTEM', 'SEMVER', 'GIT'] as const;
export type OsvRangeType = (typeof OSV_RANGE_TYPES)[number];

export const OSV_EVENT_KINDS = ['introduced', 'fixed', 'last_affected', 'limit'] as const;
export type OsvEventKind = (typeof OSV_EVENT_KINDS)[number];

export interface OsvSeverity {
  type: OsvSeverityType;
  /** A CVSS vector for the CVSS types (`CVSS:3.1/AV:N/...`), a priority word for `Ubuntu`. */
  score: string;
}

/** One event of a range, with OSV's one-key object (`{"fixed": "1.2"}`) turned into kind + version. */
export interface OsvEvent {
  kind: OsvEventKind;
  version: string;
}

export interface OsvRange {
  type: OsvRangeType;
  /** The repository URL of a GIT range. */
  repo?: string;
  /** In record order; evaluation sorts them. */
  events: OsvEvent[];
  databaseSpecific?: Record<string, unknown>;
}

/**
 * An OSV ecosystem string split into its base name and release suffix: `Debian:12`, `Alpine:v3.18`,
 * `Ubuntu:Pro:18.04:LTS`, `Red Hat:rhel_aus:8.4::appstream`, `Maven:https://maven.google.com`.
 */
export interface OsvEcosystem {
  /** Base ecosystem in the schema's spelling (`Debian`, `PyPI`, `crates.io`); unknown ones are kept as written. */
  ecosystem: string;
  /**
   * The distribution release the advisory is scoped to: `12`, `3.18` (Alpine's required `v` removed, matching
   * os-release VERSION_ID and feed group names such as `alpine:3.18`), `22.04`, `9` for the mainline RHEL streams,
   * `15.5` for SLE 15 SP5 products, `leap-15.5` for openSUSE Leap; streams no image can be known to follow keep
   * their suffix as written (`rhel_aus:8.4::appstream`, `22.04:FIPS-updates`). See ecosystem.ts.
   */
  release?: string;
  /** Ubuntu's `:LTS` marker. */
  lts?: boolean;
  /** Ubuntu's `:Pro:` (ESM) stream. */
  pro?: boolean;
  /** Maven's remote repository suffix; absent means Maven Central. */
  repository?: string;
  /** The string as the record wrote it. */
  raw: string;
}

export interface OsvPackage {
  name: string;
  purl?: string;
  ecosystem: OsvEcosystem;
}

export interface OsvAffected {
  /** Optional in the schema (GIT-only entries may name no package); such an entry cannot match a package. */
  package?: OsvPackage;
  severity: OsvSeverity[];
  ranges: OsvRange[];
  /** Explicitly listed affected versions; a version listed here is affected whatever the ranges say. */
  versions: string[];
  ecosystemSpecific?: Record<string, unknown>;
  databaseSpecific?: Record<string, unknown>;
  /** A severity word from `ecosystem_specific.severity` or `database_specific.severity` (e.g. RustSec, Debian). */
  severityLabel?: string;
}

export interface OsvReference {
  /** ADVISORY, ARTICLE, FIX, WEB, ...; descriptive only, so unknown types are kept rather than rejected. */
  type: string;
  url: string;
}

export interface OsvRecord {
  id: string;
  schemaVersion?: string;
  /** RFC 3339 as written. Go vulndb uses the placeholder `0001-01-01T00:00:00Z`. */
  modified: string;
  published?: string;
  /** Present when the advisory was withdrawn; a withdrawn record must not produce matches. */
  withdrawn?: string;
  /** Other ids for the same vulnerability (CVE, GHSA, ...), deduplicated, without the record's own id. */
  aliases: string[];
  related: string[];
  summary?: string;
  details?: string;
  severity: OsvSeverity[];
  affected: OsvAffected[];
  references: OsvReference[];
  databaseSpecific?: Record<string, unknown>;
  /** `database_specific.severity` when it is a word, e.g. GitHub's `MODERATE` or `HIGH`, as written. */
  severityLabel?: string;
}
