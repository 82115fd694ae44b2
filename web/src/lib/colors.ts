/** The list colours the API allows, and how each is drawn. */
import type { ListColor } from '../api/types';

const SWATCHES: Record<ListColor, string> = {
  Gray: '#6b7280',
  Red: '#dc2626',
  Orange: '#ea580c',
  Yellow: '#ca8a04',
  Amber: '#d97706',
  Lime: '#65a30d',
  Green: '#16a34a',
  Teal: '#0d9488',
  Sky: '#0284c7',
  Blue: '#2563eb',
  Purple: '#9333ea',
  Pink: '#db2777',
};

export function swatchOf(color: string): string {
  return SWATCHES[color as ListColor] ?? SWATCHES.Gray;
}
