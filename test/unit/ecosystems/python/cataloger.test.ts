import { describe, expect, it } from 'vitest';
import { normalizePythonName, parsePythonMetadata, pythonCataloger } from '../../../../src/ecosystems/python/cataloger.js';
import { asSpdxExpression, pythonLicenses } from '../../../../src/ecosystems/python/licenses.js';
import { parseHeaderFields } from '../../../../src/formats/rfc822.js';

const SITE = '/usr/local/lib/python3.11/site-packages';

/** requests-2.28.1.dist-info/METADATA as built by setuptools/wheel (Markdown long description in the body). */
const REQUESTS_2_28_1 = `Metadata-Version: 2.1
Name: requests
Version: 2.28.1
Summary: Python HTTP for Humans.
Home-page: https://requests.readthedocs.io
Author: Kenneth Reitz
Author-email: me@kennethreitz.org
License: Apache 2.0
Project-URL: Documentation, https://requests.readthedocs.io
Project-URL: Source, https://github.com/psf/requests
Platform: UNKNOWN
Classifier: Development Status :: 5 - Production/Stable
Classifier: Environment :: Web Environment
Classifier: Intended Audience :: Developers
Classifier: License :: OSI Approved :: Apache Software License
Classifier: Natural Language :: English
Classifier: Operating System :: OS Independent
Classifier: Programming Language :: Python
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3.7
Classifier: Programming Language :: Python :: 3.8
Classifier: Programming Language :: Python :: 3.9
Classifier: Programming Language :: Python :: 3.10
Classifier: Programming Language :: Python :: 3.11
Classifier: Programming Language :: Python :: 3 :: Only
Classifier: Programming Language :: Python :: Implementation :: CPython
Classifier: Programming Language :: Python :: Implementation :: PyPy
Classifier: Topic :: Internet :: WWW/HTTP
Classifier: Topic :: Software Development :: Libraries
Requires-Python: >=3.7, <4
Description-Content-Type: text/markdown
License-File: LICENSE
Requires-Dist: charset-normalizer (<3,>=2)
Requires-Dist: idna (<4,>=2.5)
Requires-Dist: urllib3 (<1.27,>=1.21.1)
Requires-Dist: certifi (>=2017.4.17)
Provides-Extra: socks
Requires-Dist: PySocks (!=1.5.7,>=1.5.6) ; extra == 'socks'
Provides-Extra: use_chardet_on_py3
Requires-Dist: chardet (<6,>=3.0.2) ; extra == 'use_chardet_on_py3'

# Requests

**Requests** is a simple, yet elegant, HTTP library.

\`\`\`python
>>> import requests
>>> r = requests.get('https://httpbin.org/basic-auth/user/pass', auth=('user', 'pass'))
>>> r.status_code
200
>>> r.headers['content-type']
'application/json; charset=utf8'
\`\`\`

Requests allows you to send HTTP/1.1 requests extremely easily. There's no need to manually add query strings to
your URLs, or to form-encode your \`PUT\` & \`POST\` data — but nowadays, just use the \`json\` method!

Requests is one of the most downloaded Python packages today, pulling in around \`30M downloads / week\`.

## Installing Requests and Supported Versions

Requests is available on PyPI:

\`\`\`console
$ python -m pip install requests
\`\`\`
`;

