/** The events area: the event stream, and the notification configurations with their deliveries. */
import { Anchor, Group } from '@mantine/core';
import { NavLink, Route, Routes } from 'react-router-dom';
import { EventStreamPage } from './EventStreamPage';
import { NotificationConfigPage } from './NotificationConfigPage';
import { NotificationsPage } from './NotificationsPage';

function AreaLinks() {
  return (
    <Group component="nav" aria-label="Events and notifications" mb="md">
      <Anchor component={NavLink} to="/events" end>
        Event stream
      </Anchor>
      <Anchor component={NavLink} to="/events/notifications">
        Notifications
      </Anchor>
    </Group>
  );
}

export function EventsPage() {
  return (
    <>
      <AreaLinks />
      <Routes>
        <Route index element={<EventStreamPage />} />
        <Route path="notifications" element={<NotificationsPage />} />
        <Route path="notifications/:kind/:uuid" element={<NotificationConfigPage />} />
      </Routes>
    </>
  );
}
