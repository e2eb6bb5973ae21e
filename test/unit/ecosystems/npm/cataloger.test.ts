import { describe, expect, it } from 'vitest';
import { npmCataloger, parsePackageJson } from '../../../../src/ecosystems/npm/cataloger.js';
import { parsePackageLock } from '../../../../src/ecosystems/npm/lockfile.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value, null, 2));

/** Installed by npm 6: the manifest carries npm's `_`-prefixed bookkeeping, author normalised to an object. */
const DEBUG_2_6_9 = {
  _from: 'debug@2.6.9',
  _id: 'debug@2.6.9',
  _inBundle: false,
  _integrity: 'sha512-bC7ElrdJaJnPbAP+1EotYvqZsb3ecl5wi6Bfi6BJTUcNowp6cvspg0jXznRTKDjm/E7AdgFBVeAPVMNcKGsHMA==',
  _location: '/debug',
  _phantomChildren: {},
  _requested: {
    type: 'version',
    registry: true,
    raw: 'debug@2.6.9',
    name: 'debug',
    escapedName: 'debug',
    rawSpec: '2.6.9',
    saveSpec: null,
    fetchSpec: '2.6.9',
  },
  _requiredBy: ['/body-parser', '/express', '/finalhandler', '/send'],
  _resolved: 'https://registry.npmjs.org/debug/-/debug-2.6.9.tgz',
  _shasum: '5d128515df134ff327e90a4c93f4e077a536341f',
  _spec: 'debug@2.6.9',
  _where: '/usr/src/app/node_modules/express',
  author: { name: 'TJ Holowaychuk', email: 'tj@vision-media.ca' },
  browser: './src/browser.js',
  bugs: { url: 'https://github.com/visionmedia/debug/issues' },
  bundleDependencies: false,
  contributors: [
    { name: 'Nathan Rajlich', email: 'nathan@tootallnate.net', url: 'http://n8.io' },
    { name: 'Andrew Rhyne', email: 'rhyneandrew@gmail.com' },
  ],
  dependencies: { ms: '2.0.0' },
  deprecated: false,
  description: 'small debugging utility',
  devDependencies: { browserify: '9.0.3', mocha: '*' },
  homepage: 'https://github.com/visionmedia/debug#readme',
  keywords: ['debug', 'log', 'debugger'],
  license: 'MIT',
  main: './src/index.js',
  name: 'debug',
  repository: { type: 'git', url: 'git://github.com/visionmedia/debug.git' },
  version: '2.6.9',
};

/** Installed by npm 9: no bookkeeping fields, scoped name. */
const TYPES_NODE = {
  name: '@types/node',
  version: '20.11.5',
  description: 'TypeScript definitions for node',
  homepage: 'https://github.com/DefinitelyTyped/DefinitelyTyped/tree/master/types/node',
  license: 'MIT',
  contributors: [{ name: 'Microsoft TypeScript', url: 'https://github.com/Microsoft' }],
  main: '',
  types: 'index.d.ts',
  repository: {
    type: 'git',
    url: 'https://github.com/DefinitelyTyped/DefinitelyTyped.git',
    directory: 'types/node',
  },
  scripts: {},
  dependencies: { 'undici-types': '~5.26.4' },
  typesPublisherContentHash: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
  typeScriptVersion: '4.6',
};

/** json-schema 0.2.3 (pulled in by request/jsprim) still used the pre-SPDX `licenses` array. */
const JSON_SCHEMA_0_2_3 = {
  author: { name: 'Kris Zyp' },
  description: 'JSON Schema validation and specifications',
  directories: { lib: './lib' },
  homepage: 'https://github.com/kriszyp/json-schema#readme',
  keywords: ['json', 'schema'],
  licenses: [
    { type: 'AFLv2.1', url: 'http://trac.dojotoolkit.org/browser/dojo/trunk/LICENSE#L43' },
    { type: 'BSD', url: 'http://trac.dojotoolkit.org/browser/dojo/trunk/LICENSE#L13' },
  ],
  main: './lib/validate.js',
  maintainers: [{ name: 'Kris Zyp', email: 'kriszyp@gmail.com' }],
  name: 'json-schema',
  repository: { type: 'git', url: 'git+ssh://git@github.com/kriszyp/json-schema.git' },
  scripts: { test: 'echo TESTS DISABLED vows --spec test/*.js' },
  version: '0.2.3',
};

