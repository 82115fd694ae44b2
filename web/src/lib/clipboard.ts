/**
 * Copies text. The Clipboard API needs a secure context (https or localhost); a self-hosted
 * server on plain http falls back to selecting the text in its input and the copy command.
 */
export async function copyText(text: string, input?: HTMLInputElement | HTMLTextAreaElement | null): Promise<boolean> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // permission refused: try the fallback
    }
  }
  if (!input) return false;
  input.focus();
  input.select();
  return document.execCommand('copy');
}
