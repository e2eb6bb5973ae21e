/**
 * Secret searches, content searches and file contents uploaded with an SBOM import (the shapes syft writes), as
 * the documents an analysis stores, so the gates that read them work for imported images too.
 */
import type { ContentSearchResult, RetrievedFile } from './index.js';

interface ImportedLocation {
  path: string;
}

export interface ImportedContentSearch {
  location: ImportedLocation;
  content_searches: { classification: string; line_number: number }[];
}

export interface ImportedFileContent {
  location: ImportedLocation;
  contents: string;
}

const absolute = (path: string) => (path.startsWith('/') ? path : `/${path}`);
const byPath = <T extends { path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** Per file, one match per classification with its sorted line numbers; the expression itself is not known. */
export function importedSearchResults(items: readonly ImportedContentSearch[]): ContentSearchResult[] {
  const files = new Map<string, Map<string, Set<number>>>();
  for (const item of items) {
    const path = absolute(item.location.path);
    const byName = files.get(path) ?? new Map<string, Set<number>>();
    files.set(path, byName);
    for (const found of item.content_searches) {
      const lines = byName.get(found.classification) ?? new Set<number>();
      byName.set(found.classification, lines);
      lines.add(found.line_number);
    }
  }
  return [...files]
    .map(([path, byName]) => ({
      path,
      matches: [...byName].map(([name, lines]) => ({ name, regex: '', lines: [...lines].sort((a, b) => a - b) })),
    }))
    .filter((r) => r.matches.length > 0)
    .sort(byPath);
}

/** The uploaded copies as retrieved files; a path given twice keeps its last copy. */
export function importedRetrievedFiles(items: readonly ImportedFileContent[]): RetrievedFile[] {
  const files = new Map(items.map((item) => [absolute(item.location.path), item.contents]));
  return [...files].map(([path, b64_content]) => ({ path, b64_content })).sort(byPath);
}
