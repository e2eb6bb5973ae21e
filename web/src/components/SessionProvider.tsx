/**
 * The session for the whole interface: who is signed in, the account acted in, and the API client that sends
 * their credentials. A 401 from any request ends the session and returns to the sign-in page with the reason.
 */
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { revokeSession } from '../api/auth';
import { type Api, createApi } from '../api/client';
import { describeError } from '../api/errors';
import { clearSession, loadSession, saveSession, type Session } from '../session';

interface SessionState {
  session: Session | null;
  /** Why the last session ended (shown on the sign-in page), or null. */
  endedBecause: string | null;
  api: Api;
  signIn(session: Session): void;
  signOut(): Promise<void>;
  switchAccount(account: string): void;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  const current = useRef(session);
  current.current = session;

  const replace = useCallback((next: Session | null, reason: string | null = null) => {
    if (next) saveSession(next);
    else clearSession();
    current.current = next;
    setSession(next);
    setEndedBecause(reason);
  }, []);

  const api = useMemo(
    () =>
      createApi({
        session: () => current.current,
        onUnauthorized: (error) => replace(null, `Your session ended: ${describeError(error)} Sign in again.`),
      }),
    [replace],
  );

  const value = useMemo<SessionState>(
    () => ({
      session,
      endedBecause,
      api,
      signIn: (next) => replace(next),
      signOut: async () => {
        const ending = current.current;
        replace(null);
        if (ending) setEndedBecause(await revokeSession(ending));
      },
      switchAccount: (account) => {
        if (current.current) replace({ ...current.current, account });
      },
    }),
    [session, endedBecause, api, replace],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/** The API client and the signed-in session, for pages (which only render while signed in). */
export function useApi(): { api: Api; session: Session } {
  const { api, session } = useSession();
  if (!session) throw new Error('useApi while signed out');
  return { api, session };
}