/** urllib3-1.26.12.dist-info/METADATA: reStructuredText body that itself contains header-like lines. */
const URLLIB3_1_26_12 = `Metadata-Version: 2.1
Name: urllib3
Version: 1.26.12
Summary: HTTP library with thread-safe connection pooling, file post, and more.
Home-page: https://urllib3.readthedocs.io/
Author: Andrey Petrov
Author-email: andrey.petrov@shazow.net
License: MIT
Project-URL: Documentation, https://urllib3.readthedocs.io/
Project-URL: Code, https://github.com/urllib3/urllib3
Project-URL: Issue tracker, https://github.com/urllib3/urllib3/issues
Keywords: urllib httplib threadsafe filepost http https ssl pooling
Platform: UNKNOWN
Classifier: Environment :: Web Environment
Classifier: Intended Audience :: Developers
Classifier: License :: OSI Approved :: MIT License
Classifier: Operating System :: OS Independent
Classifier: Programming Language :: Python
Classifier: Programming Language :: Python :: 2
Classifier: Programming Language :: Python :: 2.7
Classifier: Programming Language :: Python :: 3
Classifier: Programming Language :: Python :: 3.6
Classifier: Programming Language :: Python :: 3.7
Classifier: Programming Language :: Python :: 3.8
Classifier: Programming Language :: Python :: 3.9
Classifier: Programming Language :: Python :: 3.10
Classifier: Programming Language :: Python :: 3.11
Classifier: Programming Language :: Python :: Implementation :: CPython
Classifier: Programming Language :: Python :: Implementation :: PyPy
Classifier: Topic :: Internet :: WWW/HTTP
Classifier: Topic :: Software Development :: Libraries
Requires-Python: >=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*, !=3.4.*, !=3.5.*, <4
Description-Content-Type: text/x-rst
License-File: LICENSE.txt
Provides-Extra: brotli
Requires-Dist: brotlicffi (>=0.8.0) ; ((os_name != "nt" or python_version >= "3") and platform_python_implementation != "CPython") and extra == 'brotli'
Requires-Dist: Brotli (>=1.0.9) ; ((os_name != "nt" or python_version >= "3") and platform_python_implementation == "CPython") and extra == 'brotli'
Requires-Dist: brotlipy (>=0.6.0) ; (os_name == "nt" and python_version < "3") and extra == 'brotli'
Provides-Extra: secure
Requires-Dist: pyOpenSSL (>=0.14) ; extra == 'secure'
Requires-Dist: cryptography (>=1.3.4) ; extra == 'secure'
Requires-Dist: idna (>=2.0.0) ; extra == 'secure'
Requires-Dist: certifi ; extra == 'secure'
Requires-Dist: urllib3-secure-extra ; extra == 'secure'
Requires-Dist: ipaddress ; (python_version == "2.7") and extra == 'secure'
Provides-Extra: socks
Requires-Dist: PySocks (!=1.5.7,<2.0,>=1.5.6) ; extra == 'socks'


urllib3 is a powerful, *user-friendly* HTTP client for Python. Much of the
Python ecosystem already uses urllib3 and you should too.

.. code-block:: python

    >>> import urllib3
    >>> http = urllib3.PoolManager()
    >>> r = http.request('GET', 'http://httpbin.org/robots.txt')
    >>> r.status
    200

Changes
=======

1.26.12 (2022-08-22)
--------------------

Name: not-a-header
Version: 0.0.0
License: GPL

* Deprecated the \`urllib3[secure]\` extra and the \`urllib3.contrib.pyopenssl\` module.
`;

/** setuptools folds blank description lines to 8 spaces (kept explicit here so editors cannot strip them). */
const FOLDED_BLANK_LINE = ' '.repeat(8);

/** six-1.16.0.egg-info/PKG-INFO (Metadata 1.1): the description is a folded header, indented by 8 spaces. */
const SIX_1_16_0 = `Metadata-Version: 1.1
Name: six
Version: 1.16.0
Summary: Python 2 and 3 compatibility utilities
Home-page: https://github.com/benjaminp/six
Author: Benjamin Peterson
Author-email: benjamin@python.org
License: MIT
Description: .. image:: https://img.shields.io/pypi/v/six.svg
           :target: https://pypi.org/project/six/
           :alt: six on PyPI
${FOLDED_BLANK_LINE}
        Six is a Python 2 and 3 compatibility library.  It provides utility functions
        for smoothing over the differences between the Python versions with the goal of
        writing Python code that is compatible on both Python versions.
${FOLDED_BLANK_LINE}
        Version: 9.9.9
        License: not this one
Platform: UNKNOWN
Classifier: Development Status :: 5 - Production/Stable
Classifier: Programming Language :: Python :: 2
Classifier: Programming Language :: Python :: 3
Classifier: Intended Audience :: Developers
Classifier: License :: OSI Approved :: MIT License
Classifier: Topic :: Software Development :: Libraries
Classifier: Topic :: Utilities
Requires-Python: >=2.7, !=3.0.*, !=3.1.*, !=3.2.*
`;

/** Debian's python3-apt installs a single-file egg-info: /usr/lib/python3/dist-packages/python_apt-2.2.1.egg-info. */
const PYTHON_APT_EGG_INFO = `Metadata-Version: 1.1
Name: python-apt
Version: 2.2.1
Summary: Python bindings for APT
Home-page: UNKNOWN
Author: APT Development Team
Author-email: deity@lists.debian.org
License: GNU GPL
Description: UNKNOWN
Platform: posix
Classifier: Development Status :: 5 - Production/Stable
Classifier: Environment :: Console
Classifier: Intended Audience :: Developers
Classifier: License :: OSI Approved :: GNU General Public License (GPL)
Classifier: Operating System :: POSIX :: Linux
Classifier: Programming Language :: C
Classifier: Programming Language :: C++
Classifier: Programming Language :: Python
Classifier: Programming Language :: Python :: 2
Classifier: Programming Language :: Python :: 3
Classifier: Topic :: System :: Package Management
`;

