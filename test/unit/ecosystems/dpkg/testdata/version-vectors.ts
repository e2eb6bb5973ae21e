/**
 * Debian version strings for checking the dpkg port against dpkg itself: hand-picked atoms that isolate one
 * rule each, versions as Debian and Ubuntu ship them, a structured grid of epoch x upstream x revision, and
 * seeded random versions with near-miss mutations (random pairs alone are almost never close enough to
 * exercise the tie-breaking rules). No string starts with '-', which dpkg would read as an option.
 */
import { SeededRandom, allPairs } from '../../shared/testdata/seeded-random.js';

/** Upstream versions (no epoch, no revision) that each probe one verrevcmp rule. */
export const DEBIAN_UPSTREAM_ATOMS = [
  '0', '00', '1', '01', '001', '2', '9', '10', '010', '100',
  '1.0', '1.00', '1.0.0', '1.01', '1.1', '1.09', '1.9', '1.10', '1.2',
  '1.2a', '1.2b', '1.2z', '1.2A', '1.2Z', '1.2aa', '1.2a1', '1.2a.1',
  '1.2+', '1.2.', '1.2~', '1.2~~', '1.2~~a', '1.2~a', '1.2~rc1', '1.2~rc2', '1.2~beta1',
  '1.2+b1', '1.2.b1', '1.2+dfsg', '1.2.dfsg', '1.2~dfsg', '1.2+really1.1', '1.2~0', '1.2+0', '1.2.0',
  '1.2++', '1.2+.', '1.2.+', '1.2a~', '1.2a+', '1.2z.', '1.2~z',
  '99999999999999999999', '100000000000000000000', '1.99999999999999999999',
];

/** Versions as Debian and Ubuntu ship them (security updates, backports, rebuilds, epochs, native packages). */
export const DEBIAN_REAL_WORLD = [
  '2.36-9', '2.36-9+deb12u3', '2.36-9+deb12u4', '2.36-9+deb12u10', '2.36-9+b1',
  '1:1.2.13.dfsg-1', '1:1.2.13.dfsg-1+b1', '1:1.3.dfsg-3', '1.2.13.dfsg-1', '1:1.2.11.dfsg-2+deb11u2',
  '3.0.11-1~deb12u2', '3.0.11-1~deb12u1', '3.0.11-1', '3.0.13-1~deb12u1', '3.0.9-1', '3.0.2-0ubuntu1.15',
  '1.1.1n-0+deb11u5', '1.1.1w-0+deb11u1', '1.1.1f-1ubuntu2.22', '1.1.1f-1ubuntu2',
  '2:8.2.3995-1ubuntu2.15', '2:9.0.1378-2', '2:9.0.1378-2+deb12u1', '1:9.2p1-2+deb12u2', '1:9.2p1-2+deb12u3',
  '1:8.9p1-3ubuntu0.10', '7.88.1-10+deb12u5', '7.88.1-10+deb12u12', '7.81.0-1ubuntu1.16',
  '252.22-1~deb12u1', '252.30-1~deb12u2', '249.11-0ubuntu3.12', '5.2.15-2+b2', '5.2.15-2+b7',
  '6.4-3', '6.4+20230625-2', '6.4+20240113-1ubuntu2', '0.9.8-3ubuntu1~20.04.1', '1.0.2-1build1',
  '2.38.1-5+deb12u1', '2.38.1-5+b1', '1:2.38.1-5+deb12u1', '10.2.1-6', '12.2.0-14', '1.22.1-9',
  '4.19.0-25', '4.19.0-25~bpo9+1', '1.18.0+dfsg-1', '1.18.0~rc1+dfsg-1', '1.18.0+dfsg-1~exp1',
  '20230311', '20230311+deb12u1', '20230311.1', '1.0.0~git20200101.abcdef0-1', '1.0.0+git20200101.abcdef0-1',
  '0.0~git20230714.1a2b3c4-1', '2.9.14+dfsg-1.3~deb12u1', '2.9.14+dfsg-1.3', '1.46.6-1~bpo11+1',
  '3.11.2-6+deb12u2', '5.36.0-7+deb12u1', '1.4.0+ds-2', '243-8+deb10u11', '1:2.2.27-3ubuntu2.1',
  '0.187-1build2', '8.0.35-0ubuntu0.22.04.1', '2.4.57-2', '2.4.62-1~deb12u1', '1:1.0.2-2',
];

