/** Buttons that download API documents with the session's credentials, showing any refusal. */
import { Button, Group, Stack } from '@mantine/core';
import { useState } from 'react';
import { describeError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';
import { type Download, downloadFile } from './downloads';
import { ErrorAlert } from './LoadState';

export function DownloadButtons({ downloads }: { downloads: Download[] }) {
  const { session } = useApi();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const start = async (download: Download) => {
    setBusy(download.path);
    setError(null);
    try {
      await downloadFile(session, download);
    } catch (failure) {
      setError(`${download.label}: ${describeError(failure)}`);
    } finally {
      setBusy(null);
    }
  };
  return (
    <Stack gap="xs">
      <Group>
        {downloads.map((d) => (
          <Button key={d.path} variant="default" loading={busy === d.path} onClick={() => void start(d)}>
            Download {d.label}
          </Button>
        ))}
      </Group>
      <ErrorAlert title="Download failed" message={error} />
    </Stack>
  );
}