describe('npmCataloger.matches', () => {
  it('matches manifests directly inside node_modules, scoped or nested at any depth', () => {
    for (const path of [
      '/usr/src/app/node_modules/debug/package.json',
      '/usr/src/app/node_modules/@types/node/package.json',
      '/usr/src/app/node_modules/body-parser/node_modules/debug/package.json',
      '/usr/lib/node_modules/npm/node_modules/@npmcli/arborist/package.json',
      '/app/node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/package.json',
      'node_modules/ms/package.json',
    ]) {
      expect(npmCataloger.matches(path), path).toBe(true);
    }
  });

  it('matches project lock files but not lock files shipped inside node_modules', () => {
    expect(npmCataloger.matches('/usr/src/app/package-lock.json')).toBe(true);
    expect(npmCataloger.matches('package-lock.json')).toBe(true);
    expect(npmCataloger.matches('/usr/src/app/node_modules/some-lib/package-lock.json')).toBe(false);
    expect(npmCataloger.matches('/usr/src/app/node_modules/.package-lock.json')).toBe(false);
  });

  it('ignores application manifests, files deeper inside a package, bookkeeping directories and look-alikes', () => {
    for (const path of [
      '/usr/src/app/package.json',
      '/usr/src/app/node_modules/@babel/runtime/helpers/esm/package.json',
      '/usr/src/app/node_modules/@types/package.json',
      '/usr/src/app/node_modules/.bin/package.json',
      '/usr/src/app/node_modules/debug/package.json.bak',
      '/usr/src/app/my-package-lock.json',
      '/usr/src/app/npm-shrinkwrap.json',
    ]) {
      expect(npmCataloger.matches(path), path).toBe(false);
    }
  });
});

