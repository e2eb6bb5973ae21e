/**
 * Ruby gem cataloger: the installed specifications RubyGems writes to `<gem home>/specifications/*.gemspec`
 * (default gems bundled with Ruby live in `specifications/default/`). The gemspec is Ruby code; it is read
 * textually, which suffices because RubyGems generates these files in one regular shape:
 *
 *   Gem::Specification.new do |s|
 *     s.name = "rake".freeze
 *     s.version = "13.0.6"
 *     s.licenses = ["MIT".freeze]
 *
 * When name or version cannot be read as literals, the file name `<name>-<version>[-<platform>].gemspec`
 * (which RubyGems derives from the spec's full name) supplies them.
 */
import { posix } from 'node:path';
import { cpe23, purl } from '../shared/identifiers.js';
import type { CatalogedPackage, Cataloger } from '../model.js';
import { withoutUndefined } from '../../formats/json-object.js';
import { readRubyLiteral, type RubyLiteral } from './ruby-literal.js';

const SPECIFICATION_PATH = /(?:^|\/)specifications\/(?:default\/)?[^/]+\.gemspec$/;
/** RubyGems' own rules: Gem::Specification#validate for names, Gem::Version::ANCHORED_VERSION_PATTERN for versions. */
const GEM_NAME = /^[A-Za-z0-9._-]+$/;
const GEM_VERSION = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
/**
 * `<name>-<version>[-<platform>].gemspec`. The name is the shortest prefix followed by a version-shaped segment,
 * so names with dashes and digits ("aws-sdk-s3", "abc-2fa") split correctly. Versions in full names never contain
 * a dash (RubyGems rewrites `1.0-pre` to `1.0.pre.pre`), so what follows one is the platform.
 */
const FILE_NAME = /^([A-Za-z0-9._-]+?)-([0-9]+(?:\.[0-9A-Za-z]+)*)(?:-([A-Za-z0-9._-]+))?\.gemspec$/;
/** The block parameter of `Gem::Specification.new ... do |s|` (or `{ |spec|`): the receiver of every assignment. */
const SPEC_BLOCK = /Gem::Specification\.new\b[^\n]*?(?:\bdo|\{)\s*\|\s*([A-Za-z_]\w*)\s*\|/;

type Attribute = 'name' | 'version' | 'license' | 'licenses' | 'author' | 'authors' | 'homepage' | 'platform';

export function isGemSpecificationPath(path: string): boolean {
  return SPECIFICATION_PATH.test(path);
}

/** Name, version and platform from a specification file name, e.g. `nokogiri-1.13.8-x86_64-linux.gemspec`. */
export function parseGemspecFileName(fileName: string): { name: string; version: string; platform?: string } | undefined {
  const match = FILE_NAME.exec(fileName);
  return match ? { name: match[1], version: match[2], platform: match[3] } : undefined;
}

/**
 * The literal last assigned to each attribute of the block variable (Ruby semantics: the last assignment wins).
 * An assignment whose right-hand side is not a plain literal — or continues after it (`"1.0" + x`) — is recorded
 * as undefined, i.e. unknown.
 */
function readAssignments(text: string, receiver: string): Map<Attribute, RubyLiteral | undefined> {
  const assignments = new Map<Attribute, RubyLiteral | undefined>();
  const assignment = new RegExp(
    `^[ \\t]*${receiver}\\.(name|version|licenses?|authors?|homepage|platform)[ \\t]*=(?![=~>])`,
    'gm',
  );
  for (const match of text.matchAll(assignment)) {
    const literal = readRubyLiteral(text, match.index + match[0].length);
    // RubyGems appends `if s.respond_to? ...` modifiers; anything else after the literal makes it an expression.
    const rest = literal ? (/^[^\n]*/.exec(text.slice(literal.end))?.[0] ?? '') : '';
    const complete = literal && /^\s*(?:$|#|;|if\b|unless\b)/.test(rest);
    assignments.set(match[1] as Attribute, complete ? literal.value : undefined);
  }
  return assignments;
}

function asList(value: RubyLiteral | undefined): string[] {
  const list = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return [...new Set(list.map((v) => v.trim()).filter((v) => v !== ''))];
}

function asSingle(value: RubyLiteral | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Whichever of the singular/plural attributes was assigned (they set the same list), the plural preferred. */
function listAttribute(assignments: Map<Attribute, RubyLiteral | undefined>, plural: Attribute, singular: Attribute): string[] {
  return asList(assignments.has(plural) ? assignments.get(plural) : assignments.get(singular));
}

/** One package from an installed gemspec; [] when the file is not a gemspec (no Gem::Specification, binary, empty). */
export function parseGemspec(path: string, content: Buffer): CatalogedPackage[] {
  if (content.includes(0)) return [];
  const text = content.toString('utf8');
  // Without this the file is not a gemspec at all, and its name alone is no evidence of an installed gem.
  if (!text.includes('Gem::Specification')) return [];
  const receiver = SPEC_BLOCK.exec(text)?.[1];
  const assignments = receiver ? readAssignments(text, receiver) : new Map<Attribute, RubyLiteral | undefined>();

  const fromFile = parseGemspecFileName(posix.basename(path));
  const declaredName = asSingle(assignments.get('name'));
  const declaredVersion = asSingle(assignments.get('version'));
  const name = declaredName && GEM_NAME.test(declaredName) ? declaredName : fromFile?.name;
  const version = declaredVersion && GEM_VERSION.test(declaredVersion) ? declaredVersion : fromFile?.version;
  if (!name || !version) return [];

  // `Gem::Platform::RUBY` (a constant, so unreadable here) and "ruby" both mean the pure-Ruby default.
  const declaredPlatform = assignments.has('platform') ? asSingle(assignments.get('platform')) : fromFile?.platform;
  const platform = declaredPlatform && declaredPlatform !== 'ruby' ? declaredPlatform : undefined;
  const metadata = withoutUndefined({
    authors: listAttribute(assignments, 'authors', 'author'),
    homepage: asSingle(assignments.get('homepage')),
    platform,
  });
  return [
    {
      name,
      version,
      type: 'gem',
      locations: [path],
      licenses: listAttribute(assignments, 'licenses', 'license'),
      // The purl gem type names non-default platforms (java, x86_64-linux) with the `platform` qualifier.
      purl: purl('gem', undefined, name, version, { platform }),
      cpes: [cpe23(name, name, version)],
      metadata,
    },
  ];
}

export const gemCataloger: Cataloger = {
  name: 'gem',
  // Installed specifications list only executables in `files`, so they stay small; 1 MiB leaves ample room.
  maxFileBytes: 1024 * 1024,
  matches: isGemSpecificationPath,
  parse(path, content) {
    try {
      return parseGemspec(path, content);
    } catch {
      // The parser is written not to throw; this guards the image walk against a bug on one odd file.
      return [];
    }
  },
};
