/**
 * Adding images: by tag (POST /v2/images) or by uploading a `docker save` / OCI archive (POST /v2/images/archives).
 * Each added image is followed until its analysis ends (analyzed or failed), with the stage it is in.
 */
import { Alert, Badge, Button, FileInput, Group, List, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useState } from 'react';
import type { components } from '../../../../generated/openapi-types';
import { data } from '../../api/client';
import { describeError } from '../../api/errors';
import { useApi } from '../../components/SessionProvider';

type Image = components['schemas']['AnchoreImage'];
const POLL_MS = 2000;
const DONE = new Set(['analyzed', 'analysis_failed']);

function progressText(image: Image): string {
  if (image.analysis_status === 'analyzed') return 'Analyzed';
  if (image.analysis_status === 'analysis_failed') {
    const reason = image.analysis_status_detail.at(-1)?.detail;
    return reason ? `Failed: ${reason}` : 'Failed';
  }
  const p = image.analysis_progress;
  if (image.analysis_status === 'not_analyzed' || !p) return 'Waiting for analysis';
  const layers = p.layer && p.layer_count ? ` (layer ${p.layer} of ${p.layer_count})` : '';
  return `Analyzing: ${p.stage.replace('_', ' ')}${layers}`;
}

/** Follows one image's analysis until it ends; errors are shown, and polling continues after them. */
function AddedImage({ digest, label, onDone }: { digest: string; label: string; onDone(): void }) {
  const { api } = useApi();
  const [image, setImage] = useState<Image | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let live = true;
    const poll = async () => {
      try {
        const next = await data(api.rest.GET('/images/{image_digest}', { params: { path: { image_digest: digest } } }));
        if (!live) return;
        setImage(next);
        setError(null);
        if (DONE.has(next.analysis_status)) return onDone();
      } catch (failure) {
        if (live) setError(describeError(failure));
      }
      if (live) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [api, digest, onDone]);
  const status = image?.analysis_status ?? 'not_analyzed';
  return (
    <List.Item>
      <Group gap="xs">
        <Text size="sm" fw={600}>
          {label}
        </Text>
        <Badge variant="light" color={status === 'analyzed' ? 'green' : status === 'analysis_failed' ? 'red' : 'blue'} aria-live="polite">
          {image ? progressText(image) : 'Added'}
        </Badge>
        {error && (
          <Text size="sm" c="red.9" role="alert">
            {error}
          </Text>
        )}
      </Group>
    </List.Item>
  );
}

export function AddImage({ onAnalysisEnded }: { onAnalysisEnded(): void }) {
  const { api } = useApi();
  const [tag, setTag] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [archiveTag, setArchiveTag] = useState('');
  const [added, setAdded] = useState<{ digest: string; label: string }[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent, add: () => Promise<Image>, label: string) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const image = await add();
      setAdded((list) => [{ digest: image.image_digest, label }, ...list.filter((a) => a.digest !== image.image_digest)]);
      onAnalysisEnded();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  const addTag = (e: FormEvent) =>
    submit(e, () => data(api.rest.POST('/images', { body: { source: { tag: { pull_string: tag.trim() } } } })), tag.trim());
  const upload = (e: FormEvent) =>
    submit(
      e,
      () =>
        data(
          api.rest.POST('/images/archives', {
            params: { query: archiveTag.trim() ? { tag: archiveTag.trim() } : {} },
            body: file as unknown as string,
            bodySerializer: (body) => body as unknown as File,
            headers: { 'Content-Type': file?.name.endsWith('gz') ? 'application/gzip' : 'application/x-tar' },
          }),
        ),
      archiveTag.trim() || file?.name || 'archive',
    );

  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Add an image
        </Title>
        {error && (
          <Alert color="red" role="alert" title="Could not add the image">
            {error}
          </Alert>
        )}
        <Group align="flex-start" gap="xl" wrap="wrap">
          <form onSubmit={addTag}>
            <Group align="flex-end" gap="xs">
              <TextInput label="Image tag" placeholder="registry.example.com/team/app:1.0" w={340} required value={tag} onChange={(e) => setTag(e.currentTarget.value)} />
              <Button type="submit" loading={busy} disabled={!tag.trim()}>
                Add image
              </Button>
            </Group>
          </form>
          <form onSubmit={upload}>
            <Group align="flex-end" gap="xs">
              <FileInput label="Image archive" placeholder="docker save or OCI tarball" w={240} accept=".tar,.tar.gz,.tgz" value={file} onChange={setFile} clearable clearButtonProps={{ 'aria-label': 'Remove the chosen archive' }} />
              <TextInput label="Tag for the archive" placeholder="optional" w={220} value={archiveTag} onChange={(e) => setArchiveTag(e.currentTarget.value)} />
              <Button type="submit" loading={busy} disabled={!file}>
                Upload archive
              </Button>
            </Group>
          </form>
        </Group>
        {added.length > 0 && (
          <List spacing={4} aria-label="Added images">
            {added.map((a) => (
              <AddedImage key={a.digest} digest={a.digest} label={a.label} onDone={onAnalysisEnded} />
            ))}
          </List>
        )}
      </Stack>
    </Paper>
  );
}
