/**
 * Which files the binary catalogers (Go build info, Rust audit data) read. The walker gives only a path, and
 * reading every file of an image to look for ELF headers would be wasteful, so the rule is by location. Every file
 * under the conventional executable directories (`/bin/`, `/sbin/`, `/usr/bin/`, `/usr/sbin/`, `/usr/local/bin/`,
 * `/usr/local/sbin/`, `/go/bin/`, `/root/go/bin/`, `/root/.cargo/bin/`) is examined; under the application trees
 * `/opt/` and `/app/`, which also hold scripts, assets and data, files with a well-known non-executable extension
 * are skipped. Binaries elsewhere (e.g. `/usr/libexec/`, `/home/...`) are out of scope.
 */

const BINARY_DIRS = ['/bin/', '/sbin/', '/usr/bin/', '/usr/sbin/', '/usr/local/bin/', '/usr/local/sbin/', '/go/bin/', '/root/go/bin/', '/root/.cargo/bin/'];
const APPLICATION_DIRS = ['/opt/', '/app/'];
const NOT_EXECUTABLE = new RegExp(
  '\\.(' +
    [
      'js', 'mjs', 'cjs', 'ts', 'map', 'json', 'yaml', 'yml', 'toml', 'xml', 'ini', 'conf', 'cfg', 'properties', 'env',
      'txt', 'md', 'rst', 'html', 'htm', 'css', 'scss', 'svg', 'png', 'jpg', 'jpeg', 'gif', 'ico', 'webp', 'woff',
      'woff2', 'ttf', 'eot', 'otf', 'pdf', 'csv', 'sql', 'lock', 'log', 'pem', 'crt', 'key',
      'py', 'pyc', 'pyo', 'pyi', 'rb', 'php', 'pl', 'pm', 'java', 'class', 'jar', 'war', 'ear', 'go', 'mod', 'sum',
      'c', 'h', 'cc', 'hpp', 'rs', 'sh', 'bash', 'ps1', 'bat', 'dll', 'pdb',
      'gz', 'tgz', 'zip', 'tar', 'bz2', 'xz', 'zst', '7z', 'whl', 'egg', 'gem', 'deb', 'rpm', 'apk', 'nupkg',
      'a', 'o', 'pak', 'dat', 'db', 'sqlite', 'mo', 'po', 'gmo', 'tmpl', 'tpl',
    ].join('|') +
    ')$',
  'i',
);

export function isExecutableCandidate(path: string): boolean {
  if (BINARY_DIRS.some((d) => path.startsWith(d))) return true;
  return APPLICATION_DIRS.some((d) => path.startsWith(d)) && !NOT_EXECUTABLE.test(path) && !path.includes('/node_modules/');
}
