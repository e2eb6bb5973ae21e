/** Whether a query selects a nested field, so a resolver can skip reading data nobody asked for. */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

function selects(set: SelectionSetNode | undefined, path: string[], info: GraphQLResolveInfo): boolean {
  if (!set) return false;
  const [head, ...rest] = path;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) {
      if (s.name.value !== head) continue;
      if (!rest.length || selects(s.selectionSet, rest, info)) return true;
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (selects(s.selectionSet, path, info)) return true;
    } else if (selects(info.fragments[s.name.value]?.selectionSet, path, info)) return true;
  }
  return false;
}

/** True when the field being resolved selects `path` (e.g. ['results', 'artifacts', 'fixedIn']) anywhere. */
export function selectsPath(info: GraphQLResolveInfo, path: string[]): boolean {
  return info.fieldNodes.some((node) => selects(node.selectionSet, path, info));
}
