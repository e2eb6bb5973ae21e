import { describe, expect, it } from 'vitest';
import { gemCataloger, parseGemspec, parseGemspecFileName } from '../../../../src/ecosystems/gem/cataloger.js';
import { readRubyLiteral } from '../../../../src/ecosystems/gem/ruby-literal.js';

const GEMS = '/usr/local/lib/ruby/gems/3.1.0/specifications';

/** rake-13.0.6.gemspec exactly as RubyGems 3.3 writes an installed specification. */
const RAKE_13_0_6 = `# -*- encoding: utf-8 -*-
# stub: rake 13.0.6 ruby lib

Gem::Specification.new do |s|
  s.name = "rake".freeze
  s.version = "13.0.6"

  s.required_rubygems_version = Gem::Requirement.new(">= 1.3.2".freeze) if s.respond_to? :required_rubygems_version=
  s.metadata = { "bug_tracker_uri" => "https://github.com/ruby/rake/issues", "changelog_uri" => "https://github.com/ruby/rake/blob/v13.0.6/History.rdoc", "documentation_uri" => "https://ruby.github.io/rake", "source_code_uri" => "https://github.com/ruby/rake/tree/v13.0.6" } if s.respond_to? :metadata=
  s.require_paths = ["lib".freeze]
  s.authors = ["Hiroshi SHIBATA".freeze, "Eric Hodel".freeze, "Jim Weirich".freeze]
  s.bindir = "exe".freeze
  s.date = "2021-07-09"
  s.description = "Rake is a Make-like program implemented in Ruby. Tasks and dependencies are\\nspecified in standard Ruby syntax.\\nRake has the following features:\\n  * Rakefiles (rake's version of Makefiles) are completely defined in standard Ruby syntax.\\n    No XML files to edit. No quirky Makefile syntax to worry about (is that a tab or a space?)\\n  * Users can specify tasks with prerequisites.\\n".freeze
  s.email = ["hsbt@ruby-lang.org".freeze, "drbrain@segment7.net".freeze, "".freeze]
  s.executables = ["rake".freeze]
  s.files = ["exe/rake".freeze]
  s.homepage = "https://github.com/ruby/rake".freeze
  s.licenses = ["MIT".freeze]
  s.rdoc_options = ["--main".freeze, "README.rdoc".freeze]
  s.required_ruby_version = Gem::Requirement.new(">= 2.2".freeze)
  s.rubygems_version = "3.3.3".freeze
  s.summary = "Rake is a Make-like program implemented in Ruby".freeze

  s.installed_by_version = "3.3.3" if s.respond_to? :installed_by_version
end
`;

/** racc-1.6.0.gemspec (a default gem of Ruby 3.1): two licenses, a nil in an unrelated array. */
const RACC_1_6_0 = `# -*- encoding: utf-8 -*-
# stub: racc 1.6.0 ruby lib
# stub: ext/racc/cparse/extconf.rb

Gem::Specification.new do |s|
  s.name = "racc".freeze
  s.version = "1.6.0"

  s.required_rubygems_version = Gem::Requirement.new(">= 0".freeze) if s.respond_to? :required_rubygems_version=
  s.require_paths = ["lib".freeze]
  s.authors = ["Minero Aoki".freeze, "Aaron Patterson".freeze]
  s.bindir = "exe".freeze
  s.date = "2021-12-25"
  s.description = "Racc is a LALR(1) parser generator.\\n  It is written in Ruby itself, and generates Ruby program.\\n".freeze
  s.email = [nil, "aaron@tenderlovemaking.com".freeze]
  s.executables = ["racc".freeze]
  s.extensions = ["ext/racc/cparse/extconf.rb".freeze]
  s.files = ["exe/racc".freeze, "ext/racc/cparse/extconf.rb".freeze]
  s.homepage = "https://i.loveruby.net/en/projects/racc/".freeze
  s.licenses = ["Ruby".freeze, "BSD-2-Clause".freeze]
  s.rdoc_options = ["--main".freeze, "README.rdoc".freeze]
  s.required_ruby_version = Gem::Requirement.new(">= 2.5".freeze)
  s.rubygems_version = "3.3.3".freeze
  s.summary = "Racc is a LALR(1) parser generator".freeze
end
`;

