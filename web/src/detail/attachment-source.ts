/**
 * Which image sources in rendered Markdown are a task's attachments (shown inline, lazily). Its own
 * module so the Markdown renderer's chunk holds it, without the attachments' other rules.
 */

const CONTENT_PATH = /^\/v1\/attachments\/\d+\/content$/;

/**
 * An image source that is one of this server's attachments: `/v1/attachments/<digits>/content`
 * on the page's own origin, with no query or fragment. Protocol-relative (`//host/…`) and other
 * hosts' URLs are not, whatever their path.
 */
export function isAttachmentImageSource(source: string, pageOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(source, pageOrigin);
  } catch {
    return false;
  }
  return url.origin === pageOrigin && CONTENT_PATH.test(url.pathname) && !url.search && !url.hash;
}
