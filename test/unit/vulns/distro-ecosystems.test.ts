/**
 * The two sides of distro matching meet: the OSV ecosystem strings distributions publish (parsed by
 * osv/ecosystem.ts into base + release, as feed-sync indexes them) and the release an image's os-release gives
 * (images/distro.ts, then vulns/ecosystems.ts). An image must land on exactly its own release's records.
 */
import { describe, expect, it } from 'vitest';
import { detectDistro } from '../../../src/ecosystems/distro.js';
import { lookupTarget } from '../../../src/vulns/ecosystems.js';
import { parseEcosystem } from '../../../src/vulns/osv/ecosystem.js';
import { feedGroupName } from '../../../src/vulns/records.js';

/** os-release files as the images ship them. */
const OS_RELEASE = {
  debian12: 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n',
  ubuntu2204: 'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\nID_LIKE=debian\n',
  ubuntu2410: 'PRETTY_NAME="Ubuntu 24.10"\nNAME="Ubuntu"\nVERSION_ID="24.10"\nVERSION="24.10 (Oracular Oriole)"\nID=ubuntu\nID_LIKE=debian\n',
  alpine319: 'NAME="Alpine Linux"\nID=alpine\nVERSION_ID=3.19.1\nPRETTY_NAME="Alpine Linux v3.19"\n',
  rhel94: [
    'NAME="Red Hat Enterprise Linux"',
    'VERSION="9.4 (Plow)"',
    'ID="rhel"',
    'ID_LIKE="fedora"',
    'VERSION_ID="9.4"',
    'PLATFORM_ID="platform:el9"',
    'PRETTY_NAME="Red Hat Enterprise Linux 9.4 (Plow)"',
    'CPE_NAME="cpe:/o:redhat:enterprise_linux:9::baseos"',
    'REDHAT_SUPPORT_PRODUCT_VERSION="9.4"',
    '',
  ].join('\n'),
  centos7: 'NAME="CentOS Linux"\nVERSION="7 (Core)"\nID="centos"\nID_LIKE="rhel fedora"\nVERSION_ID="7"\nPRETTY_NAME="CentOS Linux 7 (Core)"\nCPE_NAME="cpe:/o:centos:centos:7"\n',
  rocky93: 'NAME="Rocky Linux"\nVERSION="9.3 (Blue Onyx)"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.3"\nPLATFORM_ID="platform:el9"\nPRETTY_NAME="Rocky Linux 9.3 (Blue Onyx)"\nCPE_NAME="cpe:/o:rocky:rocky:9::baseos"\n',
  alma810: 'NAME="AlmaLinux"\nVERSION="8.10 (Cerulean Leopard)"\nID="almalinux"\nID_LIKE="rhel centos fedora"\nVERSION_ID="8.10"\nPLATFORM_ID="platform:el8"\nPRETTY_NAME="AlmaLinux 8.10 (Cerulean Leopard)"\nCPE_NAME="cpe:/o:almalinux:almalinux:8::baseos"\n',
  sles155: 'NAME="SLES"\nVERSION="15-SP5"\nVERSION_ID="15.5"\nPRETTY_NAME="SUSE Linux Enterprise Server 15 SP5"\nID="sles"\nID_LIKE="suse"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:15:sp5"\n',
  sles125: 'NAME="SLES"\nVERSION="12-SP5"\nVERSION_ID="12.5"\nPRETTY_NAME="SUSE Linux Enterprise Server 12 SP5"\nID="sles"\nANSI_COLOR="0;32"\nCPE_NAME="cpe:/o:suse:sles:12:sp5"\n',
  sleMicro55: 'NAME="SLE Micro"\nVERSION="5.5"\nVERSION_ID="5.5"\nPRETTY_NAME="SUSE Linux Enterprise Micro 5.5"\nID="sle-micro"\nID_LIKE="suse"\nCPE_NAME="cpe:/o:suse:sle-micro:5.5"\n',
  leap155: 'NAME="openSUSE Leap"\nVERSION="15.5"\nID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.5"\nPRETTY_NAME="openSUSE Leap 15.5"\nCPE_NAME="cpe:/o:opensuse:leap:15.5"\n',
  leapMicro55: 'NAME="openSUSE Leap Micro"\nVERSION="5.5"\nID="opensuse-leap-micro"\nID_LIKE="suse opensuse opensuse-leap"\nVERSION_ID="5.5"\nPRETTY_NAME="openSUSE Leap Micro 5.5"\n',
  tumbleweed: 'NAME="openSUSE Tumbleweed"\n# VERSION="20240328"\nID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\nVERSION_ID="20240328"\nPRETTY_NAME="openSUSE Tumbleweed"\nCPE_NAME="cpe:/o:opensuse:tumbleweed:20240328"\n',
  wolfi: 'ID=wolfi\nNAME="Wolfi"\nPRETTY_NAME="Wolfi"\nVERSION_ID="20230201"\nHOME_URL="https://wolfi.dev"\n',
  chainguard: 'ID=chainguard\nNAME="Chainguard"\nPRETTY_NAME="Chainguard"\nVERSION_ID="20230214"\nHOME_URL="https://chainguard.dev/"\n',
  mageia9: 'NAME="Mageia"\nVERSION="9"\nID=mageia\nVERSION_ID=9\nID_LIKE="mandriva fedora"\nPRETTY_NAME="Mageia 9"\nANSI_COLOR="1;36"\n',
} as const;