/** nokogiri-1.13.8-x86_64-linux.gemspec: a precompiled platform gem. */
const NOKOGIRI_1_13_8 = `# -*- encoding: utf-8 -*-
# stub: nokogiri 1.13.8 x86_64-linux lib

Gem::Specification.new do |s|
  s.name = "nokogiri".freeze
  s.version = "1.13.8"
  s.platform = "x86_64-linux".freeze

  s.required_rubygems_version = Gem::Requirement.new(">= 0".freeze) if s.respond_to? :required_rubygems_version=
  s.metadata = { "homepage_uri" => "https://nokogiri.org", "rubygems_mfa_required" => "true", "source_code_uri" => "https://github.com/sparklemotion/nokogiri" } if s.respond_to? :metadata=
  s.require_paths = ["lib".freeze]
  s.authors = ["Mike Dalessio".freeze, "Aaron Patterson".freeze, "Yoko Harada".freeze, "Akinori MUSHA".freeze]
  s.date = "2022-07-23"
  s.description = "Nokogiri (\\u92F8) makes it easy and painless to work with XML and HTML from Ruby.\\n".freeze
  s.email = "nokogiri-talk@googlegroups.com".freeze
  s.executables = ["nokogiri".freeze]
  s.homepage = "https://nokogiri.org".freeze
  s.licenses = ["MIT".freeze]
  s.required_ruby_version = Gem::Requirement.new([">= 2.6".freeze, "< 3.2.dev".freeze])
  s.rubygems_version = "3.3.7".freeze
  s.summary = "Nokogiri (\\u92F8) makes it easy and painless to work with XML and HTML from Ruby.".freeze

  s.installed_by_version = "3.3.7" if s.respond_to? :installed_by_version

  if s.respond_to? :specification_version then
    s.specification_version = 4
  end

  if s.respond_to? :add_runtime_dependency then
    s.add_runtime_dependency(%q<racc>.freeze, ["~> 1.4"])
  else
    s.add_dependency(%q<racc>.freeze, ["~> 1.4"])
  end
end
`;

/** bundler-2.3.7.gemspec (default gem): RubyGems escapes non-ASCII author names as \\u sequences. */
const BUNDLER_2_3_7 = `# -*- encoding: utf-8 -*-
# stub: bundler 2.3.7 ruby lib

Gem::Specification.new do |s|
  s.name = "bundler".freeze
  s.version = "2.3.7"

  s.required_rubygems_version = Gem::Requirement.new(">= 2.5.2".freeze) if s.respond_to? :required_rubygems_version=
  s.require_paths = ["lib".freeze]
  s.authors = ["Andr\\u00E9 Arko".freeze, "Samuel Giddins".freeze, "Colby Swandale".freeze, "Hiroshi Shibata".freeze]
  s.bindir = "exe".freeze
  s.date = "2022-02-16"
  s.homepage = "https://bundler.io".freeze
  s.licenses = ["MIT".freeze]
  s.rubygems_version = "3.3.7".freeze
  s.summary = "The best way to manage your application's dependencies".freeze
end
`;

/** A hand-written style: another block variable, single quotes, %w[] arrays, singular license/author. */
const HAND_WRITTEN = `Gem::Specification.new do |spec|
  spec.name          = 'tzinfo-data'
  spec.version       = '1.2022.1'
  spec.author        = 'Phil Ross'
  spec.license       = 'MIT'
  spec.homepage      = 'https://tzinfo.github.io'
  spec.require_paths = %w[lib]
  spec.files         = %w[
    lib/tzinfo/data.rb
    LICENSE
  ]
end
`;

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('gemCataloger.matches', () => {
  it('matches specifications of gem homes, default gems included', () => {
    for (const path of [
      `${GEMS}/rake-13.0.6.gemspec`,
      `${GEMS}/default/json-2.6.1.gemspec`,
      '/usr/local/bundle/specifications/rack-2.2.4.gemspec',
      '/usr/lib/ruby/gems/3.1.0/specifications/rake-13.0.6.gemspec',
      '/home/app/.gem/ruby/3.1.0/specifications/puma-5.6.5.gemspec',
    ]) {
      expect(gemCataloger.matches(path), path).toBe(true);
    }
  });

  it('ignores gemspecs outside specifications (sources, vendored gem trees) and look-alikes', () => {
    for (const path of [
      '/usr/local/bundle/gems/rake-13.0.6/rake.gemspec',
      '/app/myapp.gemspec',
      '/usr/local/bundle/bundler/gems/rails-0123456789ab/rails.gemspec',
      `${GEMS}/rake-13.0.6.gemspec.orig`,
      `${GEMS}/sub/dir/rake-13.0.6.gemspec`,
    ]) {
      expect(gemCataloger.matches(path), path).toBe(false);
    }
  });
});