const text = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('pythonCataloger.matches', () => {
  it('matches dist-info METADATA, egg-info PKG-INFO and single-file egg-info', () => {
    for (const path of [
      `${SITE}/requests-2.28.1.dist-info/METADATA`,
      `${SITE}/six-1.16.0-py3.11.egg-info/PKG-INFO`,
      '/usr/lib/python3/dist-packages/python_apt-2.2.1.egg-info',
      '/app/src/myproject.egg-info/PKG-INFO',
    ]) {
      expect(pythonCataloger.matches(path), path).toBe(true);
    }
  });

  it('ignores other files in those directories and look-alikes', () => {
    for (const path of [
      `${SITE}/requests-2.28.1.dist-info/RECORD`,
      `${SITE}/requests-2.28.1.dist-info/WHEEL`,
      `${SITE}/requests-2.28.1.dist-info/METADATA.bak`,
      `${SITE}/six-1.16.0-py3.11.egg-info/SOURCES.txt`,
      `${SITE}/requests/METADATA`,
      `${SITE}/.dist-info/METADATA`,
      `${SITE}/PKG-INFO`,
    ]) {
      expect(pythonCataloger.matches(path), path).toBe(false);
    }
  });
});

describe('parsePythonMetadata', () => {
  it('reads requests 2.28.1: maps "Apache 2.0" to SPDX, keeps Requires-Dist, ignores the body', () => {
    const path = `${SITE}/requests-2.28.1.dist-info/METADATA`;
    expect(parsePythonMetadata(path, text(REQUESTS_2_28_1))).toEqual([
      {
        name: 'requests',
        version: '2.28.1',
        type: 'python',
        locations: [path],
        licenses: ['Apache-2.0'],
        purl: 'pkg:pypi/requests@2.28.1',
        cpes: ['cpe:2.3:a:python:requests:2.28.1:*:*:*:*:*:*:*'],
        metadata: {
          metadataVersion: '2.1',
          summary: 'Python HTTP for Humans.',
          author: 'Kenneth Reitz',
          authorEmail: 'me@kennethreitz.org',
          homePage: 'https://requests.readthedocs.io',
          requiresPython: '>=3.7, <4',
          requiresDist: [
            'charset-normalizer (<3,>=2)',
            'idna (<4,>=2.5)',
            'urllib3 (<1.27,>=1.21.1)',
            'certifi (>=2017.4.17)',
            "PySocks (!=1.5.7,>=1.5.6) ; extra == 'socks'",
            "chardet (<6,>=3.0.2) ; extra == 'use_chardet_on_py3'",
          ],
          sitePackagesPath: SITE,
        },
      },
    ]);
  });

  it('reads urllib3 1.26.12 and is not fooled by header-like lines in the description body', () => {
    const path = `${SITE}/urllib3-1.26.12.dist-info/METADATA`;
    const [pkg] = parsePythonMetadata(path, text(URLLIB3_1_26_12));
    expect(pkg.name).toBe('urllib3');
    expect(pkg.version).toBe('1.26.12');
    expect(pkg.licenses).toEqual(['MIT']);
    expect(pkg.purl).toBe('pkg:pypi/urllib3@1.26.12');
    expect(pkg.cpes).toEqual(['cpe:2.3:a:python:urllib3:1.26.12:*:*:*:*:*:*:*']);
    expect(pkg.locations).toEqual([path]);
    expect(pkg.metadata.requiresDist).toHaveLength(10);
    expect((pkg.metadata.requiresDist as string[])[0]).toBe(
      `brotlicffi (>=0.8.0) ; ((os_name != "nt" or python_version >= "3") and platform_python_implementation != "CPython") and extra == 'brotli'`,
    );
    expect(pkg.metadata.author).toBe('Andrey Petrov');
    expect(pkg.metadata.homePage).toBe('https://urllib3.readthedocs.io/');
  });

  it('reads an old egg-info PKG-INFO whose folded Description contains header-like lines', () => {
    const path = `${SITE}/six-1.16.0-py3.11.egg-info/PKG-INFO`;
    expect(parsePythonMetadata(path, text(SIX_1_16_0))).toEqual([
      {
        name: 'six',
        version: '1.16.0',
        type: 'python',
        locations: [path],
        licenses: ['MIT'],
        purl: 'pkg:pypi/six@1.16.0',
        cpes: ['cpe:2.3:a:python:six:1.16.0:*:*:*:*:*:*:*'],
        metadata: {
          metadataVersion: '1.1',
          summary: 'Python 2 and 3 compatibility utilities',
          author: 'Benjamin Peterson',
          authorEmail: 'benjamin@python.org',
          homePage: 'https://github.com/benjaminp/six',
          requiresPython: '>=2.7, !=3.0.*, !=3.1.*, !=3.2.*',
          requiresDist: [],
          sitePackagesPath: SITE,
        },
      },
    ]);
  });

  it('reads a single-file egg-info: PEP 503 purl name, declared name kept, UNKNOWN fields dropped, free-text license kept', () => {
    const path = '/usr/lib/python3/dist-packages/python_apt-2.2.1.egg-info';
    expect(parsePythonMetadata(path, text(PYTHON_APT_EGG_INFO))).toEqual([
      {
        name: 'python-apt',
        version: '2.2.1',
        type: 'python',
        locations: [path],
        licenses: ['GNU GPL'],
        purl: 'pkg:pypi/python-apt@2.2.1',
        cpes: ['cpe:2.3:a:python:python-apt:2.2.1:*:*:*:*:*:*:*'],
        metadata: {
          metadataVersion: '1.1',
          summary: 'Python bindings for APT',
          author: 'APT Development Team',
          authorEmail: 'deity@lists.debian.org',
          requiresDist: [],
          sitePackagesPath: '/usr/lib/python3/dist-packages',
        },
      },
    ]);
  });

  it('normalises the purl name per PEP 503 but reports the declared name', () => {
    const meta = (name: string): string => `Metadata-Version: 2.1\nName: ${name}\nVersion: 1.0\n`;
    const path = `${SITE}/x-1.0.dist-info/METADATA`;
    expect(parsePythonMetadata(path, text(meta('typing_extensions')))[0]).toMatchObject({ name: 'typing_extensions', purl: 'pkg:pypi/typing-extensions@1.0' });
    expect(parsePythonMetadata(path, text(meta('PyYAML')))[0]).toMatchObject({ name: 'PyYAML', purl: 'pkg:pypi/pyyaml@1.0' });
    expect(parsePythonMetadata(path, text(meta('zope.interface')))[0]).toMatchObject({ name: 'zope.interface', purl: 'pkg:pypi/zope-interface@1.0' });
    expect(normalizePythonName('Foo__Bar-.baz')).toBe('foo-bar-baz');
  });

  it('prefers License-Expression (Metadata 2.4) and takes the homepage from Project-URL', () => {
    const attrs = `Metadata-Version: 2.4
Name: attrs
Version: 25.3.0
Summary: Classes Without Boilerplate
Project-URL: Documentation, https://www.attrs.org/
Project-URL: Homepage, https://www.attrs.org/en/stable/
Author-email: Hynek Schlawack <hs@ox.cx>
License-Expression: MIT
License-File: LICENSE
Classifier: Programming Language :: Python :: 3.13
Requires-Python: >=3.8
`;
    const [pkg] = parsePythonMetadata(`${SITE}/attrs-25.3.0.dist-info/METADATA`, text(attrs));
    expect(pkg.licenses).toEqual(['MIT']);
    expect(pkg.metadata.homePage).toBe('https://www.attrs.org/en/stable/');
    expect(pkg.metadata.authorEmail).toBe('Hynek Schlawack <hs@ox.cx>');
    expect(pkg.metadata.author).toBeUndefined();
  });

  it('handles CRLF line endings and case-insensitive field names', () => {
    const crlf = 'metadata-version: 2.1\r\nNAME: certifi\r\nversion: 2022.9.24\r\nlicense: MPL-2.0\r\n\r\nName: not-this\r\nVersion: 0\r\n';
    expect(parsePythonMetadata(`${SITE}/certifi-2022.9.24.dist-info/METADATA`, text(crlf))[0]).toMatchObject({
      name: 'certifi',
      version: '2022.9.24',
      licenses: ['MPL-2.0'],
    });
  });
});