/**
 * Characters dpkg only warns about still compare, byte by byte: these pin where bytes of UTF-8 text and ASCII
 * punctuation fall relative to letters, digits, `~` and the end of the string.
 */
export const DEBIAN_ODD_CHARACTERS = ['1.0é', '1.0ü', '1.0€', '1.0+', '1.0.', '1.0z', '1.0Z', '1.0~', '1.0', '1.0_', '1.0!', '1.0é1', '1.0-é', '1.0-+', '1.0-a'];

const EPOCHS = ['', '0:', '1:', '01:', '2:'];
const GRID_UPSTREAMS = ['1.0', '1.0~rc1', '1.0+b1', '1.0a', '1:0'];
const GRID_REVISIONS = ['', '-0', '-1', '-01', '-1~bpo1', '-1+deb1', '-1.1', '-1a', '-1~', '-~'];

/** Every epoch x upstream x revision combination; `1:0` as an upstream needs the epoch to be parseable. */
export function debianGrid(): string[] {
  const grid: string[] = [];
  for (const epoch of EPOCHS) {
    for (const upstream of GRID_UPSTREAMS) {
      if (upstream.includes(':') && epoch === '') continue;
      for (const revision of GRID_REVISIONS) grid.push(`${epoch}${upstream}${revision}`);
    }
  }
  return grid;
}

/**
 * Strings dpkg warns about or refuses. Warnings still compare (dpkg parses them fully); errors make
 * `dpkg --compare-versions` exit 2. None of them is valid.
 */
export const DEBIAN_INVALID = [
  '', ' ', ':', '-', '~', 'a', 'abc', '~1', '.1', '+1', 'a1.0', 'A:1', 'a:1', '1.0_1', '1.0 1', '1 :2',
  '1:', ':1', '1.0-', '1:1.0-', '1.0-1_2', '1.0-1:2', '1.0-é', '1.0é', 'é', '1.0!', '1.0@1', '1.0-1,2',
  '-1:1.0', '99999999999:1', '2147483648:1', '0x1:2', '1a:2', '1.0-1-', '1:-1', '::', '1::',
];

/** Valid strings near the edges of what dpkg accepts, for isValid (each of these passes --validate-version). */
export const DEBIAN_VALID_EDGES = [
  '0', '1', '1.0', '1:1.0', '0:0', '2147483647:1', '1:1:1', '1:1.0-1-2', '1.0-1-2', '1.0~-1', '1.0-~',
  '1.0+~.-+~.', '9A', '1.0-A', ' 1.0', '1.0 ', '\t1.0\t', '+1:1.0', '1:1.0-1', '00:1',
];

const DIGIT_RUNS = ['0', '1', '2', '9', '10', '01', '00', '001', '100', '2023', '20240131'];
const LETTER_RUNS = ['a', 'b', 'z', 'A', 'Z', 'rc', 'dfsg', 'deb', 'ubuntu', 'bpo', 'git', 'build', 'p'];
const UPSTREAM_SEPARATORS = ['.', '.', '.', '+', '~', ''];
const REVISION_SEPARATORS = ['.', '+', '~', ''];

function randomRun(random: SeededRandom): string {
  return random.chance(0.55) ? random.pick(DIGIT_RUNS) : random.pick(LETTER_RUNS);
}

export function randomDebianVersion(random: SeededRandom): string {
  let version = random.chance(0.2) ? `${random.pick(['0', '1', '2', '10', '01'])}:` : '';
  version += random.pick(DIGIT_RUNS);
  for (let n = random.int(0, 5); n > 0; n--) version += random.pick(UPSTREAM_SEPARATORS) + randomRun(random);
  if (random.chance(0.15)) version += random.pick(['~', '+', '.']);
  if (random.chance(0.65)) {
    version += `-${random.pick(['', '', '~', '0', '1'])}${randomRun(random)}`;
    for (let n = random.int(0, 3); n > 0; n--) version += random.pick(REVISION_SEPARATORS) + randomRun(random);
  }
  return version;
}

