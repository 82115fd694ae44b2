/**
 * The pure rules of a task's attachments: which are shown as images, sizes in words, the Markdown
 * a comment refers to one with. (Which image sources are attachments: attachment-source.ts, in the
 * Markdown renderer's chunk.)
 */

/** Raster images, which the server serves inline (docs/api.md); SVG and the rest download. */
const RASTER_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export const isRasterImage = (contentType: string) => RASTER_IMAGE_TYPES.has(contentType);

/** "512 bytes", "1.5 KB", "25 MB": decimal units, as the server's limits are written. */
export function humanSize(bytes: number): string {
  if (bytes < 1000) return bytes === 1 ? '1 byte' : `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value < 10 ? Math.round(value * 10) / 10 : Math.round(value)} ${units[unit]}`;
}

/** The path of an attachment's bytes (`GET /v1/attachments/{id}/content`). */
export const contentPath = (attachmentId: number) => `/v1/attachments/${attachmentId}/content`;

/**
 * A comment's reference to an attachment: an image for raster images (shown inline), a link
 * otherwise. Brackets and backslashes in the name are escaped so the name stays the link's text.
 */
export function markdownReference(attachment: { id: number; name: string; contentType: string }): string {
  const text = attachment.name.replace(/[\\[\]]/g, (character) => `\\${character}`);
  return `${isRasterImage(attachment.contentType) ? '!' : ''}[${text}](${contentPath(attachment.id)})`;
}