describe('pythonLicenses', () => {
  const numpyLicenseText = `Copyright (c) 2005-2020, NumPy Developers.
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:`;

  it('follows the documented precedence', () => {
    // License-Expression wins outright, re-cased to SPDX.
    expect(pythonLicenses({ licenseExpression: 'mit or apache-2.0', license: 'BSD', classifiers: [] })).toEqual(['MIT OR Apache-2.0']);
    // A recognised License field beats classifiers (and keeps OR semantics).
    expect(pythonLicenses({ license: 'Apache-2.0 OR MIT', classifiers: ['License :: OSI Approved :: MIT License'] })).toEqual(['Apache-2.0 OR MIT']);
    expect(pythonLicenses({ license: 'GPL-2.0+', classifiers: [] })).toEqual(['GPL-2.0+']);
    // Unrecognised free text yields to classifiers that all map with certainty.
    expect(
      pythonLicenses({
        license: 'Dual License',
        classifiers: ['License :: OSI Approved :: MIT License', 'License :: OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)'],
      }),
    ).toEqual(['MIT', 'LGPL-3.0-or-later']);
    // ...but not to classifiers that do not pin a license down.
    expect(pythonLicenses({ license: 'new-style BSD', classifiers: ['License :: OSI Approved :: BSD License'] })).toEqual(['new-style BSD']);
    // No usable field: classifier SPDX ids where certain, classifier names otherwise.
    expect(
      pythonLicenses({
        license: 'UNKNOWN',
        classifiers: ['License :: OSI Approved', 'License :: OSI Approved :: BSD License', 'License :: OSI Approved :: MIT License'],
      }),
    ).toEqual(['BSD License', 'MIT']);
    // A pasted license text is not a license name.
    expect(pythonLicenses({ license: numpyLicenseText, classifiers: ['License :: OSI Approved :: BSD License'] })).toEqual(['BSD License']);
    expect(pythonLicenses({ license: 'x'.repeat(200), classifiers: [] })).toEqual([]);
    expect(pythonLicenses({ classifiers: [] })).toEqual([]);
  });

  it('maps only classifiers that name one license version', () => {
    const one = (c: string): string[] => pythonLicenses({ classifiers: [c] });
    expect(one('License :: OSI Approved :: GNU General Public License v2 (GPLv2)')).toEqual(['GPL-2.0-only']);
    expect(one('License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)')).toEqual(['GPL-3.0-or-later']);
    expect(one('License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)')).toEqual(['MPL-2.0']);
    expect(one('License :: OSI Approved :: Python Software Foundation License')).toEqual(['PSF-2.0']);
    expect(one('License :: CC0 1.0 Universal (CC0 1.0) Public Domain Dedication')).toEqual(['CC0-1.0']);
    expect(one('License :: OSI Approved :: Apache Software License')).toEqual(['Apache Software License']);
    expect(one('License :: OSI Approved :: GNU General Public License (GPL)')).toEqual(['GNU General Public License (GPL)']);
  });

  it('recognises SPDX expressions only when every token is known', () => {
    expect(asSpdxExpression('(mit OR apache-2.0) AND bsd-3-clause')).toBe('(MIT OR Apache-2.0) AND BSD-3-Clause');
    expect(asSpdxExpression('Apache-2.0 WITH LLVM-exception')).toBe('Apache-2.0 WITH LLVM-exception');
    expect(asSpdxExpression('LicenseRef-Proprietary')).toBe('LicenseRef-Proprietary');
    expect(asSpdxExpression('BSD')).toBeUndefined();
    expect(asSpdxExpression('MIT or something')).toBeUndefined();
    expect(asSpdxExpression('OR')).toBeUndefined();
  });
});