/** A small edit of a version, so that the pair differs in one place and the tie-breaking rules decide. */
export function mutateDebianVersion(random: SeededRandom, version: string): string {
  const digits = [...version.matchAll(/\d/g)].map((match) => match.index);
  const at = (index: number, insert: string, remove = 0): string =>
    version.slice(0, index) + insert + version.slice(index + remove);
  switch (random.int(0, 11)) {
    case 0:
      return version + random.pick(['~', '~rc1', '~~', '~0']);
    case 1:
      return version + random.pick(['+', '+b1', '.0', '.', 'a', 'A', '0', '1']);
    case 2:
      return digits.length ? at(random.pick(digits), String(random.int(0, 9)), 1) : version + '1';
    case 3:
      return digits.length ? at(random.pick(digits), '0') : version + '0';
    case 4: {
      const separators = [...version.matchAll(/[.+~]/g)].map((match) => match.index);
      return separators.length ? at(random.pick(separators), random.pick(['.', '+', '~', '']), 1) : version + '.';
    }
    case 5:
      return version.includes(':') ? version.slice(version.indexOf(':') + 1) : `${random.pick(['0', '1'])}:${version}`;
    case 6:
      return version.includes('-') ? version.slice(0, version.lastIndexOf('-')) : `${version}-${random.pick(['0', '1', '~1', '1~'])}`;
    case 7:
      return version.replace(/[a-zA-Z]/, (letter) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()));
    case 8:
      return version.includes('-') ? `${version}${random.pick(['~', '+', '.1', 'a'])}` : `${version}-1`;
    case 9:
      return at(random.int(1, version.length), random.pick(['~', '.', '+', 'a', '0']));
    case 10:
      return version.replace(/\d+/, (run) => run + random.pick(['0', '', '9']));
    default:
      return randomDebianVersion(random);
  }
}

export interface DebianVectors {
  /** Pairs to compare, each also checked in reverse by the tests. */
  readonly pairs: Array<[string, string]>;
  /** Every distinct string in the pairs plus the invalid and edge lists, for isValid. */
  readonly strings: string[];
}

export function debianVectors(seed = 0x5eed_d9c6): DebianVectors {
  const random = new SeededRandom(seed);
  const pairs: Array<[string, string]> = [...allPairs(DEBIAN_UPSTREAM_ATOMS), ...allPairs(DEBIAN_ODD_CHARACTERS)];
  DEBIAN_REAL_WORLD.forEach((version, i) => {
    if (i > 0) pairs.push([DEBIAN_REAL_WORLD[i - 1]!, version]);
    for (let k = 0; k < 6; k++) pairs.push([version, random.pick(DEBIAN_REAL_WORLD)]);
  });
  const grid = debianGrid();
  for (const version of grid) pairs.push([version, random.pick(grid)], [version, random.pick(grid)]);
  for (let i = 0; i < 300; i++) pairs.push([randomDebianVersion(random), randomDebianVersion(random)]);
  for (let i = 0; i < 500; i++) {
    const version = random.chance(0.3) ? random.pick(DEBIAN_REAL_WORLD) : randomDebianVersion(random);
    pairs.push([version, mutateDebianVersion(random, version)]);
  }
  const warned = DEBIAN_INVALID.filter((text) => !text.startsWith('-'));
  for (const text of warned) pairs.push([text, random.pick(DEBIAN_REAL_WORLD)], [text, random.pick(warned)]);
  const usable = pairs.filter(([a, b]) => !a.startsWith('-') && !b.startsWith('-'));
  const strings = [...new Set([...usable.flat(), ...DEBIAN_VALID_EDGES, ...warned])];
  return { pairs: usable, strings };
}