describe('parsePackageJson', () => {
  it('reads an installed npm 6 manifest with author object, repository object and _resolved/_integrity', () => {
    const path = '/usr/src/app/node_modules/debug/package.json';
    expect(parsePackageJson(path, json(DEBUG_2_6_9))).toEqual([
      {
        name: 'debug',
        version: '2.6.9',
        type: 'npm',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:npm/debug@2.6.9',
        cpes: ['cpe:2.3:a:debug:debug:2.6.9:*:*:*:*:*:*:*'],
        metadata: {
          author: 'TJ Holowaychuk <tj@vision-media.ca>',
          homepage: 'https://github.com/visionmedia/debug#readme',
          repository: 'git://github.com/visionmedia/debug.git',
          resolved: 'https://registry.npmjs.org/debug/-/debug-2.6.9.tgz',
          integrity: 'sha512-bC7ElrdJaJnPbAP+1EotYvqZsb3ecl5wi6Bfi6BJTUcNowp6cvspg0jXznRTKDjm/E7AdgFBVeAPVMNcKGsHMA==',
        },
      },
    ]);
  });

  it('puts the scope in the purl namespace and uses it as the CPE vendor', () => {
    const path = '/usr/src/app/node_modules/@types/node/package.json';
    expect(parsePackageJson(path, json(TYPES_NODE))).toEqual([
      {
        name: '@types/node',
        version: '20.11.5',
        type: 'npm',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:npm/%40types/node@20.11.5',
        cpes: ['cpe:2.3:a:types:node:20.11.5:*:*:*:*:*:*:*'],
        metadata: {
          homepage: 'https://github.com/DefinitelyTyped/DefinitelyTyped/tree/master/types/node',
          repository: 'https://github.com/DefinitelyTyped/DefinitelyTyped.git',
        },
      },
    ]);
  });

  it('reads a nested copy with its own location', () => {
    const path = '/usr/src/app/node_modules/body-parser/node_modules/debug/package.json';
    const [pkg] = parsePackageJson(path, json({ ...DEBUG_2_6_9, version: '2.2.0', _resolved: undefined, _integrity: undefined }));
    expect(pkg.locations).toEqual([path]);
    expect(pkg.purl).toBe('pkg:npm/debug@2.2.0');
    expect(pkg.metadata).toEqual({
      author: 'TJ Holowaychuk <tj@vision-media.ca>',
      homepage: 'https://github.com/visionmedia/debug#readme',
      repository: 'git://github.com/visionmedia/debug.git',
    });
  });

  it('reads the legacy licenses array', () => {
    const [pkg] = parsePackageJson('/app/node_modules/json-schema/package.json', json(JSON_SCHEMA_0_2_3));
    expect(pkg.licenses).toEqual(['AFLv2.1', 'BSD']);
    expect(pkg.metadata.author).toBe('Kris Zyp');
    expect(pkg.metadata.repository).toBe('git+ssh://git@github.com/kriszyp/json-schema.git');
  });

  it('reads license as a {type, url} object, as strings in a licenses array, and keeps SPDX expressions as declared', () => {
    const p = '/app/node_modules/x/package.json';
    const licenses = (manifest: object): string[] => parsePackageJson(p, json({ name: 'x', version: '1.0.0', ...manifest }))[0].licenses;
    expect(licenses({ license: { type: 'MIT', url: 'https://opensource.org/licenses/MIT' } })).toEqual(['MIT']);
    expect(licenses({ licenses: ['MIT', 'Apache-2.0'] })).toEqual(['MIT', 'Apache-2.0']);
    expect(licenses({ licenses: { type: 'BSD' } })).toEqual(['BSD']);
    expect(licenses({ license: '(MIT OR Apache-2.0)' })).toEqual(['(MIT OR Apache-2.0)']);
    expect(licenses({ license: 'MIT', licenses: ['GPL'] })).toEqual(['MIT']);
    expect(licenses({ license: '' })).toEqual([]);
    expect(licenses({ license: 42 })).toEqual([]);
  });

  it('keeps author strings and repository shorthands as written', () => {
    const [pkg] = parsePackageJson(
      '/app/node_modules/x/package.json',
      json({ name: 'x', version: '1.0.0', author: 'Jane Doe <jane@example.com> (https://jane.example)', repository: 'github:jane/x' }),
    );
    expect(pkg.metadata).toEqual({ author: 'Jane Doe <jane@example.com> (https://jane.example)', repository: 'github:jane/x' });
  });

  it('skips manifests without a name or version, and private application manifests outside node_modules', () => {
    expect(parsePackageJson('/app/node_modules/x/package.json', json({ name: 'x' }))).toEqual([]);
    expect(parsePackageJson('/app/node_modules/x/package.json', json({ version: '1.0.0' }))).toEqual([]);
    expect(parsePackageJson('/app/node_modules/x/package.json', json({ name: 'x', version: 1 }))).toEqual([]);
    expect(parsePackageJson('/app/node_modules/x/package.json', json({ name: '  ', version: '1.0.0' }))).toEqual([]);
    expect(parsePackageJson('/app/package.json', json({ name: 'my-app', version: '1.0.0', private: true }))).toEqual([]);
    // A workspace package installed into node_modules stays a package even though it is marked private.
    expect(parsePackageJson('/app/node_modules/internal/package.json', json({ name: 'internal', version: '0.1.0', private: true }))).toHaveLength(1);
  });

  it('accepts a byte-order mark', () => {
    const content = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json({ name: 'ms', version: '2.0.0', license: 'MIT' })]);
    expect(parsePackageJson('/app/node_modules/ms/package.json', content).map((p) => p.purl)).toEqual(['pkg:npm/ms@2.0.0']);
  });
});

