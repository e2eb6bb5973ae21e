/**
 * CycloneDX 1.4-1.6 JSON -> packages. Components of every nesting level are flattened; those that are not
 * packages (the container, files, the operating system, devices...) are skipped, the operating system giving the
 * distro. Understands Vigil's `vigil:` properties and syft's `syft:` ones. A language package nested in an OS
 * package is owned by it (sbom/ownership-links.ts).
 */
import type { CatalogedPackage, DistroInfo, PackageType } from '../../ecosystems/model.js';
import { OWNABLE_TYPES } from '../../ecosystems/registry.js';
import { linkOwner } from '../ownership.js';
import { CDX_PROPERTY } from './cyclonedx.js';
import { typeFromSyftType } from './package-types.js';
import { child, FieldReader, type JsonObject } from './read-fields.js';
import { distroFromPackages, toCatalogedPackage, type PackageFacts } from './read-package.js';

const fields = new FieldReader('cyclonedx');

/** Component types that describe software packages; everything else (file, container, device, data...) is not one. */
const PACKAGE_COMPONENT_TYPES = new Set(['library', 'application', 'framework']);

type Properties = { name: string; value: string }[];

function properties(component: JsonObject, path: string): Properties {
  return fields.objects(component, 'properties', path).flatMap(({ item, path: p }) => {
    const name = fields.optionalString(item, 'name', p);
    const value = fields.optionalString(item, 'value', p);
    return name !== undefined && value !== undefined ? [{ name, value }] : [];
  });
}

const values = (props: Properties, ...names: string[]) => props.filter((p) => names.includes(p.name)).map((p) => p.value);
const first = (props: Properties, ...names: string[]) => values(props, ...names)[0];

/** `vigil:location:0:path` / `syft:location:0:path`, in index order. */
function propertyLocations(props: Properties): string[] {
  return props
    .flatMap((p) => {
      const m = /^(?:vigil|syft):location:(\d+):path$/.exec(p.name);
      return m ? [{ index: Number(m[1]), path: p.value }] : [];
    })
    .sort((a, b) => a.index - b.index)
    .map((l) => l.path);
}

function licenses(component: JsonObject, path: string): string[] {
  return fields.objects(component, 'licenses', path).flatMap(({ item, path: p }) => {
    const expression = fields.optionalString(item, 'expression', p);
    if (expression !== undefined) return [expression];
    const license = fields.optionalObject(item, 'license', p);
    if (!license) return [];
    const value = fields.optionalString(license, 'id', child(p, 'license')) ?? fields.optionalString(license, 'name', child(p, 'license'));
    return value !== undefined ? [value] : [];
  });
}

/** CycloneDX 1.5+ evidence: where the component was seen. */
function evidenceLocations(component: JsonObject, path: string): string[] {
  const evidence = fields.optionalObject(component, 'evidence', path);
  if (!evidence) return [];
  return fields.objects(evidence, 'occurrences', child(path, 'evidence')).flatMap(({ item, path: p }) => {
    const location = fields.optionalString(item, 'location', p);
    return location ? [location] : [];
  });
}

function vigilType(value: string | undefined): PackageType | undefined {
  return value === undefined ? undefined : typeFromSyftType(value);
}

function packageFacts(component: JsonObject, path: string): PackageFacts {
  const props = properties(component, path);
  const rawName = fields.requiredString(component, 'name', path);
  const group = fields.optionalString(component, 'group', path)?.trim() || undefined;
  const declaredType = first(props, CDX_PROPERTY.type, 'syft:package:type');
  const typeHints = [vigilType(first(props, CDX_PROPERTY.type)), undefined, vigilType(first(props, 'syft:package:type'))];
  const purl = fields.optionalString(component, 'purl', path);
  const cpe = fields.optionalString(component, 'cpe', path);
  const publisher = fields.optionalString(component, 'publisher', path);
  const description = fields.optionalString(component, 'description', path);
  return {
    where: path,
    name: rawName,
    version: fields.optionalString(component, 'version', path) ?? '',
    typeHints,
    declaredType,
    purl,
    cpes: [...(cpe ? [cpe] : []), ...values(props, CDX_PROPERTY.cpe, 'syft:cpe23')],
    licenses: licenses(component, path),
    locations: [...propertyLocations(props), ...evidenceLocations(component, path)],
    group,
    origin: first(props, CDX_PROPERTY.origin, 'syft:metadata:source', 'syft:metadata:originPackage'),
    sourceVersion: first(props, CDX_PROPERTY.sourceVersion, 'syft:metadata:sourceVersion'),
    metadata: {
      ...(publisher ? { maintainer: publisher } : {}),
      ...(description ? { description } : {}),
    },
  };
}

