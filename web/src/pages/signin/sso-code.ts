/**
 * The one-time code a single sign-on login ends with: the server redirects to the interface with `#sso_code=...`
 * in the URL fragment (never sent to a server, never in a Referer). It is taken out of the URL before anything
 * renders, so it stays in neither the address bar nor the history, and exchanged once for a session.
 */
import { useEffect, useRef, useState } from 'react';
import { signInWithSsoCode } from '../../api/auth';
import { describeError } from '../../api/errors';
import type { Session } from '../../session';

const FRAGMENT = /^#sso_code=([A-Za-z0-9_-]{1,128})$/;
/** A login the server refused comes back with the reason instead of a code. */
const REFUSED = /^#sso_error=([^#]{1,2000})$/;
let taken: string | null | undefined;
let refusedBecause: string | null = null;
/** The one exchange of this page load's code (an effect may run twice; the server answers a code once). */
let exchange: Promise<Session> | null = null;

/** The code in the URL, removed from it; read once per page load (React may render twice). */
function takeCodeFromUrl(): string | null {
  if (taken !== undefined) return taken;
  const match = FRAGMENT.exec(window.location.hash);
  const refused = REFUSED.exec(window.location.hash);
  taken = match ? match[1] : null;
  if (refused) {
    try {
      refusedBecause = decodeURIComponent(refused[1]);
    } catch {
      refusedBecause = 'The single sign-on login was refused.';
    }
  }
  if (match || refused) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return taken;
}

export interface SsoCodeSignIn {
  /** Whether a code is being exchanged. */
  busy: boolean;
  /** Why the exchange failed, to show on the sign-in page. */
  error: string | null;
}

/** Exchanges the code the page was opened with, if any, and signs the session in. */
export function useSsoCodeSignIn(signIn: (session: Session) => void): SsoCodeSignIn {
  const [code] = useState(takeCodeFromUrl);
  const [state, setState] = useState<SsoCodeSignIn>(() => ({ busy: code !== null, error: refusedBecause }));
  const signInRef = useRef(signIn);
  signInRef.current = signIn;
  useEffect(() => {
    if (code === null) return;
    let current = true;
    exchange ??= signInWithSsoCode(code);
    exchange.then(
      (session) => {
        if (!current) return;
        signInRef.current(session);
        setState({ busy: false, error: null });
      },
      (failure: unknown) => current && setState({ busy: false, error: describeError(failure) }),
    );
    return () => {
      current = false;
    };
  }, [code]);
  return state;
}