/** npm 6 (lockfile v1): nested `dependencies`, dev flags, a nested copy, an alias, a git and a local dependency. */
const LOCK_V1 = {
  name: 'my-app',
  version: '1.0.0',
  lockfileVersion: 1,
  requires: true,
  dependencies: {
    accepts: {
      version: '1.3.7',
      resolved: 'https://registry.npmjs.org/accepts/-/accepts-1.3.7.tgz',
      integrity: 'sha512-Il80Qs2WjYlJIBNzNkK6KYqlVMTbZLXgHx2oT0pU/fjRHyEp+PEfEPY0R3WCwAGVOtauxh1hOxNgIf5bv7dQpA==',
      requires: { 'mime-types': '~2.1.24', negotiator: '0.6.2' },
    },
    'body-parser': {
      version: '1.19.0',
      resolved: 'https://registry.npmjs.org/body-parser/-/body-parser-1.19.0.tgz',
      integrity: 'sha512-dhEPs72UPbDnAQJ9ZKMNTP6ptJaionhP5cBb541nXPlW60Jepo9RV/a4fX4XWW9CuFNK22krhrj1+rgzifNCsw==',
      requires: { debug: '2.6.9' },
      dependencies: {
        qs: {
          version: '6.7.0',
          resolved: 'https://registry.npmjs.org/qs/-/qs-6.7.0.tgz',
          integrity: 'sha512-VCdBRNFTX1fyE7Nb6FYoURo/SPe62QCaAyzJvUjwRaIsc+NePBEniHlvxFmmX56+HZphIGtV0XeCirBtpDrTyQ==',
        },
      },
    },
    debug: {
      version: '2.6.9',
      resolved: 'https://registry.npmjs.org/debug/-/debug-2.6.9.tgz',
      integrity: 'sha512-bC7ElrdJaJnPbAP+1EotYvqZsb3ecl5wi6Bfi6BJTUcNowp6cvspg0jXznRTKDjm/E7AdgFBVeAPVMNcKGsHMA==',
      requires: { ms: '2.0.0' },
    },
    mocha: {
      version: '6.2.2',
      resolved: 'https://registry.npmjs.org/mocha/-/mocha-6.2.2.tgz',
      integrity: 'sha512-FgDS9Re79yU1xz5d+C4rv1G7QagNGHZ+iXF81hO8zY35YZZcLEsJVfFolfsqKFWunATEvNzMK0r/CwWd/szO9A==',
      dev: true,
      requires: { debug: '3.2.6' },
      dependencies: {
        debug: {
          version: '3.2.6',
          resolved: 'https://registry.npmjs.org/debug/-/debug-3.2.6.tgz',
          integrity: 'sha512-mel+jf7nrtEl5Pn1Qx46zARXKDpBbvzezse7p7LqINmdoIk8PYP5SySaxEmYv6TZ0JyEKA1hsCId6DIhgITtWQ==',
          dev: true,
        },
      },
    },
    qs: {
      version: '6.9.7',
      resolved: 'https://registry.npmjs.org/qs/-/qs-6.9.7.tgz',
      integrity: 'sha512-IhMFgUmuNpyRfxA90umL7ByLlgRXu6tIfKPpF5TmcfRLlLCckfP/g3IQmju6jjpu+Hh8rA+2p6A27ZSPOOHdKw==',
    },
    'string-width-cjs': {
      version: 'npm:string-width@4.2.3',
      resolved: 'https://registry.npmjs.org/string-width/-/string-width-4.2.3.tgz',
      integrity: 'sha512-wKyQRQpjJ0sIp62ErSZdGsjMJWsap5oRNihHhu6G7JVO/9jIB6UyevL+tXuOqrng8j/cxKTWyWUwvSTriiZz/g==',
    },
    'left-pad': {
      version: 'github:stevemao/left-pad#3b6d2f0b93c4c1e2c79bbd5b21d8e2d33b5b0e0f',
      from: 'github:stevemao/left-pad',
    },
    'local-utils': { version: 'file:packages/local-utils' },
  },
};

const V1_PATH = '/usr/src/app/package-lock.json';

describe('parsePackageLock (v1)', () => {
  const packages = parsePackageLock(V1_PATH, json(LOCK_V1));

  it('reports every installed dependency, nested ones included, except local directories', () => {
    expect(packages.map((p) => `${p.name}@${p.version}`)).toEqual([
      'accepts@1.3.7',
      'body-parser@1.19.0',
      'qs@6.7.0',
      'debug@2.6.9',
      'mocha@6.2.2',
      'debug@3.2.6',
      'qs@6.9.7',
      'string-width@4.2.3',
      'left-pad@github:stevemao/left-pad#3b6d2f0b93c4c1e2c79bbd5b21d8e2d33b5b0e0f',
    ]);
  });

  it('builds the full package with resolved, integrity, dev flag and install path', () => {
    expect(packages[4]).toEqual({
      name: 'mocha',
      version: '6.2.2',
      type: 'npm',
      locations: [V1_PATH],
      licenses: [],
      purl: 'pkg:npm/mocha@6.2.2',
      cpes: ['cpe:2.3:a:mocha:mocha:6.2.2:*:*:*:*:*:*:*'],
      metadata: {
        resolved: 'https://registry.npmjs.org/mocha/-/mocha-6.2.2.tgz',
        integrity: 'sha512-FgDS9Re79yU1xz5d+C4rv1G7QagNGHZ+iXF81hO8zY35YZZcLEsJVfFolfsqKFWunATEvNzMK0r/CwWd/szO9A==',
        dev: true,
        optional: false,
        installPaths: ['node_modules/mocha'],
      },
    });
    expect(packages[5].metadata).toMatchObject({ dev: true, installPaths: ['node_modules/mocha/node_modules/debug'] });
    expect(packages[2].metadata).toMatchObject({ dev: false, installPaths: ['node_modules/body-parser/node_modules/qs'] });
  });

  it('resolves npm: aliases to the real package', () => {
    expect(packages[7].purl).toBe('pkg:npm/string-width@4.2.3');
    expect(packages[7].metadata.installPaths).toEqual(['node_modules/string-width-cjs']);
  });
});

