/**
 * The SSRF guard of every outbound connection (registries and their token services, feed downloads,
 * notification receivers): which addresses a host may resolve to. Public unicast addresses are always
 * reachable; loopback, private, link-local (cloud metadata), multicast and other special-purpose ranges only
 * when the policy's allow-list names the host or the address (VIGIL_OUTBOUND_ALLOW for everything, plus
 * VIGIL_REGISTRY_ALLOW for registry traffic).
 *
 * Documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32) are deliberately NOT refused:
 * they are routed nowhere, and tests use them as stand-ins for public addresses. NAT64 and 6to4 addresses are judged
 * by the IPv4 address they carry.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { unreachable } from './errors.js';

type IpType = 'ipv4' | 'ipv6';
interface Ip {
  address: string;
  type: IpType;
}

/** Special-purpose ranges refused unless allow-listed, grouped so a refusal can say which kind it hit. */
const DENIED_RANGES: ReadonlyArray<readonly [kind: string, cidrs: readonly string[]]> = [
  ['loopback', ['127.0.0.0/8', '::1/128']],
  // ::/96 also covers the deprecated IPv4-compatible form (::127.0.0.1), which some stacks still route locally
  ['unspecified', ['0.0.0.0/8', '::/96']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']],
  ['carrier-grade NAT', ['100.64.0.0/10']],
  ['link-local', ['169.254.0.0/16', 'fe80::/10']],
  // fec0::/10 is the deprecated site-local range, still treated as internal by some networks
  ['unique-local', ['fc00::/7', 'fec0::/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['reserved', ['240.0.0.0/4']], // includes the broadcast address 255.255.255.255
  ['benchmarking', ['198.18.0.0/15']],
  ['IETF protocol assignment', ['192.0.0.0/24']],
];

const DENIED: ReadonlyArray<{ kind: string; list: BlockList }> = DENIED_RANGES.map(([kind, cidrs]) => {
  const list = new BlockList();
  for (const cidr of cidrs) addCidr(list, cidr);
  return { kind, list };
});

/** What resolving a name needs of dns.promises.lookup; tests pass a fake. */
export type LookupAllFn = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

/** Where the precise reason of an unreachable target is written (the server log; never an API answer). */
export interface OutboundLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface OutboundPolicyOptions {
  /** What the traffic is for (registry, feeds, notifications), in log lines. */
  purpose?: string;
  log?: OutboundLog | null;
  /** Name resolution; dns.promises.lookup unless a test injects another. */
  lookup?: LookupAllFn;
}

/** Variants of one policy kept for reuse (each has its own connection pool); beyond this, variants are not kept. */
const MAX_KEPT_VARIANTS = 64;

export class OutboundPolicy {
  /** Variants made by withLoopbackEndpoint, by endpoint, so their pooled connections are reused and closed. */
  private readonly variants = new Map<string, OutboundPolicy>();

  private constructor(
    private readonly hosts: ReadonlySet<string>,
    private readonly addresses: BlockList,
    private readonly options: OutboundPolicyOptions,
    /** `host:port` pairs whose loopback addresses may be reached (whatever the allow-lists say). */
    private readonly loopbackEndpoints: ReadonlySet<string> = new Set(),
  ) {}

  /**
   * Reads allow-lists (VIGIL_OUTBOUND_ALLOW, VIGIL_REGISTRY_ALLOW): comma-separated hostnames, IP addresses and
   * CIDRs; several lists are united. Throws on a bad entry.
   */
  static parse(allow: string | null | ReadonlyArray<string | null>, options: OutboundPolicyOptions = {}): OutboundPolicy {
    const hosts = new Set<string>();
    const addresses = new BlockList();
    const lists = typeof allow === 'string' || allow === null ? [allow] : allow;
    for (const entry of lists.flatMap((raw) => (raw ?? '').split(',')).map((e) => e.trim())) {
      if (entry === '') continue; // tolerate "a,,b" and a trailing comma
      if (!addAllowEntry(entry, hosts, addresses)) {
        throw new Error(
          `outbound allow-list entry "${entry}" is not valid: expected a hostname (registry.internal), ` +
            'an IP address (10.0.0.5, fd00::5) or a CIDR (10.0.0.0/8, fd00::/8)',
        );
      }
    }
    return new OutboundPolicy(hosts, addresses, options);
  }

  /**
   * Throws an 'unreachable' OutboundError unless `address` may be reached for `host`: a public address, or one
   * the allow-list names (by address or CIDR, or by the host name it was resolved from).
   */
  check(host: string, address: string, port?: number): void {
    const ip = canonicalIp(address);
    if (ip === null) throw unreachable(host, `it resolved to "${address}", which is not an IP address`);
    const kind = deniedKind(ip);
    if (kind === null || this.hosts.has(normalizeHost(host)) || this.addresses.check(ip.address, ip.type)) return;
    if (kind === 'loopback' && port !== undefined && this.loopbackEndpoints.has(endpointKey(host, port))) return;
    throw unreachable(host, `${ip.address} is a ${kind} address and not in the allow-list`);
  }

  /**
   * This policy, plus the loopback addresses of one host on the given ports: what a registry an administrator
   * configured on this machine (`localhost:5000`) needs, without opening other loopback ports or any other
   * internal address. The same variant is answered for the same endpoint, so its connections are pooled.
   */
  withLoopbackEndpoint(host: string, ports: readonly number[]): OutboundPolicy {
    const keys = ports.map((port) => endpointKey(host, port));
    const id = keys.join(' ');
    const kept = this.variants.get(id);
    if (kept) return kept;
    const variant = new OutboundPolicy(this.hosts, this.addresses, this.options, new Set([...this.loopbackEndpoints, ...keys]));
    if (this.variants.size < MAX_KEPT_VARIANTS) this.variants.set(id, variant);
    return variant;
  }

  /** The variants made from this policy (their connections are closed with its own at shutdown). */
  keptVariants(): OutboundPolicy[] {
    return [...this.variants.values()];
  }

  /**
   * The address to connect to for `host`: an IP literal is checked as is; a name is resolved and the first
   * address the policy accepts is returned, so a name that (also) resolves to an internal address cannot be
   * used to reach it.
   */
  async resolve(host: string, port?: number): Promise<{ address: string; family: 4 | 6 }> {
    const bare = stripBrackets(host);
    const literal = isIP(bare);
    if (literal === 4 || literal === 6) {
      this.check(bare, bare, port);
      return { address: bare, family: literal };
    }
    const candidates = await this.lookupAll(bare);
    let refused: unknown = null;
    for (const { address, family } of candidates) {
      try {
        this.check(bare, address, port);
        return { address, family: family === 6 ? 6 : 4 };
      } catch (err) {
        refused ??= err; // keep the first refusal: it names the address refused
      }
    }
    throw refused ?? unreachable(bare, 'the name has no addresses');
  }

  /** Writes why `host` was not reached to the server log (the caller only ever sees the neutral message). */
  report(host: string, detail: string): void {
    this.options.log?.info({ purpose: this.options.purpose, host, reason: detail }, 'outbound request refused or unanswered');
  }

  private async lookupAll(host: string): Promise<LookupAddress[]> {
    try {
      const lookup: LookupAllFn = this.options.lookup ?? ((name, options) => dns.lookup(name, options));
      return await lookup(host, { all: true });
    } catch (err) {
      throw unreachable(host, `name resolution failed: ${(err as NodeJS.ErrnoException).code ?? 'lookup failed'}`);
    }
  }
}

/** Adds one allow-list entry; false when it is neither a hostname, an IP address nor a CIDR. */
function addAllowEntry(entry: string, hosts: Set<string>, addresses: BlockList): boolean {
  if (entry.includes('/')) return tryAdd(() => addCidr(addresses, entry));
  const ip = canonicalIp(entry);
  if (ip !== null) return tryAdd(() => addresses.addAddress(ip.address, ip.type));
  if (!isHostname(entry)) return false;
  hosts.add(normalizeHost(entry));
  return true;
}

function tryAdd(add: () => void): boolean {
  try {
    add();
    return true;
  } catch {
    return false; // BlockList throws on a bad address or an out-of-range prefix
  }
}

function addCidr(list: BlockList, cidr: string): void {
  const [base, prefix, extra] = cidr.split('/');
  const ip = canonicalIp(base ?? '');
  if (ip === null || extra !== undefined || !/^\d{1,3}$/.test(prefix ?? '')) throw new Error(`bad CIDR ${cidr}`);
  list.addSubnet(ip.address, Number(prefix), ip.type);
}

function deniedKind(ip: Ip): string | null {
  return DENIED.find(({ list }) => list.check(ip.address, ip.type))?.kind ?? null;
}

/**
 * The address as the policy judges it: IPv4-mapped IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) becomes the IPv4
 * address it carries, other IPv6 is put in canonical form, a zone index (%eth0) is dropped. null: not an IP.
 */
function canonicalIp(address: string): Ip | null {
  const bare = stripBrackets(address).replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return { address: bare, type: 'ipv4' };
  if (family !== 6) return null;
  // WHATWG URL serializes IPv6 hosts canonically (compressed, lower-case hex, embedded IPv4 as hex)
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const groups = ipv6Groups(canonical);
  const ipv4 = (high: number, low: number): Ip => ({ address: `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, type: 'ipv4' });
  // IPv4-mapped ::ffff:a.b.c.d and NAT64's well-known prefix 64:ff9b::a.b.c.d reach the IPv4 host they carry;
  // so does 6to4 2002:aabb:ccdd::/48 through its relay. Judge that host, or 64:ff9b::7f00:1 would be loopback.
  if (groups.slice(0, 6).every((g, i) => g === (i === 5 ? 0xffff : 0))) return ipv4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return ipv4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return ipv4(groups[1], groups[2]);
  return { address: canonical, type: 'ipv6' };
}

/** The eight 16-bit groups of a canonical IPv6 address (as the URL parser writes it: hex, `::` at most once). */
function ipv6Groups(canonical: string): number[] {
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  if (tail === null) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** DNS names: letters, digits, '-' and '_' in labels of up to 63; a numeric last label would be an IPv4 typo. */
function isHostname(entry: string): boolean {
  const name = entry.replace(/\.$/, '');
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  const labelOk = (label: string) => /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i.test(label);
  return labels.every(labelOk) && !/^\d+$/.test(labels[labels.length - 1]);
}

function endpointKey(host: string, port: number): string {
  return `${normalizeHost(host)}:${port}`;
}

function normalizeHost(host: string): string {
  return stripBrackets(host).toLowerCase().replace(/\.$/, '');
}

/** `[::1]` → `::1`: URL hostnames keep the brackets, sockets and isIP want them off. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
