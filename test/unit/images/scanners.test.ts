import { describe, expect, it } from 'vitest';
import { walkLayers } from '../../../src/images/layers/walker.js';
import { type ContentScanConfig, DEFAULT_SECRET_PATTERNS, contentScanners, scanResults } from '../../../src/images/scanners/index.js';
import { compilePattern, searchLines } from '../../../src/images/scanners/regex-search.js';
import { blob, gzip, tarBytes, type FixtureEntry } from './layers-fixtures.js';

const layer = async (label: string, entries: FixtureEntry[]) => blob(label, gzip(await tarBytes(entries)));
const secrets = DEFAULT_SECRET_PATTERNS.map(compilePattern);
const namesFound = (text: string) => searchLines(Buffer.from(text), secrets).map((m) => m.name);

describe('searchLines', () => {
  it('tries each expression at the start of every line and numbers lines from 1', () => {
    const patterns = [compilePattern({ name: 'PW', regex: '.*password=.*' }), compilePattern({ name: 'START', regex: 'user' })];
    const text = 'user=a\npassword=b\n# user commented\nx password=c\n';
    expect(searchLines(Buffer.from(text), patterns)).toEqual([
      { name: 'PW', regex: '.*password=.*', lines: [2, 4] },
      { name: 'START', regex: 'user', lines: [1] },
    ]);
    expect(searchLines(Buffer.from('nothing here'), patterns)).toEqual([]);
  });

  it('searches binary content byte for byte', () => {
    const content = Buffer.concat([Buffer.from([0, 0xff, 0x0a]), Buffer.from('api_key = ABCDEFGHIJKLMNOPQRST1234\n')]);
    expect(searchLines(content, secrets)).toEqual([{ name: 'API_KEY', regex: DEFAULT_SECRET_PATTERNS[4].regex, lines: [2] }]);
  });

  it('the default expressions find common credential formats and leave ordinary text alone', () => {
    expect(namesFound('[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n')).toEqual(['AWS_ACCESS_KEY']);
    expect(namesFound('aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n')).toEqual(['AWS_SECRET_KEY']);
    expect(namesFound('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n-----END OPENSSH PRIVATE KEY-----\n')).toEqual(['PRIV_KEY']);
    expect(namesFound('{"auths": {"registry.example.com": {"auth": "dXNlcjpwYXNz"}}}')).toEqual(['DOCKER_AUTH']);
    expect(namesFound('API-KEY: 0123456789abcdef0123456789abcdef\n')).toEqual([]); // a colon is not an assignment
    expect(namesFound('export API_KEY=0123456789abcdef0123456789abcdef\n')).toEqual(['API_KEY']);
    expect(namesFound('-----BEGIN CERTIFICATE-----\naws_access_key_id = short\n')).toEqual([]);
  });
});

const CONFIG: ContentScanConfig = {
  retrieveFiles: ['/etc/passwd', '/etc/big.conf'],
  retrieveMaxBytes: 1024,
  secretSearch: DEFAULT_SECRET_PATTERNS,
  contentSearch: [{ name: 'PASSWORD', regex: '(?i).*password=.*' }],
  searchMaxFileBytes: 200,
};

async function walk(layers: FixtureEntry[][], config = CONFIG) {
  const warnings: string[] = [];
  const blobs = await Promise.all(layers.map((entries, i) => layer(`l${i}`, entries)));
  const result = await walkLayers(blobs, { catalogers: [], scanners: contentScanners(config, (m) => warnings.push(m)), hashFiles: true });
  return { ...scanResults(result.scans), warnings: [...result.warnings, ...warnings] };
}

describe('content scanners in the layer walk', () => {
  it('retrieves configured files and searches small files, in path order', async () => {
    const { retrievedFiles, secretSearch, contentSearch } = await walk([
      [
        { name: 'etc/passwd', content: 'root:x:0:0:root:/root:/bin/sh\n' },
        { name: 'etc/shadow', content: 'root:*:19000:0:99999:7:::\n' },
        { name: 'app/.aws/credentials', content: '[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\n' },
        { name: 'app/settings.ini', content: 'Password=hunter2\n' },
      ],
    ]);
    expect(retrievedFiles).toEqual([{ path: '/etc/passwd', b64_content: Buffer.from('root:x:0:0:root:/root:/bin/sh\n').toString('base64') }]);
    expect(secretSearch).toEqual([{ path: '/app/.aws/credentials', matches: [{ name: 'AWS_ACCESS_KEY', regex: DEFAULT_SECRET_PATTERNS[0].regex, lines: [2] }] }]);
    expect(contentSearch).toEqual([{ path: '/app/settings.ini', matches: [{ name: 'PASSWORD', regex: '(?i).*password=.*', lines: [1] }] }]);
  });

  it('keeps only what survives in the final filesystem: later layers replace or delete scanned files', async () => {
    const { retrievedFiles, secretSearch } = await walk([
      [
        { name: 'etc/passwd', content: 'old:x:0:0::/:/bin/sh\n' },
        { name: 'app/key.pem', content: '-----BEGIN RSA PRIVATE KEY-----\n' },
        { name: 'app/other.pem', content: '-----BEGIN EC PRIVATE KEY-----\n' },
      ],
      [
        { name: 'etc/passwd', content: 'new:x:0:0::/:/bin/sh\n' },
        { name: 'app/.wh.key.pem' },
        { name: 'app/other.pem', content: 'replaced with a public certificate\n' },
      ],
    ]);
    expect(retrievedFiles.map((f) => Buffer.from(f.b64_content, 'base64').toString())).toEqual(['new:x:0:0::/:/bin/sh\n']);
    expect(secretSearch).toEqual([]);
  });

  it('scans hardlinks as the file they share content with', async () => {
    const { secretSearch } = await walk([
      [
        { name: 'app/key.pem', content: '-----BEGIN RSA PRIVATE KEY-----\n' },
        { name: 'backup/key.pem', type: 'link', linkname: 'app/key.pem' },
      ],
    ]);
    expect(secretSearch.map((r) => r.path)).toEqual(['/app/key.pem', '/backup/key.pem']);
  });

  it('skips files over the size limits: silently for the searches, with a warning for retrieved files', async () => {
    const big = 'x'.repeat(300);
    const { retrievedFiles, secretSearch, warnings } = await walk([
      [
        { name: 'etc/big.conf', content: 'y'.repeat(2000) },
        { name: 'app/big.pem', content: `-----BEGIN RSA PRIVATE KEY-----\n${big}\n` },
      ],
    ]);
    expect(retrievedFiles).toEqual([]);
    expect(secretSearch).toEqual([]);
    expect(warnings).toEqual(['/etc/big.conf (2000 bytes) was not retrieved: it is larger than the 1024-byte limit for retrieved files']);
  });

  it('runs no search without expressions', async () => {
    const { secretSearch, contentSearch } = await walk([[{ name: 'app/key.pem', content: '-----BEGIN RSA PRIVATE KEY-----\n' }]], { ...CONFIG, secretSearch: [], contentSearch: [] });
    expect(secretSearch).toEqual([]);
    expect(contentSearch).toEqual([]);
  });
});