/** npm 8 (lockfile v2): `packages` keyed by path plus the v1 `dependencies` copy, which must not double count. */
const LOCK_V2 = {
  name: 'web',
  version: '2.3.0',
  lockfileVersion: 2,
  requires: true,
  packages: {
    '': { name: 'web', version: '2.3.0', license: 'UNLICENSED', workspaces: ['packages/*'], dependencies: { '@babel/runtime': '^7.20.0', express: '^4.18.2' }, devDependencies: { jest: '^29.3.1' } },
    'node_modules/@babel/runtime': {
      version: '7.20.6',
      resolved: 'https://registry.npmjs.org/@babel/runtime/-/runtime-7.20.6.tgz',
      integrity: 'sha512-Q+8MqP7TiHMWzSfwiJwXCjyf4GYA4Dgw3emg/7xmwsdLJOZUp+nMqcOwOzzYheuM1rhDu8FSj2l0aoMygEuXuA==',
      dependencies: { 'regenerator-runtime': '^0.13.11' },
      engines: { node: '>=6.9.0' },
    },
    'node_modules/express': {
      version: '4.18.2',
      resolved: 'https://registry.npmjs.org/express/-/express-4.18.2.tgz',
      integrity: 'sha512-5/PsL6iGPdfQ/lKM1UuielYgv3BUoJfz1aUwU9vHZ+J7gyvwdQXFEBIEIaxeGf0GIcreATNyBExtalisDbuMqQ==',
      dependencies: { debug: '2.6.9' },
    },
    'node_modules/debug': {
      version: '2.6.9',
      resolved: 'https://registry.npmjs.org/debug/-/debug-2.6.9.tgz',
      integrity: 'sha512-bC7ElrdJaJnPbAP+1EotYvqZsb3ecl5wi6Bfi6BJTUcNowp6cvspg0jXznRTKDjm/E7AdgFBVeAPVMNcKGsHMA==',
    },
    'node_modules/jest': { version: '29.3.1', resolved: 'https://registry.npmjs.org/jest/-/jest-29.3.1.tgz', integrity: 'sha512-Y2p1cNmgUZg4Pl3mKdGS7+P7dpSk9iKLw7tZDGwGeMm7hI1IHhETTsq8wqrYg2gu1UvcpTEtylZ5ye1g6yR2lrw==', dev: true },
    'node_modules/jest/node_modules/debug': { version: '4.3.4', resolved: 'https://registry.npmjs.org/debug/-/debug-4.3.4.tgz', integrity: 'sha512-PRWFHuSU3eDtQJPvnNY7Jcket1j0t5OuOsFzPPzsekD52Zl8qUfFIPEiswXqIvHWGVHOgX+7G/vCNNhehwxfkQ==', dev: true },
    'node_modules/fsevents': { version: '2.3.2', resolved: 'https://registry.npmjs.org/fsevents/-/fsevents-2.3.2.tgz', integrity: 'sha512-xiqMQR4xAeHTuB9uWm+fFRcIOgKBMiOBP+eXiyT7jsgVCq1bkVygt00oASowB7EdtpOHaaPgKt812P9ab+DDKA==', dev: true, optional: true, os: ['darwin'] },
    'node_modules/@web/ui': { resolved: 'packages/ui', link: true },
    'packages/ui': { name: '@web/ui', version: '0.1.0', license: 'UNLICENSED' },
  },
  dependencies: {
    '@babel/runtime': { version: '7.20.6', resolved: 'https://registry.npmjs.org/@babel/runtime/-/runtime-7.20.6.tgz' },
    express: { version: '4.18.2' },
    debug: { version: '2.6.9' },
  },
};

