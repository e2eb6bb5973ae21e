/** Loading one thing from the API for a page: its data, the failure to show, and a way to load it again. */
import { useCallback, useEffect, useState } from 'react';
import { describeError } from '../../api/errors';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!live) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure) => {
        if (!live) return;
        setError(describeError(failure));
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
    // The caller names what the load depends on; `round` forces a reload.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { data, error, loading, reload };
}
