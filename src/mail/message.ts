/**
 * A notification mail: a line per notification, each with its task's link, as plain text and
 * simple HTML (no images, no tracking), and the headers of a one-click unsubscribe (RFC 8058).
 */
import type { MailLine } from './queue.repository.js';

export interface MailMessage {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

const taskRef = (line: MailLine) => `#${line.taskNumber} ${line.taskTitle}`;

/** What happened, in one sentence; `Someone` where the actor's account is gone. */
export function describe(line: MailLine): string {
  const actor = line.actorName ?? 'Someone';
  switch (line.kind) {
    case 'assigned':
      return `${actor} assigned you to ${taskRef(line)}`;
    case 'unassigned':
      return `${actor} unassigned you from ${taskRef(line)}`;
    case 'mentioned':
      return `${actor} mentioned you on ${taskRef(line)}`;
    case 'commented':
      return `${actor} commented on ${taskRef(line)}`;
    case 'statusChanged':
      return `${actor} moved ${taskRef(line)} to ${line.statusName}`;
    case 'dueSoon':
      return `${taskRef(line)} is due ${line.dueDate ? `on ${line.dueDate}` : 'soon'}`;
    case 'overdue':
      return `${taskRef(line)} is overdue${line.dueDate ? ` (it was due on ${line.dueDate})` : ''}`;
  }
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The mail of `lines` (at least one), linking to `publicUrl`, with the unsubscribe `token`: the
 * List-Unsubscribe header names the API's one-click endpoint (a mail client POSTs to it), the
 * text the web app's page that asks first (a link scanner's GET must not unsubscribe anyone).
 */
export function composeMail(lines: readonly MailLine[], publicUrl: string, token: string): MailMessage {
  const link = (line: MailLine) => `${publicUrl}/tasks/${line.taskId}`;
  const settings = `${publicUrl}/settings`;
  const unsubscribeUrl = `${publicUrl}/unsubscribe#${token}`;
  const subject = lines.length === 1 ? describe(lines[0]!) : `${lines.length} updates on your tasks in tasklane`;
  const text = [
    ...lines.map((line) => `- ${describe(line)}\n  ${link(line)}`),
    '',
    '-- ',
    `You get this email because of your notification settings: ${settings}`,
    `To stop all email from tasklane: ${unsubscribeUrl}`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body>',
    '<ul>',
    ...lines.map((line) => `<li><a href="${escapeHtml(link(line))}">${escapeHtml(describe(line))}</a></li>`),
    '</ul>',
    `<p style="color:#555;font-size:90%">You get this email because of your <a href="${escapeHtml(settings)}">notification settings</a>. ` +
      `<a href="${escapeHtml(unsubscribeUrl)}">Stop all email from tasklane</a>.</p>`,
    '</body></html>',
  ].join('\n');
  return {
    subject,
    text,
    html,
    headers: {
      'List-Unsubscribe': `<${publicUrl}/v1/mail/unsubscribe/${token}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'Auto-Submitted': 'auto-generated',
    },
  };
}
