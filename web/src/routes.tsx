/**
 * The route table under /ui/ and the navigation built from it. Each area's page lives in pages/<area>/; areas with
 * sub-pages take `<area>/*` and route inside their page.
 */
import type { RouteObject } from 'react-router-dom';
import { NotBuiltYet } from './components/NotBuiltYet';
import { AdminPage } from './pages/admin/AdminPage';
import { DashboardPage } from './pages/dashboard/DashboardPage';
import { EventsPage } from './pages/events/EventsPage';
import { ImagePage } from './pages/image/ImagePage';
import { ImagesPage } from './pages/images/ImagesPage';
import { PoliciesPage } from './pages/policies/PoliciesPage';
import { ReportsPage } from './pages/reports/ReportsPage';

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
  { index: true, element: <DashboardPage /> },
  { path: 'images', element: <ImagesPage /> },
  { path: 'images/:digest/*', element: <ImagePage /> },
  { path: 'policies/*', element: <PoliciesPage /> },
  { path: 'reports/*', element: <ReportsPage /> },
  { path: 'events/*', element: <EventsPage /> },
  { path: 'admin/*', element: <AdminPage /> },
  { path: '*', element: <NotBuiltYet title="Page not found" /> },
];
