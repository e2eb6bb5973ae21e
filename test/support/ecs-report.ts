/** A minimal ECS inventory report (POST /v2/ecs-inventory) of one cluster, taken `minutesAgo` minutes ago. */
const ARN = 'arn:aws:ecs:eu-west-1:123456789012';

export function ecsReport(name: string, minutesAgo: number) {
  return {
    cluster_arn: `${ARN}:cluster/${name}`,
    timestamp: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    tasks: [{ arn: `${ARN}:task/${name}/t1` }],
    containers: [{ arn: `${ARN}:container/${name}/c1`, image_tag: 'nginx:1' }],
  };
}
