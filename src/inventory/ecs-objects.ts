/** Reading an account's ECS inventory (services, tasks, containers). */
import type { Services } from '../service.js';
import { expireAccountInventory } from './expiry.js';
import { readPage, type Page, type PageRequest } from './paging.js';

interface EcsObject {
  account_name: string;
  cluster_arn: string;
  arn: string;
  created_at: string;
  last_updated: string;
  last_seen: string;
}

export interface EcsServiceRecord extends EcsObject {
  tags: Record<string, string>;
}

export interface EcsTaskRecord extends EcsServiceRecord {
  service_arn: string | null;
  task_definition_arn: string | null;
}

export interface EcsContainerRecord extends EcsObject {
  task_arn: string | null;
  image_tag: string;
  image_digest: string;
}

const ORDER = ['cluster_arn', 'arn'];

async function listTable<T>(services: Services, accountName: string, table: string, req: PageRequest): Promise<Page<T>> {
  await expireAccountInventory(services, accountName);
  return readPage<T>(services.db(table).where({ account_name: accountName }), ORDER, req);
}

function withTags<T extends EcsServiceRecord>(page: Page<Omit<T, 'tags'> & { tags: string }>): Page<T> {
  return { ...page, items: page.items.map((r) => ({ ...r, tags: JSON.parse(r.tags) }) as T) };
}

export const listEcsServices = async (s: Services, account: string, req: PageRequest) =>
  withTags<EcsServiceRecord>(await listTable(s, account, 'ecs_services', req));
export const listEcsTasks = async (s: Services, account: string, req: PageRequest) => withTags<EcsTaskRecord>(await listTable(s, account, 'ecs_tasks', req));
export const listEcsContainers = (s: Services, account: string, req: PageRequest) => listTable<EcsContainerRecord>(s, account, 'ecs_containers', req);
