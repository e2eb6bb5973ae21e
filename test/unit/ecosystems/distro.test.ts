import { describe, expect, it } from 'vitest';
import { DISTRO_FILES, detectDistro, distroQualifier, parseOsRelease, parseRedhatRelease } from '../../../src/ecosystems/distro.js';

const DEBIAN_12 = `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
`;

const UBUNTU_2204 = `PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=jammy
`;

const ALPINE_319 = `NAME="Alpine Linux"
ID=alpine
VERSION_ID=3.19.1
PRETTY_NAME="Alpine Linux v3.19"
HOME_URL="https://alpinelinux.org/"
BUG_REPORT_URL="https://gitlab.alpinelinux.org/alpine/aports/-/issues"
`;

const ROCKY_9 = `NAME="Rocky Linux"
VERSION="9.3 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.3"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Rocky Linux 9.3 (Blue Onyx)"
ANSI_COLOR="0;32"
CPE_NAME="cpe:/o:rocky:rocky:9::baseos"
`;

const buf = (s: string) => Buffer.from(s);

describe('parseOsRelease', () => {
  it('reads real os-release files', () => {
    expect(parseOsRelease(DEBIAN_12)).toEqual({ name: 'debian', version: '12', like: [], prettyName: 'Debian GNU/Linux 12 (bookworm)' });
    expect(parseOsRelease(UBUNTU_2204)).toEqual({ name: 'ubuntu', version: '22.04', like: ['debian'], prettyName: 'Ubuntu 22.04.4 LTS' });
    expect(parseOsRelease(ALPINE_319)).toEqual({ name: 'alpine', version: '3.19.1', like: [], prettyName: 'Alpine Linux v3.19' });
    expect(parseOsRelease(ROCKY_9)).toEqual({ name: 'rocky', version: '9.3', like: ['rhel', 'centos', 'fedora'], prettyName: 'Rocky Linux 9.3 (Blue Onyx)' });
  });

  it('handles comments, blank lines, single quotes, escapes, CRLF and whitespace', () => {
    const text = [
      '# written by hand',
      '',
      "ID='amzn'",
      '  VERSION_ID="2023"  ',
      'ID_LIKE="fedora"',
      'PRETTY_NAME="Amazon \\"Linux\\" 2023 \\$ \\\\ \\`x\\`"',
      'not an assignment',
      '#ID=commented-out',
    ].join('\r\n');
    expect(parseOsRelease(text)).toEqual({ name: 'amzn', version: '2023', like: ['fedora'], prettyName: 'Amazon "Linux" 2023 $ \\ `x`' });
  });

  it('lower-cases ID and ID_LIKE and defaults ID to linux', () => {
    expect(parseOsRelease('ID=Debian\nID_LIKE="RHEL  Fedora"\n')).toMatchObject({ name: 'debian', like: ['rhel', 'fedora'] });
    expect(parseOsRelease('')).toEqual({ name: 'linux', version: '', like: [] });
  });

  it('keeps the last assignment of a repeated key, as a shell would', () => {
    expect(parseOsRelease('ID=a\nID=b\n').name).toBe('b');
  });
});

describe('parseRedhatRelease', () => {
  it('maps the release banner to os-release style ID and VERSION_ID', () => {
    expect(parseRedhatRelease('Red Hat Enterprise Linux Server release 7.9 (Maipo)\n')).toMatchObject({ name: 'rhel', version: '7.9', like: ['fedora'] });
    expect(parseRedhatRelease('CentOS Linux release 7.9.2009 (Core)\n')).toMatchObject({ name: 'centos', version: '7', like: ['rhel', 'fedora'] });
    expect(parseRedhatRelease('Rocky Linux release 8.9 (Green Obsidian)')).toMatchObject({ name: 'rocky', version: '8.9' });
    expect(parseRedhatRelease('Fedora release 39 (Thirty Nine)')).toMatchObject({ name: 'fedora', version: '39' });
    expect(parseRedhatRelease('')).toBeUndefined();
  });
});

describe('detectDistro', () => {
  it('asks the walker for every file it reads', () => {
    expect(DISTRO_FILES).toEqual([
      '/etc/os-release',
      '/usr/lib/os-release',
      '/etc/alpine-release',
      '/etc/debian_version',
      '/etc/redhat-release',
      '/etc/centos-release',
    ]);
  });

  it('prefers /etc/os-release, then /usr/lib/os-release', () => {
    const both = new Map([
      ['/etc/os-release', buf(UBUNTU_2204)],
      ['/usr/lib/os-release', buf(DEBIAN_12)],
      ['/etc/debian_version', buf('bookworm/sid\n')],
    ]);
    expect(detectDistro(both)).toMatchObject({ name: 'ubuntu', version: '22.04' });
    // Debian's /etc/os-release is a symlink to ../usr/lib/os-release; a walker that skips symlinks still finds it.
    expect(detectDistro(new Map([['/usr/lib/os-release', buf(DEBIAN_12)]]))).toMatchObject({ name: 'debian', version: '12' });
  });

  it('skips an os-release that says nothing and uses the fallbacks', () => {
    const files = new Map([
      ['/etc/os-release', buf('# empty\n')],
      ['/etc/alpine-release', buf('3.18.4\n')],
    ]);
    expect(detectDistro(files)).toEqual({ name: 'alpine', version: '3.18.4', like: [], prettyName: 'Alpine Linux v3.18.4' });
  });

  it('falls back to debian_version, taking the major version as os-release does', () => {
    expect(detectDistro(new Map([['/etc/debian_version', buf('12.5\n')]]))).toMatchObject({ name: 'debian', version: '12' });
    expect(detectDistro(new Map([['/etc/debian_version', buf('bookworm/sid\n')]]))).toMatchObject({ name: 'debian', version: '' });
  });

  it('falls back to redhat-release, then centos-release', () => {
    expect(
      detectDistro(
        new Map([
          ['/etc/redhat-release', buf('Red Hat Enterprise Linux release 8.9 (Ootpa)\n')],
          ['/etc/centos-release', buf('CentOS Linux release 8.5.2111\n')],
        ]),
      ),
    ).toMatchObject({ name: 'rhel', version: '8.9' });
    expect(detectDistro(new Map([['/etc/centos-release', buf('CentOS Linux release 7.9.2009 (Core)\n')]]))).toMatchObject({ name: 'centos', version: '7' });
  });

  it('returns undefined when nothing identifies the distro', () => {
    expect(detectDistro(new Map())).toBeUndefined();
    expect(detectDistro(new Map([['/etc/alpine-release', buf('\n')], ['/etc/hostname', buf('box\n')]]))).toBeUndefined();
  });
});

describe('distroQualifier', () => {
  it('is name-version, or name alone without a version', () => {
    expect(distroQualifier({ name: 'debian', version: '12', like: [] })).toBe('debian-12');
    expect(distroQualifier({ name: 'debian', version: '', like: [] })).toBe('debian');
    expect(distroQualifier(undefined)).toBeUndefined();
  });
});
