/**
 * The reduction OS catalogers apply to their file lists while reading them (images/ownership.ts says why): only
 * paths that are, or lie in, a language package's metadata location are kept, under that location's key. The key
 * function is composed from the ownable ecosystems in registry.ts and handed to the OS catalogers that need it.
 */
export type OwnershipKey = (path: string) => string | undefined;

/** Adds the ownership keys of `paths` to `into` (deduplicated). */
export function collectOwnershipKeys(paths: Iterable<string>, ownershipKey: OwnershipKey, into: Set<string> = new Set()): Set<string> {
  for (const path of paths) {
    const key = ownershipKey(path);
    if (key !== undefined) into.add(key);
  }
  return into;
}
