/**
 * What analysis reads out of file contents besides packages: copies of configured files (retrieved files, e.g.
 * /etc/passwd for the passwd_file gate) and the secret and content searches over small files. These run as content
 * scanners inside the single layer walk; their results become the image's `retrieved_files`, `secret_search` and
 * `content_search` documents.
 */
import type { ContentScanner } from '../model.js';
import { type CompiledPattern, type NamedPattern, type RegexContentMatch, compilePattern, searchLines } from './regex-search.js';

export type { NamedPattern, RegexContentMatch } from './regex-search.js';

export interface ContentScanConfig {
  /** Absolute paths of the files to keep a copy of. */
  retrieveFiles: string[];
  /** Larger files are not retrieved (and are reported as such). */
  retrieveMaxBytes: number;
  secretSearch: NamedPattern[];
  contentSearch: NamedPattern[];
  /** Only files up to this size are searched: secrets live in small files, and this bounds the work. */
  searchMaxFileBytes: number;
}

/** The scanner names, also the document kinds their results are stored as. */
export const RETRIEVED_FILES = 'retrieved_files';
export const SECRET_SEARCH = 'secret_search';
export const CONTENT_SEARCH = 'content_search';

export interface RetrievedFile {
  path: string;
  b64_content: string;
}

export interface ContentSearchResult {
  path: string;
  matches: RegexContentMatch[];
}

export interface ContentScanResults {
  retrievedFiles: RetrievedFile[];
  secretSearch: ContentSearchResult[];
  contentSearch: ContentSearchResult[];
}

function retrievedFilesScanner(config: ContentScanConfig, warn: (message: string) => void): ContentScanner {
  const wanted = new Set(config.retrieveFiles);
  return {
    name: RETRIEVED_FILES,
    wants(path, size) {
      if (!wanted.has(path)) return false;
      if (size <= config.retrieveMaxBytes) return true;
      warn(`${path} (${size} bytes) was not retrieved: it is larger than the ${config.retrieveMaxBytes}-byte limit for retrieved files`);
      return false;
    },
    scan: (_path, content) => Buffer.from(content),
  };
}

function searchScanner(name: string, patterns: readonly CompiledPattern[], maxFileBytes: number): ContentScanner | undefined {
  if (patterns.length === 0) return undefined;
  return {
    name,
    wants: (_path, size) => size > 0 && size <= maxFileBytes,
    scan(_path, content) {
      const matches = searchLines(content, patterns);
      return matches.length > 0 ? matches : undefined;
    },
  };
}

/** The scanners for `config`; `warn` receives the analysis warnings they raise. */
export function contentScanners(config: ContentScanConfig, warn: (message: string) => void): ContentScanner[] {
  const scanners: (ContentScanner | undefined)[] = [
    retrievedFilesScanner(config, warn),
    searchScanner(SECRET_SEARCH, config.secretSearch.map(compilePattern), config.searchMaxFileBytes),
    searchScanner(CONTENT_SEARCH, config.contentSearch.map(compilePattern), config.searchMaxFileBytes),
  ];
  return scanners.filter((s): s is ContentScanner => s !== undefined);
}

/** The walk's scan results (path -> result per scanner) as the documents stored with the image, in path order. */
export function scanResults(scans: Map<string, Map<string, unknown>>): ContentScanResults {
  const byPath = <T>(name: string, shape: (path: string, result: unknown) => T): T[] =>
    [...(scans.get(name) ?? new Map<string, unknown>())]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, result]) => shape(path, result));
  return {
    retrievedFiles: byPath(RETRIEVED_FILES, (path, content) => ({ path, b64_content: (content as Buffer).toString('base64') })),
    secretSearch: byPath(SECRET_SEARCH, (path, matches) => ({ path, matches: matches as RegexContentMatch[] })),
    contentSearch: byPath(CONTENT_SEARCH, (path, matches) => ({ path, matches: matches as RegexContentMatch[] })),
  };
}

/**
 * Expressions of the secret search unless configured otherwise: common credential formats. The AWS secret key's
 * look-behind leaves out '=' (unlike the usual form of this expression) so that `key=SECRET` without spaces is found.
 */
export const DEFAULT_SECRET_PATTERNS: NamedPattern[] = [
  { name: 'AWS_ACCESS_KEY', regex: '(?i).*aws_access_key_id( *=+ *).*(?<![A-Z0-9])[A-Z0-9]{20}(?![A-Z0-9]).*' },
  { name: 'AWS_SECRET_KEY', regex: '(?i).*aws_secret_access_key( *=+ *).*(?<![A-Za-z0-9/+])[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=]).*' },
  { name: 'PRIV_KEY', regex: '(?s).*-----BEGIN(.*)PRIVATE KEY-----.*' },
  { name: 'DOCKER_AUTH', regex: '(?s).*"auths": ?\\{.*' },
  { name: 'API_KEY', regex: '(?i).*api(-|_)key( *=+ *).*(?<![A-Z0-9])[A-Z0-9]{20,60}(?![A-Z0-9]).*' },
];

/** Files retrieved unless configured otherwise. */
export const DEFAULT_RETRIEVE_FILES = ['/etc/passwd', '/etc/group', '/etc/services', '/etc/sudoers'];
