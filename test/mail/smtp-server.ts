/**
 * A real SMTP server on loopback (the `smtp-server` package), for the email suites: it accepts
 * mail without TLS or authentication and keeps each message as received, with its headers and
 * its text decoded. `refuse` makes it answer a recipient with an SMTP error instead.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** Header name (lower case) → value, folded lines joined. */
  headers: Map<string, string>;
  /** The text/plain part, quoted-printable decoded. */
  text: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** The reply to the next RCPT TO commands, for as long as it is set: `451 …` (try later) or `550 …` (never). */
  refuse: { code: number; message: string } | null;
  /** Resolves once `count` mails have been received. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (text: string) =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

function parse(raw: string, from: string, to: string[]): ReceivedMail {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const body = raw.slice(raw.search(/\r?\n\r?\n/)).replace(/^\r?\n\r?\n/, '');
  // The text/plain part of a multipart/alternative: the part, split on the message's boundary, whose header says so.
  const boundary = /boundary="?([^";]+)"?/.exec(headers.get('content-type') ?? '')?.[1];
  const parts = boundary ? body.split(`--${boundary}`) : [`\r\n${body}`];
  const textPart = parts.find((part) => /^\r?\nContent-Type: text\/plain/i.test(part) || !boundary) ?? '';
  const content = boundary ? textPart.slice(textPart.search(/\r?\n\r?\n/)).trim() : body;
  return { from, to, raw, headers, text: decodeQuotedPrintable(content) };
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const waiting: { count: number; resolve: (mails: ReceivedMail[]) => void }[] = [];
  const state: TestSmtpServer = {
    url: '',
    received: [],
    refuse: null,
    waitFor: (count) =>
      new Promise((resolve) => {
        if (state.received.length >= count) resolve(state.received.slice(0, count));
        else waiting.push({ count, resolve });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (!state.refuse) return callback();
      const error = Object.assign(new Error(state.refuse.message), { responseCode: state.refuse.code });
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const envelope = session.envelope;
        state.received.push(
          parse(
            Buffer.concat(chunks).toString('utf8'),
            envelope.mailFrom ? envelope.mailFrom.address : '',
            envelope.rcptTo.map((to) => to.address),
          ),
        );
        for (const waiter of [...waiting]) {
          if (state.received.length >= waiter.count) {
            waiting.splice(waiting.indexOf(waiter), 1);
            waiter.resolve(state.received.slice(0, waiter.count));
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return state;
}
