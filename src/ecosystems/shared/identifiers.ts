/** Package identifiers shared by every cataloger: Package URLs and CPE 2.3 names. */
import { PackageURL } from 'packageurl-js';

export function purl(
  type: string,
  namespace: string | undefined,
  name: string,
  version: string | undefined,
  qualifiers?: Record<string, string | undefined>,
): string {
  const q = qualifiers ? Object.fromEntries(Object.entries(qualifiers).filter((e): e is [string, string] => !!e[1])) : undefined;
  return new PackageURL(type, namespace || undefined, name, version || undefined, q && Object.keys(q).length ? q : undefined, undefined).toString();
}

/** Escapes a CPE 2.3 formatted-string component (spec NISTIR 7695 §6.2): specials get a backslash. */
function cpeComponent(value: string): string {
  const v = value.trim().toLowerCase().replace(/\s+/g, '_');
  if (v === '') return '*';
  return v.replace(/[\\!"#$%&'()+,/:;<=>@[\]^`{|}~?*]/g, (c) => `\\${c}`);
}

/** `cpe:2.3:a:vendor:product:version:*:*:*:*:*:*:*` for an application. */
export function cpe23(vendor: string, product: string, version: string, part: 'a' | 'o' = 'a'): string {
  return `cpe:2.3:${part}:${cpeComponent(vendor)}:${cpeComponent(product)}:${cpeComponent(version)}:*:*:*:*:*:*:*`;
}