type Image = keyof typeof OS_RELEASE;

const TYPE_OF: Record<Image, 'dpkg' | 'apk' | 'rpm'> = {
  debian12: 'dpkg',
  ubuntu2204: 'dpkg',
  ubuntu2410: 'dpkg',
  alpine319: 'apk',
  rhel94: 'rpm',
  centos7: 'rpm',
  rocky93: 'rpm',
  alma810: 'rpm',
  sles155: 'rpm',
  sles125: 'rpm',
  sleMicro55: 'rpm',
  leap155: 'rpm',
  leapMicro55: 'rpm',
  tumbleweed: 'rpm',
  wolfi: 'apk',
  chainguard: 'apk',
  mageia9: 'rpm',
};

function targetOf(image: Image) {
  const distro = detectDistro(new Map([['/etc/os-release', Buffer.from(OS_RELEASE[image])]]));
  const target = lookupTarget({ type: TYPE_OF[image], name: 'pkg', version: '1' }, distro);
  if (!target) throw new Error(`${image}: no lookup target`);
  return { ecosystem: target.ecosystem, release: target.release ?? null, comparator: target.comparator.name };
}

function keyOf(osvEcosystem: string) {
  const parsed = parseEcosystem(osvEcosystem);
  return { ecosystem: parsed.ecosystem.toLowerCase(), release: parsed.release ?? null };
}

/** Published ecosystem strings each image must be matched against ... and strings it must not be. */
const CASES: [Image, string[], string[]][] = [
  ['debian12', ['Debian:12'], ['Debian:11', 'Ubuntu:22.04:LTS']],
  ['ubuntu2204', ['Ubuntu:22.04:LTS', 'Ubuntu:Pro:22.04:LTS'], ['Ubuntu:20.04:LTS', 'Ubuntu:Pro:FIPS-updates:22.04:LTS', 'Ubuntu:Pro:FIPS-preview:22.04:LTS', 'Ubuntu:Pro:22.04:LTS:Realtime:Kernel', 'Debian:12']],
  ['ubuntu2410', ['Ubuntu:24.10'], ['Ubuntu:24.04:LTS']],
  ['alpine319', ['Alpine:v3.19'], ['Alpine:v3.18', 'Wolfi']],
  [
    'rhel94',
    ['Red Hat:enterprise_linux:9::appstream', 'Red Hat:enterprise_linux:9::baseos', 'Red Hat:enterprise_linux:9::crb', 'Red Hat:enterprise_linux:9'],
    ['Red Hat:enterprise_linux:8::appstream', 'Red Hat:rhel_eus:9.4::baseos', 'Red Hat:rhel_e4s:9.0::appstream', 'Red Hat:openshift:4.14::el9', 'Rocky Linux:9', 'AlmaLinux:9'],
  ],
  ['centos7', ['Red Hat:enterprise_linux:7::server', 'Red Hat:enterprise_linux:7::client'], ['Red Hat:rhel_els:7', 'Red Hat:enterprise_linux:8::baseos']],
  ['rocky93', ['Rocky Linux:9'], ['Rocky Linux:8', 'Red Hat:enterprise_linux:9::baseos', 'AlmaLinux:9']],
  ['alma810', ['AlmaLinux:8'], ['AlmaLinux:9', 'Rocky Linux:8']],
  [
    'sles155',
    ['SUSE:Linux Enterprise Server 15 SP5', 'SUSE:Linux Enterprise Module for Basesystem 15 SP5', 'SUSE:Linux Enterprise Server 15 SP5-LTSS', 'SUSE:Linux Enterprise Server for SAP Applications 15 SP5'],
    ['SUSE:Linux Enterprise Server 15 SP4', 'SUSE:Linux Enterprise Micro 5.5', 'SUSE:Enterprise Storage 7.1', 'SUSE:Package Hub 15 SP5', 'openSUSE:Leap 15.5'],
  ],
  ['sles125', ['SUSE:Linux Enterprise Server 12 SP5', 'SUSE:Linux Enterprise Server 12 SP5-LTSS'], ['SUSE:Linux Enterprise Server 15 SP5']],
  ['sleMicro55', ['SUSE:Linux Enterprise Micro 5.5'], ['SUSE:Linux Enterprise Server 15 SP5', 'openSUSE:Leap Micro 5.5']],
  ['leap155', ['openSUSE:Leap 15.5', 'openSUSE:Leap 15.5 NonFree'], ['openSUSE:Leap 15.6', 'openSUSE:Tumbleweed', 'SUSE:Linux Enterprise Server 15 SP5']],
  ['leapMicro55', ['openSUSE:Leap Micro 5.5'], ['openSUSE:Leap 15.5', 'SUSE:Linux Enterprise Micro 5.5']],
  ['tumbleweed', ['openSUSE:Tumbleweed'], ['openSUSE:Leap 15.5']],
  ['wolfi', ['Wolfi'], ['Chainguard', 'Alpine:v3.19']],
  ['chainguard', ['Chainguard'], ['Wolfi']],
  ['mageia9', ['Mageia:9'], ['Mageia:8', 'Red Hat:enterprise_linux:9::baseos']],
];

