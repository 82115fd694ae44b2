/** The list colours the API allows, and how each is drawn. */
import { LIST_COLORS, type ListColor } from '@contract/enums';

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

/** A list's colour arrives as a plain string; a form that sends it back needs one of LIST_COLORS. */
export function isListColor(color: string): color is ListColor {
  return (LIST_COLORS as readonly string[]).includes(color);
}

export function swatchOf(color: string): string {
  return isListColor(color) ? SWATCHES[color] : SWATCHES.Gray;
}
