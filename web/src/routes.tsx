/**
 * The route table under /ui/ and the navigation built from it. Each area's page lives in pages/<area>/; areas with
 * sub-pages take `<area>/*` and route inside their page.
 */
import { Center, Loader } from '@mantine/core';
import { lazy, Suspense, type ComponentType } from 'react';
import type { RouteObject } from 'react-router-dom';
import { NotBuiltYet } from './components/NotBuiltYet';

/**
 * Each area is its own chunk, loaded when first visited: the sign-in page and the image list don't wait for the
 * chart library, the policy editor or the admin pages.
 */
function areaPage(load: () => Promise<ComponentType>) {
  const Page = lazy(async () => ({ default: await load() }));
  return (
    <Suspense fallback={<Center py="xl" role="status" aria-label="Loading the page"><Loader /></Center>}>
      <Page />
    </Suspense>
  );
}

/** The main navigation, in order. `path` is the link target; `end` marks links active only on an exact match. */
export const NAVIGATION: { path: string; label: string; end?: boolean }[] = [
  { path: '/', label: 'Dashboard', end: true },
  { path: '/images', label: 'Images' },
  { path: '/policies', label: 'Policies' },
  { path: '/reports', label: 'Reports' },
  { path: '/events', label: 'Events' },
  { path: '/admin', label: 'Administration' },
];

export const ROUTES: RouteObject[] = [
  { index: true, element: areaPage(async () => (await import('./pages/dashboard/DashboardPage')).DashboardPage) },
  { path: 'images', element: areaPage(async () => (await import('./pages/images/ImagesPage')).ImagesPage) },
  { path: 'images/:digest/*', element: areaPage(async () => (await import('./pages/image/ImagePage')).ImagePage) },
  { path: 'policies/*', element: areaPage(async () => (await import('./pages/policies/PoliciesPage')).PoliciesPage) },
  { path: 'reports/*', element: areaPage(async () => (await import('./pages/reports/ReportsPage')).ReportsPage) },
  { path: 'events/*', element: areaPage(async () => (await import('./pages/events/EventsPage')).EventsPage) },
  { path: 'admin/*', element: areaPage(async () => (await import('./pages/admin/AdminPage')).AdminPage) },
  { path: '*', element: <NotBuiltYet title="Page not found" /> },
];
