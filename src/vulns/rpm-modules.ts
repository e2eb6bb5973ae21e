/**
 * RHEL 8+ module streams (AppStream modules such as `nodejs:18`, `postgresql:15`) ship rpms of the same names as
 * the default, non-modular packages, on branches of their own. An advisory for one must not be judged against the
 * other: `nodejs 16.20.2-3.el9` is not vulnerable because the `nodejs:18` stream fixed a flaw in
 * `1:18.19.1-1.module+el9.3.0+21369+bf3e2b32`, although 16.20.2 sorts below 18.19.1.
 *
 * The published OSV Red Hat records name modular packages by their plain rpm name (Red Hat's CSAF-to-OSV converter
 * drops the module from the product id and cuts the purl at its version, rpmmod qualifier included), and Rocky
 * Linux and AlmaLinux records do the same. What the records keep is the build: a modular rpm's release says
 * `.module+el9.3.0+...` (AlmaLinux: `.module_el9.3.0+...`), as does the installed rpm's. So a record entry whose
 * versions are module builds applies to installed module builds only, and one whose versions are not applies to
 * non-modular rpms only. Which stream a modular entry belongs to is not in the data, so two streams of one module
 * are not told apart here.
 */
import type { OsvAffected } from './osv/types.js';

/** The OSV ecosystems (lower-cased) whose rpms can come from module streams. */
const MODULAR_ECOSYSTEMS = new Set(['red hat', 'rocky linux', 'almalinux']);

const MODULE_BUILD = /\.module[+_]el\d/;

export function isModuleBuild(version: string): boolean {
  return MODULE_BUILD.test(version);
}

/** Whether the entry's versions are module builds; undefined when it names no version to tell by (`introduced: 0` only). */
function entryIsModular(affected: OsvAffected): boolean | undefined {
  const versions = [...affected.versions, ...affected.ranges.flatMap((r) => r.events.map((e) => e.version))].filter((v) => v !== '0');
  if (versions.length === 0) return undefined;
  return versions.some(isModuleBuild);
}

/** False when the entry and the installed rpm are on different sides of the modular/non-modular divide. */
export function sameModularity(ecosystem: string, installedVersion: string, affected: OsvAffected): boolean {
  if (!MODULAR_ECOSYSTEMS.has(ecosystem)) return true;
  const modular = entryIsModular(affected);
  return modular === undefined || modular === isModuleBuild(installedVersion);
}