describe('parsePackageLock (v2)', () => {
  const path = '/srv/web/package-lock.json';
  const packages = parsePackageLock(path, json(LOCK_V2));

  it('reads `packages`, skipping the root, workspace sources and their links, and ignores the v1 copy', () => {
    expect(packages.map((p) => p.purl)).toEqual([
      'pkg:npm/%40babel/runtime@7.20.6',
      'pkg:npm/express@4.18.2',
      'pkg:npm/debug@2.6.9',
      'pkg:npm/jest@29.3.1',
      'pkg:npm/debug@4.3.4',
      'pkg:npm/fsevents@2.3.2',
    ]);
  });

  it('names scoped packages from the path and keeps dev/optional flags', () => {
    expect(packages[0]).toEqual({
      name: '@babel/runtime',
      version: '7.20.6',
      type: 'npm',
      locations: [path],
      licenses: [],
      purl: 'pkg:npm/%40babel/runtime@7.20.6',
      cpes: ['cpe:2.3:a:babel:runtime:7.20.6:*:*:*:*:*:*:*'],
      metadata: {
        resolved: 'https://registry.npmjs.org/@babel/runtime/-/runtime-7.20.6.tgz',
        integrity: 'sha512-Q+8MqP7TiHMWzSfwiJwXCjyf4GYA4Dgw3emg/7xmwsdLJOZUp+nMqcOwOzzYheuM1rhDu8FSj2l0aoMygEuXuA==',
        dev: false,
        optional: false,
        installPaths: ['node_modules/@babel/runtime'],
      },
    });
    expect(packages[4].metadata).toMatchObject({ dev: true, installPaths: ['node_modules/jest/node_modules/debug'] });
    expect(packages[5].metadata).toMatchObject({ dev: true, optional: true });
  });
});

/** npm 10 (lockfile v3): `packages` only, with per-entry licenses, an alias, a duplicate copy and devOptional. */
const LOCK_V3 = {
  name: 'api',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'api', version: '1.0.0', dependencies: { ms: '2.1.3', 'strip-ansi-cjs': 'npm:strip-ansi@^6.0.1' } },
    'node_modules/ms': {
      version: '2.1.3',
      resolved: 'https://registry.npmjs.org/ms/-/ms-2.1.3.tgz',
      integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
      license: 'MIT',
    },
    'node_modules/strip-ansi-cjs': {
      name: 'strip-ansi',
      version: '6.0.1',
      resolved: 'https://registry.npmjs.org/strip-ansi/-/strip-ansi-6.0.1.tgz',
      integrity: 'sha512-Y38VPSHcqkFrCpFnQ9vuSXmquuv5oXOKpGeT6aGrr3o3Gc9AlVa6JBfUSOCnbxGGZF+/0ooI7KrPuUSztUdU5A==',
      license: 'MIT',
    },
    'node_modules/a/node_modules/ms': {
      version: '2.1.3',
      resolved: 'https://registry.npmjs.org/ms/-/ms-2.1.3.tgz',
      integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
      dev: true,
      license: 'MIT',
    },
    'node_modules/a': { version: '1.0.0', devOptional: true, license: { type: 'ISC' } },
    'node_modules/no-version': { resolved: 'https://registry.npmjs.org/x/-/x-1.0.0.tgz' },
    'node_modules/garbage': 'not an object',
  },
};

describe('parsePackageLock (v3)', () => {
  const path = '/app/package-lock.json';
  const packages = parsePackageLock(path, json(LOCK_V3));

  it('merges copies of one name@version, reads per-entry licenses and resolves aliases by `name`', () => {
    expect(packages).toEqual([
      {
        name: 'ms',
        version: '2.1.3',
        type: 'npm',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:npm/ms@2.1.3',
        cpes: ['cpe:2.3:a:ms:ms:2.1.3:*:*:*:*:*:*:*'],
        metadata: {
          resolved: 'https://registry.npmjs.org/ms/-/ms-2.1.3.tgz',
          integrity: 'sha512-6FlzubTLZG3J2a/NVCAleEhjzq5oxgHyaCU9yYXvcLsvoVaHJq/s5xXI6/XXP6tz7R9xAOtHnSO/tXtF3WRTlA==',
          // Not dev: one copy is a production dependency.
          dev: false,
          optional: false,
          installPaths: ['node_modules/ms', 'node_modules/a/node_modules/ms'],
        },
      },
      {
        name: 'strip-ansi',
        version: '6.0.1',
        type: 'npm',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:npm/strip-ansi@6.0.1',
        cpes: ['cpe:2.3:a:strip-ansi:strip-ansi:6.0.1:*:*:*:*:*:*:*'],
        metadata: {
          resolved: 'https://registry.npmjs.org/strip-ansi/-/strip-ansi-6.0.1.tgz',
          integrity: 'sha512-Y38VPSHcqkFrCpFnQ9vuSXmquuv5oXOKpGeT6aGrr3o3Gc9AlVa6JBfUSOCnbxGGZF+/0ooI7KrPuUSztUdU5A==',
          dev: false,
          optional: false,
          installPaths: ['node_modules/strip-ansi-cjs'],
        },
      },
      {
        name: 'a',
        version: '1.0.0',
        type: 'npm',
        locations: [path],
        licenses: ['ISC'],
        purl: 'pkg:npm/a@1.0.0',
        cpes: ['cpe:2.3:a:a:a:1.0.0:*:*:*:*:*:*:*'],
        metadata: { dev: false, optional: false, devOptional: true, installPaths: ['node_modules/a'] },
      },
    ]);
  });

  it('returns [] for a lock file with only the root project', () => {
    expect(parsePackageLock(path, json({ name: 'api', version: '1.0.0', lockfileVersion: 3, packages: { '': { name: 'api' } } }))).toEqual([]);
  });
});