describe('parseGemspec', () => {
  it('reads a RubyGems 3.x installed specification', () => {
    const path = `${GEMS}/rake-13.0.6.gemspec`;
    expect(parseGemspec(path, text(RAKE_13_0_6))).toEqual([
      {
        name: 'rake',
        version: '13.0.6',
        type: 'gem',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:gem/rake@13.0.6',
        cpes: ['cpe:2.3:a:rake:rake:13.0.6:*:*:*:*:*:*:*'],
        metadata: {
          authors: ['Hiroshi SHIBATA', 'Eric Hodel', 'Jim Weirich'],
          homepage: 'https://github.com/ruby/rake',
        },
      },
    ]);
  });

  it('keeps every license of a multi-licensed default gem', () => {
    const path = `${GEMS}/default/racc-1.6.0.gemspec`;
    expect(parseGemspec(path, text(RACC_1_6_0))).toEqual([
      {
        name: 'racc',
        version: '1.6.0',
        type: 'gem',
        locations: [path],
        licenses: ['Ruby', 'BSD-2-Clause'],
        purl: 'pkg:gem/racc@1.6.0',
        cpes: ['cpe:2.3:a:racc:racc:1.6.0:*:*:*:*:*:*:*'],
        metadata: {
          authors: ['Minero Aoki', 'Aaron Patterson'],
          homepage: 'https://i.loveruby.net/en/projects/racc/',
        },
      },
    ]);
  });

  it('records a non-default platform in metadata and as the purl platform qualifier', () => {
    const path = '/usr/local/bundle/specifications/nokogiri-1.13.8-x86_64-linux.gemspec';
    expect(parseGemspec(path, text(NOKOGIRI_1_13_8))).toEqual([
      {
        name: 'nokogiri',
        version: '1.13.8',
        type: 'gem',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:gem/nokogiri@1.13.8?platform=x86_64-linux',
        cpes: ['cpe:2.3:a:nokogiri:nokogiri:1.13.8:*:*:*:*:*:*:*'],
        metadata: {
          authors: ['Mike Dalessio', 'Aaron Patterson', 'Yoko Harada', 'Akinori MUSHA'],
          homepage: 'https://nokogiri.org',
          platform: 'x86_64-linux',
        },
      },
    ]);
  });

  it('decodes \\u escapes in strings', () => {
    const [pkg] = parseGemspec(`${GEMS}/default/bundler-2.3.7.gemspec`, text(BUNDLER_2_3_7));
    expect(pkg.metadata.authors).toEqual(['André Arko', 'Samuel Giddins', 'Colby Swandale', 'Hiroshi Shibata']);
    expect(pkg.purl).toBe('pkg:gem/bundler@2.3.7');
  });

  it('reads any block variable, single quotes, singular license/author and %w[] arrays', () => {
    const path = '/usr/local/bundle/specifications/tzinfo-data-1.2022.1.gemspec';
    expect(parseGemspec(path, text(HAND_WRITTEN))).toEqual([
      {
        name: 'tzinfo-data',
        version: '1.2022.1',
        type: 'gem',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:gem/tzinfo-data@1.2022.1',
        cpes: ['cpe:2.3:a:tzinfo-data:tzinfo-data:1.2022.1:*:*:*:*:*:*:*'],
        metadata: { authors: ['Phil Ross'], homepage: 'https://tzinfo.github.io' },
      },
    ]);
    const words = parseGemspec(
      `${GEMS}/x-1.0.gemspec`,
      text('Gem::Specification.new { |g|\n  g.name = "x"\n  g.version = "1.0"\n  g.licenses = %w(MIT Apache-2.0)\n}\n'),
    );
    expect(words[0].licenses).toEqual(['MIT', 'Apache-2.0']);
  });

  it('falls back to the file name when name or version is not a literal', () => {
    const spec = `Gem::Specification.new do |s|
  s.name = MyGem::NAME
  s.version = MyGem::VERSION
  s.licenses = ["Apache-2.0".freeze]
end
`;
    const path = '/usr/local/bundle/specifications/my_gem-0.4.2.gemspec';
    expect(parseGemspec(path, text(spec))[0]).toMatchObject({ name: 'my_gem', version: '0.4.2', licenses: ['Apache-2.0'], purl: 'pkg:gem/my_gem@0.4.2' });
    // An expression that merely starts with a literal is not that literal.
    const expression = 'Gem::Specification.new do |s|\n  s.name = "foo"\n  s.version = "1.0" + ENV["SUFFIX"]\nend\n';
    expect(parseGemspec(`${GEMS}/foo-1.0.pre.gemspec`, text(expression))[0]).toMatchObject({ name: 'foo', version: '1.0.pre' });
    // Interpolation cannot be evaluated.
    const interpolated = 'Gem::Specification.new do |s|\n  s.name = "foo"\n  s.version = "#{MAJOR}.1"\nend\n';
    expect(parseGemspec(`${GEMS}/foo-3.1.gemspec`, text(interpolated))[0]).toMatchObject({ version: '3.1' });
    // A truncated specification still identifies itself as one.
    const truncated = 'Gem::Specification.new do |s|\n  s.name = "rake\n';
    expect(parseGemspec(`${GEMS}/rake-13.0.6.gemspec`, text(truncated))[0]).toMatchObject({ name: 'rake', version: '13.0.6' });
    // Without a block variable nothing is readable, so both come from the file name, platform included.
    const noBlock = 'spec = Gem::Specification.load(File.join(__dir__, "x"))\n';
    expect(parseGemspec(`${GEMS}/grpc-1.50.0-x86_64-linux.gemspec`, text(noBlock))[0]).toMatchObject({
      name: 'grpc',
      version: '1.50.0',
      purl: 'pkg:gem/grpc@1.50.0?platform=x86_64-linux',
      metadata: { authors: [], platform: 'x86_64-linux' },
    });
  });

  it('returns [] when neither the DSL nor the file name yields name and version', () => {
    expect(parseGemspec(`${GEMS}/weird.gemspec`, text('Gem::Specification.new do |s|\n  s.name = NAME\nend\n'))).toEqual([]);
  });
});

