/**
 * One API call's state for a page or panel: loading, its data, or its error (an ApiError shown as it is). Each
 * caller has its own state, so one failing call does not take the others down with it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useApi } from '../components/SessionProvider';
import type { Api } from './client';

export interface ApiCall<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /** Calls again (keeping the data shown until the answer arrives). */
  reload(): void;
}

/** Runs `load` on mount and whenever `deps` change; a newer call's answer wins over an older one's. */
export function useApiCall<T>(load: (api: Api) => Promise<T>, deps: readonly unknown[] = []): ApiCall<T> {
  const { api } = useApi();
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({ error: null, loading: true });
  const latest = useRef(0);
  const run = useCallback(() => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load(api).then(
      (data) => call === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) => call === latest.current && setState({ data: undefined, error, loading: false }),
    );
    // `load` is a fresh closure each render; `deps` say when it asks for something else.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, ...deps]);
  useEffect(() => {
    run();
    return () => {
      latest.current++;
    };
  }, [run]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}

export interface ApiAction<K> {
  /** Which action runs now (a button's key), or null. */
  busy: K | null;
  error: unknown;
  /** Runs `act` as `key`; a failure is kept in `error` for the page to show. */
  run(key: K, act: (api: Api) => Promise<void>): Promise<void>;
}

/** A user-started call (a button): its busy state and its error. */
export function useApiAction<K = true>(): ApiAction<K> {
  const { api } = useApi();
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(
    async (key: K, act: (api: Api) => Promise<void>) => {
      setBusy(key);
      setError(null);
      try {
        await act(api);
      } catch (failure) {
        setError(failure);
      } finally {
        setBusy(null);
      }
    },
    [api],
  );
  return { busy, error, run };
}
