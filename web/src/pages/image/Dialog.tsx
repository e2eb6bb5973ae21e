/**
 * A modal dialog named by its title. Mantine's Modal renders its header as <header>, which outside <main> is a
 * second banner landmark (axe: landmark-no-duplicate-banner), and its close button has no name; both fixed here.
 * The scroll lock stays off: it injects a <style> element without the CSP nonce, which the page's CSP refuses.
 */
import { Modal } from '@mantine/core';
import type { ReactNode } from 'react';

export function Dialog({ title, onClose, children }: { title: string; onClose(): void; children: ReactNode }) {
  return (
    <Modal.Root opened onClose={onClose} lockScroll={false}>
      <Modal.Overlay />
      <Modal.Content>
        <Modal.Header role="presentation">
          <Modal.Title>{title}</Modal.Title>
          <Modal.CloseButton aria-label="Close" />
        </Modal.Header>
        <Modal.Body>{children}</Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}
