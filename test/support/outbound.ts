/** Outbound policies for tests: the suite's registries, feed servers and receivers all listen on loopback. */
import { OutboundPolicy } from '../../src/outbound/policy.js';

/** The allow-list test servers get unless a test passes its own VIGIL_OUTBOUND_ALLOW ('' for none). */
export const LOOPBACK_ALLOW = '127.0.0.1,::1,localhost';

/** For sources and clients used directly (without a server): loopback allowed, everything else as in production. */
export const LOOPBACK_POLICY = OutboundPolicy.parse(LOOPBACK_ALLOW);
