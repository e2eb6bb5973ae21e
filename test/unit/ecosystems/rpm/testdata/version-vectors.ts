/**
 * RPM EVR strings for checking the rpm port against rpm's own rpm.vercmp(): atoms that isolate one rpmvercmp
 * rule each (separators, `~`, `^`, leading zeros, letters against digits), versions as RHEL, Fedora, Amazon
 * Linux and SUSE ship them, and seeded random EVRs with near-miss mutations.
 */
import { SeededRandom, allPairs } from '../../shared/testdata/seeded-random.js';

/** Versions without release that each probe one rpmvercmp rule. */
export const RPM_SEGMENT_ATOMS = [
  '1', '01', '001', '2', '10', '1.0', '1.00', '1.01', '1.1', '1.10', '1.2', '1.9', '1.0.1', '1.0.0',
  '1a', '1.a', '1.0a', '1.0.a', '1.0aa', '1.0a1', '1.0b', '1.0A', '1.0Z', 'a', 'A', 'b', 'aa',
  '1.0rc1', '1.0.rc1', '1.0~rc1', '1.0~rc2', '1.0~', '1.0~~', '1.0~~rc1', '1.0~1', '1.0~a',
  '1.0^', '1.0^^', '1.0^git1', '1.0^git2', '1.0^1', '1.0^~', '1.0~^', '1.0.^', '1.0^.1', '1.0^a', '1.0~rc1^git1',
  '1_0', '1+0', '1..0', '1.0.', '.1.0', '1.0_1', '1.0+1', '1.0%1', '1.0é1',
  '12345678901234567890', '12345678901234567891', '1.12345678901234567890', '1.012345678901234567890',
];

/** EVRs as RHEL, Fedora, Amazon Linux, SUSE and module streams ship them. */
export const RPM_REAL_WORLD = [
  '5.14.0-362.8.1.el9_3', '5.14.0-362.13.1.el9_3', '5.14.0-284.30.1.el9_2', '5.14.0-70.13.1.el9_0', '5.14.0-427.13.1.el9_4',
  '1.1.1k-9.el8_7', '1.1.1k-7.el8_6', '1:1.1.1k-9.el8_7', '1:1.1.1k-12.el8_9', '1:1.1.1g-15.el8_3',
  '1:3.0.7-25.el9_3', '1:3.0.7-24.el9', '3.0.7-27.el9', '1:3.0.7-27.el9', '1:3.2.2-6.el10',
  '2.28-225.el8_8.6', '2.28-236.el8_9.7', '2.28-236.el8_9.12', '2.34-83.el9_3.7', '2.34-83.el9_3.12', '2.34-100.el9',
  '7.61.1-30.el8_8.3', '7.61.1-34.el8', '7.76.1-26.el9_3.2', '7.76.1-29.el9_4', '0:4.16.1.3-25.el9', '4.16.1.3-29.el9',
  '1.2.11-40.el9', '1.2.11-41.el9', '8.32-34.el9', '8.32-35.el9', '2.9.13-5.el9_2', '2.9.13-6.el9_4', '1:2.9.13-6.el9_4',
  '2:9.0.2120-1.fc39', '2:9.1.0~beta1-1.fc40', '2:9.1.0-1.fc40', '2.40^20230222gitabc1234-1.fc38', '2.40-1.fc38',
  '6.5.12-300.fc39', '6.8.0-0.rc1.20240304git1234.1.fc41', '6.8.0-1.fc41', '0.9.0~rc1-1.el9', '0.9.0-1.el9',
  '4.18.2-1.el9', '4.18.0-6.el9', '12.2.1-2.amzn2023.0.2', '12.2.1-2.amzn2023.0.10', '2.0.20220426-1.amzn2',
  '3:10.3.39-1.module+el8.8.0+19673+72b0d35f', '3:10.3.39-1.module+el8.9.0+20000+abcdef01',
  '1:10.5.22-1.module+el8.8.0+20134+a92c7654', '2.4.37-62.module+el8.9.0+19699+7a7a2044',
  '2.4.37-56.module+el8.8.0+18758+b3a9c8da.6', '2.4.37-56.module+el8.8.0+18758+b3a9c8da.10',
  '1.0.2p-150000.3.91.1', '1.1.1l-150400.7.60.2', '3.0.8-150500.5.8.1', '2.31-150300.63.1',
  '1.0-1', '1.0-1.el9', '1.0-1.el9~bootstrap', '1.0-0.1.rc1.el9', '1.0-2', '1.0', '0:1.0', '1:1.0', '1.0-',
];