describe('parseHeaderFields', () => {
  it('collects repeated fields, unfolds continuations and stops at the first empty line', () => {
    const fields = parseHeaderFields('A: 1\nB: x\n  y\nA: 2\nnot a header line\n  dropped\nC:\n\nA: body');
    expect(fields.get('a')).toEqual(['1', '2']);
    expect(fields.get('b')).toEqual(['x\ny']);
    expect(fields.get('c')).toEqual(['']);
    expect(fields.size).toBe(3);
  });
});

describe('malformed input', () => {
  const path = `${SITE}/x-1.0.dist-info/METADATA`;
  const inputs: Array<[string, Buffer]> = [
    ['empty file', Buffer.alloc(0)],
    ['binary garbage', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x4e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0x78])],
    ['binary with a header-like prefix', Buffer.concat([text('Name: x\nVersion: 1.0\n'), Buffer.from([0x00, 0xff, 0xfe])])],
    ['no version', text('Metadata-Version: 2.1\nName: x\n')],
    ['no name', text('Metadata-Version: 2.1\nVersion: 1.0\n')],
    ['headers only in the body', text('\nName: x\nVersion: 1.0\n')],
    ['invalid distribution name', text('Name: <html>\nVersion: 1.0\n')],
    ['folded name', text('Name: x\n  y\nVersion: 1.0\n')],
    ['JSON instead of headers', text('{"Name": "x", "Version": "1.0"}')],
  ];

  it.each(inputs)('%s yields []', (_label, content) => {
    expect(parsePythonMetadata(path, content)).toEqual([]);
    expect(pythonCataloger.parse(path, content)).toEqual([]);
  });
});
