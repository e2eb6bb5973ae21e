/**
 * The dashboard's findings panels: vulnerabilities by severity across current tags (the latest metrics sample),
 * tags with a known-exploited finding, and tags failing the active policy (both counted live over the images).
 */
import { Anchor } from '@mantine/core';
import { Link } from 'react-router-dom';
import { data } from '../../api/client';
import { useApiCall } from '../../api/use-api-call';
import { latestSeverities, SEVERITIES } from './metrics';
import { Figure, Figures, Panel } from './Panel';

export function SeverityPanel() {
  const call = useApiCall((api) => latestSeverities(api));
  return (
    <Panel
      title="Vulnerabilities by severity"
      action="load the vulnerability counts"
      call={call}
      note={
        call.data?.collectedAt
          ? `Across current tags (each tag counts its image's vulnerabilities), as of the metrics collected at ${call.data.collectedAt} UTC.`
          : 'Across current tags, from the reporting metrics.'
      }
    >
      {({ collectedAt, counts }) =>
        collectedAt === null ? (
          'No metrics collected yet.'
        ) : (
          <Figures cols={3}>
            {SEVERITIES.map((severity) => (
              <Figure
                key={severity}
                label={severity}
                value={counts[severity] ?? '–'}
              />
            ))}
          </Figures>
        )
      }
    </Panel>
  );
}

/** How many current tags match a filter of the image list (its total, from a one-row page). */
function useTagCount(query: { has_kev?: boolean; policy_status?: 'pass' | 'fail' }) {
  return useApiCall(async (api) => (await data(api.rest.GET('/summaries/image-tags', { params: { query: { ...query, limit: 1 } } }))).total_rows);
}

export function KnownExploitedPanel() {
  const call = useTagCount({ has_kev: true });
  return (
    <Panel title="Known exploited" action="count the tags with known-exploited vulnerabilities" call={call} note="Current tags whose image has a vulnerability in the known-exploited (KEV) catalog.">
      {(count) => (
        <Figures cols={1}>
          <Figure label="Tags with a known-exploited vulnerability" value={count} />
        </Figures>
      )}
    </Panel>
  );
}

export function PolicyPanel() {
  const failing = useTagCount({ policy_status: 'fail' });
  const passing = useTagCount({ policy_status: 'pass' });
  // One panel over two calls: either failure is shown; the counts need both.
  const call = {
    data: failing.data !== undefined && passing.data !== undefined ? { fail: failing.data, pass: passing.data } : undefined,
    error: failing.error ?? passing.error,
    loading: failing.loading || passing.loading,
    reload: () => {
      failing.reload();
      passing.reload();
    },
  };
  return (
    <Panel title="Policy" action="count the policy results" call={call} note="Current tags by their latest evaluation under the active policy.">
      {({ fail, pass }) => (
        <>
          <Figures cols={2}>
            <Figure label="Tags failing policy" value={fail} />
            <Figure label="Tags passing policy" value={pass} />
          </Figures>
          <Anchor component={Link} to="/images" size="sm">
            Open the image list
          </Anchor>
        </>
      )}
    </Panel>
  );
}