/** Strings outside what rpmbuild produces; rpm still orders them (only '' makes rpm.vercmp raise). */
export const RPM_INVALID = [
  '', '-', ':', '-1', '1:', ':1', '1.0-', '1-2-3', 'a:1', '1..0', '1.0 1', '1.0-1 2', '1:2:3', '~', '^', '.', '..',
  '1.0é', 'é', '1.0!', '1.0/1', '1.0-rc/1', '1:-', '1.0-.', '~~', '1.0-~', '%{version}',
];

const DIGIT_RUNS = ['0', '1', '2', '9', '10', '01', '00', '007', '100', '2023', '20240131', '12345678901234567890'];
const LETTER_RUNS = ['a', 'b', 'z', 'A', 'Z', 'rc', 'el', 'fc', 'git', 'beta', 'module', 'amzn', 'p'];
const SEPARATORS = ['.', '.', '.', '_', '+', '~', '^', ''];

function randomSegments(random: SeededRandom, count: number): string {
  let text = random.chance(0.8) ? random.pick(DIGIT_RUNS) : random.pick(LETTER_RUNS);
  for (let n = count; n > 0; n--) {
    text += random.pick(SEPARATORS) + (random.chance(0.6) ? random.pick(DIGIT_RUNS) : random.pick(LETTER_RUNS));
  }
  return text;
}

export function randomRpmVersion(random: SeededRandom): string {
  let evr = random.chance(0.2) ? `${random.pick(['0', '1', '2', '10', '01'])}:` : '';
  evr += randomSegments(random, random.int(0, 5));
  if (random.chance(0.1)) evr += random.pick(['~', '^', '.', '_']);
  if (random.chance(0.7)) evr += `-${randomSegments(random, random.int(0, 4))}`;
  return evr;
}

/** A small edit of an EVR, so that the pair differs in one place and the tie-breaking rules decide. */
export function mutateRpmVersion(random: SeededRandom, evr: string): string {
  const digits = [...evr.matchAll(/\d/g)].map((match) => match.index);
  const at = (index: number, insert: string, remove = 0): string => evr.slice(0, index) + insert + evr.slice(index + remove);
  switch (random.int(0, 11)) {
    case 0:
      return evr + random.pick(['~', '~rc1', '~~', '^', '^git1', '^~']);
    case 1:
      return evr + random.pick(['.', '.0', 'a', 'A', '0', '1', '_1', '+1']);
    case 2:
      return digits.length ? at(random.pick(digits), String(random.int(0, 9)), 1) : evr + '1';
    case 3:
      return digits.length ? at(random.pick(digits), '0') : evr + '0';
    case 4: {
      const separators = [...evr.matchAll(/[._+~^]/g)].map((match) => match.index);
      return separators.length ? at(random.pick(separators), random.pick(['.', '_', '+', '~', '^', '']), 1) : evr + '.';
    }
    case 5:
      return evr.includes(':') ? evr.slice(evr.indexOf(':') + 1) : `${random.pick(['0', '1', '00'])}:${evr}`;
    case 6:
      return evr.includes('-') ? evr.slice(0, evr.lastIndexOf('-')) : `${evr}-${random.pick(['1', '0', '1.el9', ''])}`;
    case 7:
      return evr.replace(/[a-zA-Z]/, (letter) => (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()));
    case 8:
      return at(random.int(0, evr.length), random.pick(['~', '^', '.', 'a', '0']));
    case 9:
      return evr.replace(/\d+/, (run) => run + random.pick(['0', '9', 'a']));
    case 10:
      return evr.replace(/[a-zA-Z]+/, (run) => (random.chance(0.5) ? run + 'a' : String(random.int(0, 9))));
    default:
      return randomRpmVersion(random);
  }
}

export function rpmVectors(seed = 0x5eed_0e1f): Array<[string, string]> {
  const random = new SeededRandom(seed);
  const pairs: Array<[string, string]> = [...allPairs(RPM_SEGMENT_ATOMS), ...allPairs(RPM_REAL_WORLD)];
  for (let i = 0; i < 1500; i++) pairs.push([randomRpmVersion(random), randomRpmVersion(random)]);
  for (let i = 0; i < 2500; i++) {
    const evr = random.chance(0.3) ? random.pick(RPM_REAL_WORLD) : randomRpmVersion(random);
    pairs.push([evr, mutateRpmVersion(random, evr)]);
  }
  for (const text of RPM_INVALID) {
    pairs.push([text, random.pick(RPM_REAL_WORLD)], [text, random.pick(RPM_INVALID)], [text, random.pick(RPM_SEGMENT_ATOMS)]);
  }
  return pairs;
}
