/** Loads data for a page from the API: the answer, the failure (kept for the page to show) and a reload. */
import { useCallback, useEffect, useState } from 'react';

export interface AsyncData<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

export function useAsyncData<T>(load: () => Promise<T>, deps: unknown[]): AsyncData<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    run().then(
      (data) => current && setState({ data, loading: false }),
      (error: unknown) => current && setState({ error, loading: false }),
    );
    // An answer that arrives after the inputs changed belongs to the old inputs: dropped.
    return () => {
      current = false;
    };
  }, [run, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