describe('parseGemspecFileName', () => {
  it('splits name, version and platform', () => {
    expect(parseGemspecFileName('rake-13.0.6.gemspec')).toEqual({ name: 'rake', version: '13.0.6', platform: undefined });
    expect(parseGemspecFileName('aws-sdk-s3-1.114.0.gemspec')).toEqual({ name: 'aws-sdk-s3', version: '1.114.0', platform: undefined });
    expect(parseGemspecFileName('abc-2fa-1.0.0.gemspec')).toEqual({ name: 'abc-2fa', version: '1.0.0', platform: undefined });
    expect(parseGemspecFileName('nokogiri-1.13.8-x86_64-linux-musl.gemspec')).toEqual({ name: 'nokogiri', version: '1.13.8', platform: 'x86_64-linux-musl' });
    expect(parseGemspecFileName('jruby-openssl-0.14.0-java.gemspec')).toEqual({ name: 'jruby-openssl', version: '0.14.0', platform: 'java' });
    expect(parseGemspecFileName('rails-7.0.4.rc1.gemspec')).toEqual({ name: 'rails', version: '7.0.4.rc1', platform: undefined });
    expect(parseGemspecFileName('noversion.gemspec')).toBeUndefined();
  });
});

describe('readRubyLiteral', () => {
  it('reads strings and arrays, rejecting what is not a plain literal', () => {
    expect(readRubyLiteral(' "a\\"b\\\\c\\tx".freeze', 0)?.value).toBe('a"b\\c\tx');
    expect(readRubyLiteral(" 'it\\'s \\n'", 0)?.value).toBe("it's \\n");
    expect(readRubyLiteral('"\\#{not} interpolated"', 0)?.value).toBe('#{not} interpolated');
    expect(readRubyLiteral('["a".freeze,\n  # comment\n  "b", ]', 0)?.value).toEqual(['a', 'b']);
    expect(readRubyLiteral('%w<a b>', 0)?.value).toEqual(['a', 'b']);
    expect(readRubyLiteral('"\\u{1F600 41}"', 0)?.value).toBe('😀A');
    expect(readRubyLiteral('"unterminated', 0)).toBeUndefined();
    expect(readRubyLiteral('["a", b]', 0)).toBeUndefined();
    expect(readRubyLiteral('nil', 0)).toBeUndefined();
    expect(readRubyLiteral('"#@ivar"', 0)).toBeUndefined();
  });
});

describe('malformed input', () => {
  const path = `${GEMS}/rake-13.0.6.gemspec`;
  const inputs: Array<[string, Buffer]> = [
    ['empty file', Buffer.alloc(0)],
    ['binary garbage', Buffer.from([0x04, 0x08, 0x00, 0x47, 0x65, 0x6d, 0x3a, 0x3a, 0xff, 0xfe])],
    ['binary that mentions Gem::Specification', Buffer.concat([text('Gem::Specification.new do |s|\n s.name = "x"\n'), Buffer.from([0x00])])],
    ['not a gemspec', text('#!/usr/bin/env ruby\nputs "hello"\n')],
  ];

  it.each(inputs)('%s yields [] (no file-name guess for what is not a gemspec)', (_label, content) => {
    expect(parseGemspec(path, content)).toEqual([]);
    expect(gemCataloger.parse(path, content)).toEqual([]);
  });
});
