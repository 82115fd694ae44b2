/** Status colours are hex (#RGB or #RRGGBB) or null; a colour input takes #rrggbb only. */

/** A new status's colour, until one is picked. */
export const NEW_STATUS_COLOR = '#6b7280';

/** What a colour input shows for a status colour (no colour: the neutral grey). */
export function hexForInput(color: string | null): string {
  if (!color) return NEW_STATUS_COLOR;
  const short = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/i.exec(color);
  const long = short ? `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}` : color;
  return long.toLowerCase();
}
