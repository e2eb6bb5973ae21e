/**
 * A coloured badge whose text stays dark: Mantine's light-variant text on its tint is below 4.5:1 for several
 * colours (green, red at small sizes), which axe rightly flags; the tint carries the colour, the text the contrast.
 */
import { Badge, type BadgeProps } from '@mantine/core';
import type { ReactNode } from 'react';

export function Tone({ children, ...props }: Omit<BadgeProps, 'variant' | 'c'> & { children: ReactNode; 'data-testid'?: string }) {
  return (
    <Badge variant="light" c="dark.7" {...props}>
      {children}
    </Badge>
  );
}