function operatingSystem(component: JsonObject, path: string): DistroInfo {
  const props = properties(component, path);
  const name = first(props, 'syft:distro:id') ?? fields.requiredString(component, 'name', path);
  const version = first(props, 'syft:distro:versionID') ?? fields.optionalString(component, 'version', path) ?? '';
  const like = [...values(props, CDX_PROPERTY.distroIdLike), ...props.filter((p) => /^syft:distro:idLike:\d+$/.test(p.name)).map((p) => p.value)];
  const prettyName = first(props, 'syft:distro:prettyName') ?? fields.optionalString(component, 'description', path);
  return { name: name.toLowerCase(), version, like, ...(prettyName ? { prettyName } : {}) };
}

export function readCycloneDx(doc: JsonObject): { packages: CatalogedPackage[]; distro?: DistroInfo; warnings: string[] } {
  const warnings: string[] = [];
  /** Package facts in document order, each with the index of the package component it is nested in, if any. */
  const found: { facts: PackageFacts; parent?: number }[] = [];
  let distro: DistroInfo | undefined;

  /** The index in `found` of the package the component is, or undefined when it is not one. */
  const visit = (component: JsonObject, path: string, parent: number | undefined): number | undefined => {
    const type = fields.requiredString(component, 'type', path);
    if (type === 'operating-system') {
      const os = operatingSystem(component, path);
      if (!distro) distro = os;
      else if (os.name !== distro.name || os.version !== distro.version) warnings.push(`${path}: ignored a second operating system '${os.name} ${os.version}'`);
    } else if (PACKAGE_COMPONENT_TYPES.has(type)) {
      return found.push({ facts: packageFacts(component, path), ...(parent === undefined ? {} : { parent }) }) - 1;
    }
    return undefined;
  };

  const metadata = fields.optionalObject(doc, 'metadata', '');
  const subject = metadata && fields.optionalObject(metadata, 'component', 'metadata');
  // Depth first in document order, with an explicit stack: nesting depth costs memory, never call stack.
  // Whatever a component is, what it nests may still be packages (a container's layers, a jar's shaded jars).
  // The subject is the image itself, never a package of it; only what it nests is looked at.
  // Each pending component carries the nearest package component above it: its owner, when that is an OS package.
  const pending: { item: JsonObject; path: string; parent?: number }[] = [];
  const pushInOrder = (nested: { item: JsonObject; path: string }[], parent?: number) => {
    for (let i = nested.length - 1; i >= 0; i--) pending.push({ ...nested[i]!, parent });
  };
  const subjectComponents = subject ? fields.objects(subject, 'components', 'metadata.component') : [];
  pushInOrder(fields.objects(doc, 'components', ''));
  pushInOrder(subjectComponents);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const index = visit(next.item, next.path, next.parent);
    pushInOrder(fields.objects(next.item, 'components', next.path), index ?? next.parent);
  }

  const packages: CatalogedPackage[] = [];
  const converted = found.map(({ facts }) => {
    const pkg = toCatalogedPackage(facts, distro, warnings);
    if (pkg) packages.push(pkg);
    return pkg;
  });
  // Parents come before their children, so an owner reaches down a whole assembly (a jar shaded into an owned jar).
  found.forEach(({ parent }, i) => {
    const above = parent === undefined ? undefined : converted[parent];
    const pkg = converted[i];
    if (above?.owner && pkg && !pkg.owner && OWNABLE_TYPES.has(pkg.type)) pkg.owner = above.owner;
    else linkOwner(above, pkg);
  });
  distro ??= distroFromPackages(packages);
  return { packages, ...(distro ? { distro } : {}), warnings };
}
