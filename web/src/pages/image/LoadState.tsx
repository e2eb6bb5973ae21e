/** What a section shows while its data loads or after the API refused it (the server's message, never swallowed). */
import { Alert, Loader } from '@mantine/core';
import type { ReactNode } from 'react';
import type { Loaded } from './useLoad';

export function ErrorAlert({ title, message }: { title: string; message: string | null }) {
  if (!message) return null;
  return (
    <Alert color="red" role="alert" title={title}>
      {message}
    </Alert>
  );
}

/** Renders `children(data)` once loaded, the error otherwise. */
export function LoadState<T>({ loaded, what, children }: { loaded: Loaded<T>; what: string; children: (data: T) => ReactNode }) {
  if (loaded.error) return <ErrorAlert title={`Could not load ${what}`} message={loaded.error} />;
  if (loaded.data === null) return <Loader size="sm" role="status" aria-label={`Loading ${what}`} />;
  return <>{children(loaded.data)}</>;
}
