import { describe, expect, it } from 'vitest';
import { composerCataloger, isComposerInstalledJson, isComposerLock } from '../../../../src/ecosystems/composer/cataloger.js';
import type { CatalogedPackage } from '../../../../src/ecosystems/model.js';
import { COMPOSER_INSTALLED_JSON, COMPOSER_LOCK } from '../../../support/language-fixtures.js';

const parse = (path: string, content: string | Buffer) => composerCataloger.parse(path, Buffer.from(content)) as CatalogedPackage[];

describe('composer.lock', () => {
  it('lists packages and dev packages with purl, licenses and source', () => {
    const pkgs = parse('/var/www/composer.lock', COMPOSER_LOCK);
    expect(pkgs.map((p) => p.purl)).toEqual([
      'pkg:composer/guzzlehttp/psr7@2.4.1',
      'pkg:composer/symfony/http-foundation@v6.4.0',
      'pkg:composer/monolog/monolog@3.5.0',
      'pkg:composer/phpunit/phpunit@10.5.1',
    ]);
    expect(pkgs[1]).toMatchObject({
      name: 'symfony/http-foundation',
      version: 'v6.4.0',
      type: 'composer',
      licenses: ['MIT'],
      cpes: ['cpe:2.3:a:symfony:http-foundation:6.4.0:*:*:*:*:*:*:*'],
      metadata: { packageType: 'library', source: { type: 'git', url: 'https://github.com/symfony/http-foundation.git', reference: '44a6d39a9cc11e154547d882d5aac1e014440771' } },
    });
    expect(pkgs.map((p) => p.metadata.dev ?? false)).toEqual([false, false, false, true]);
  });

  it('lower-cases names as Composer does and skips entries that are not packages', () => {
    const lock = { packages: [{ name: 'Vendor/Pkg', version: '1.0.0' }, { name: 'no-slash', version: '1.0.0' }, { name: 'a/b' }, 'x', { name: 'a/c', version: 'dev-main' }] };
    expect(parse('/app/composer.lock', JSON.stringify(lock)).map((p) => `${p.name}@${p.version}`)).toEqual(['vendor/pkg@1.0.0', 'a/c@dev-main']);
  });

  it('reads project lock files, not those shipped inside vendor/', () => {
    expect(isComposerLock('/var/www/composer.lock')).toBe(true);
    expect(isComposerLock('/var/www/vendor/monolog/monolog/composer.lock')).toBe(false);
    expect(isComposerInstalledJson('/var/www/vendor/composer/installed.json')).toBe(true);
  });
});

describe('vendor/composer/installed.json', () => {
  it('reads the Composer 2 object form with its dev package names', () => {
    const installed = JSON.parse(COMPOSER_INSTALLED_JSON);
    installed['dev-package-names'] = ['monolog/monolog'];
    const pkgs = parse('/var/www/vendor/composer/installed.json', JSON.stringify(installed));
    expect(pkgs.map((p) => `${p.name}@${p.version}${p.metadata.dev ? ' (dev)' : ''}`)).toEqual(['guzzlehttp/psr7@2.4.1', 'symfony/http-foundation@v6.4.0', 'monolog/monolog@3.5.0 (dev)']);
  });

  it('reads the Composer 1 array form', () => {
    const pkgs = parse('/srv/vendor/composer/installed.json', JSON.stringify(JSON.parse(COMPOSER_INSTALLED_JSON).packages));
    expect(pkgs).toHaveLength(3);
  });

  it('lists a package found in the lock file and installed once, with both locations', () => {
    const found = [...parse('/var/www/composer.lock', COMPOSER_LOCK), ...parse('/var/www/vendor/composer/installed.json', COMPOSER_INSTALLED_JSON)];
    const merged = composerCataloger.finalize!(found, undefined);
    expect(merged.map((p) => [p.name, p.locations])).toEqual([
      ['phpunit/phpunit', ['/var/www/composer.lock']],
      ['guzzlehttp/psr7', ['/var/www/vendor/composer/installed.json', '/var/www/composer.lock']],
      ['symfony/http-foundation', ['/var/www/vendor/composer/installed.json', '/var/www/composer.lock']],
      ['monolog/monolog', ['/var/www/vendor/composer/installed.json', '/var/www/composer.lock']],
    ]);
  });

  it('yields nothing for garbage', () => {
    for (const junk of ['', '{', '5', '{"packages":{}}', '\0']) expect(parse('/a/vendor/composer/installed.json', junk)).toEqual([]);
    for (const junk of ['', '[]', '{"packages":"x"}']) expect(parse('/a/composer.lock', junk)).toEqual([]);
  });
});
