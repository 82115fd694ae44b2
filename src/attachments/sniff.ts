/**
 * What a file is, from its first bytes (never the client's word): `file-type`'s signatures, else
 * `text/plain` when the head decodes as UTF-8 without NULs, else `application/octet-stream`.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';

/** How much of the head the sniffing reads (file-type reads up to 4,100 bytes for most types). */
export const SNIFF_BYTES = 8192;

/** Passes everything through, keeping the first SNIFF_BYTES. */
export class HeadKeeper extends Transform {
  private readonly chunks: Buffer[] = [];
  private kept = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.kept < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.kept);
      this.chunks.push(Buffer.from(part));
      this.kept += part.length;
    }
    done(null, chunk);
  }

  head(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    // stream: a character cut at the sample's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export async function sniffContentType(head: Buffer): Promise<string> {
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) return found.mime;
  return looksLikeText(head) ? 'text/plain' : 'application/octet-stream';
}

/** Raster images a browser may show inline; anything else (SVG, HTML, PDF…) is always a download. */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
export const mayShowInline = (contentType: string): boolean => INLINE_TYPES.has(contentType);

/** A client's file name as shown: no control or direction-changing characters, no path, at most 255 characters. */
export function displayName(raw: string | undefined): string {
  const cleaned = (raw ?? '')
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[/\\]/g, '_')
    .trim();
  const name = [...cleaned].slice(0, 255).join('').trim();
  return name === '' || name === '.' || name === '..' ? 'file' : name;
}