describe('distro detection from os-release', () => {
  it('reads ID, VERSION_ID and ID_LIKE of each distro', () => {
    const detected = Object.fromEntries(
      (Object.keys(OS_RELEASE) as Image[]).map((image) => {
        const d = detectDistro(new Map([['/etc/os-release', Buffer.from(OS_RELEASE[image])]]))!;
        return [image, `${d.name} ${d.version} [${d.like.join(' ')}]`];
      }),
    );
    expect(detected).toEqual({
      debian12: 'debian 12 []',
      ubuntu2204: 'ubuntu 22.04 [debian]',
      ubuntu2410: 'ubuntu 24.10 [debian]',
      alpine319: 'alpine 3.19.1 []',
      rhel94: 'rhel 9.4 [fedora]',
      centos7: 'centos 7 [rhel fedora]',
      rocky93: 'rocky 9.3 [rhel centos fedora]',
      alma810: 'almalinux 8.10 [rhel centos fedora]',
      sles155: 'sles 15.5 [suse]',
      sles125: 'sles 12.5 []',
      sleMicro55: 'sle-micro 5.5 [suse]',
      leap155: 'opensuse-leap 15.5 [suse opensuse]',
      leapMicro55: 'opensuse-leap-micro 5.5 [suse opensuse opensuse-leap]',
      tumbleweed: 'opensuse-tumbleweed 20240328 [opensuse suse]',
      wolfi: 'wolfi 20230201 []',
      chainguard: 'chainguard 20230214 []',
      mageia9: 'mageia 9 [mandriva fedora]',
    });
  });
});

describe('distro images meet their own release in OSV', () => {
  it.each(CASES)('%s', (image, matching, other) => {
    const target = targetOf(image);
    for (const eco of matching) expect({ eco, ...keyOf(eco) }).toEqual({ eco, ecosystem: target.ecosystem, release: target.release });
    for (const eco of other) expect({ eco, ...keyOf(eco) }).not.toEqual({ eco, ecosystem: target.ecosystem, release: target.release });
  });

  it('orders versions with the package manager of each distro', () => {
    for (const image of Object.keys(OS_RELEASE) as Image[]) expect({ image, comparator: targetOf(image).comparator }).toEqual({ image, comparator: TYPE_OF[image] });
  });

  it('names each image release its feed group', () => {
    const groups = Object.fromEntries((Object.keys(OS_RELEASE) as Image[]).map((image) => [image, feedGroupName(targetOf(image).ecosystem, targetOf(image).release)]));
    expect(groups).toEqual({
      debian12: 'debian:12',
      ubuntu2204: 'ubuntu:22.04',
      ubuntu2410: 'ubuntu:24.10',
      alpine319: 'alpine:3.19',
      rhel94: 'rhel:9',
      centos7: 'rhel:7',
      rocky93: 'rocky:9',
      alma810: 'almalinux:8',
      sles155: 'sles:15.5',
      sles125: 'sles:12.5',
      sleMicro55: 'sles:micro-5.5',
      leap155: 'opensuse:leap-15.5',
      leapMicro55: 'opensuse:leap-micro-5.5',
      tumbleweed: 'opensuse:tumbleweed',
      wolfi: 'wolfi',
      chainguard: 'chainguard',
      mageia9: 'mageia:9',
    });
  });
});