describe('malformed input', () => {
  const inputs: Array<[string, Buffer]> = [
    ['empty file', Buffer.alloc(0)],
    ['invalid JSON', Buffer.from('{"name": "debug", "version": "2.6.9",')],
    ['binary garbage', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00, 0x7b, 0x22, 0x9c, 0x01])],
    ['a JSON array', Buffer.from('[{"name":"x","version":"1"}]')],
    ['JSON null', Buffer.from('null')],
    ['wrong field types', json({ name: ['x'], version: { v: 1 }, packages: [1, 2], dependencies: 'x' })],
    ['v1 with non-object entries', json({ lockfileVersion: 1, dependencies: { a: null, b: 7, c: { version: 3, dependencies: [] } } })],
  ];

  it.each(inputs)('%s yields [] from both parsers and the cataloger', (_label, content) => {
    expect(parsePackageJson('/app/node_modules/x/package.json', content)).toEqual([]);
    expect(parsePackageLock('/app/package-lock.json', content)).toEqual([]);
    expect(npmCataloger.parse('/app/node_modules/x/package.json', content)).toEqual([]);
    expect(npmCataloger.parse('/app/package-lock.json', content)).toEqual([]);
  });

  it('skips names that cannot be npm package names instead of building broken purls', () => {
    for (const name of ['a/b', '@/x', '@a/b/c', 'has space']) {
      expect(parsePackageJson('/app/node_modules/x/package.json', json({ name, version: '1.0.0' })), name).toEqual([]);
    }
    const lock = { lockfileVersion: 3, packages: { 'node_modules/ ': { version: '1.0.0' }, 'node_modules/x': { name: 'a b', version: '1.0.0' } } };
    expect(parsePackageLock('/app/package-lock.json', json(lock))).toEqual([]);
    expect(parsePackageLock('/app/package-lock.json', json({ lockfileVersion: 1, dependencies: { ' ': { version: '1.0.0' } } }))).toEqual([]);
  });

  it('dispatches lock files and manifests to the right parser', () => {
    expect(npmCataloger.parse('/app/package-lock.json', json(LOCK_V3))).toHaveLength(3);
    expect(npmCataloger.parse('/app/node_modules/debug/package.json', json(DEBUG_2_6_9))).toHaveLength(1);
  });
});

describe('npmCataloger.finalize', () => {
  it('folds lock-file entries into the installed packages they describe and keeps lock-only ones', () => {
    const installed = parsePackageJson('/app/node_modules/debug/package.json', Buffer.from(JSON.stringify({ name: 'debug', version: '4.3.4' })));
    const lock = parsePackageLock(
      '/app/package-lock.json',
      Buffer.from(
        JSON.stringify({
          lockfileVersion: 3,
          packages: { '': { name: 'app' }, 'node_modules/debug': { version: '4.3.4' }, 'node_modules/ms': { version: '2.1.2' } },
        }),
      ),
    );
    const result = npmCataloger.finalize!([...installed, ...lock], undefined);
    expect(result.map((p) => `${p.name}@${p.version} ${p.locations.join(',')}`).sort()).toEqual([
      'debug@4.3.4 /app/node_modules/debug/package.json,/app/package-lock.json',
      'ms@2.1.2 /app/package-lock.json',
    ]);
  });
});
