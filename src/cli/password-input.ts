/**
 * Reading a password for `tasklane admin`, never from the command line (which `ps` shows to every
 * user of the machine and the shell keeps in its history): on a terminal, a prompt on stderr and
 * keys read without echo, asked twice as `passwd` does; otherwise the first line of stdin, so a
 * script can pipe it in (`printf '%s\n' "$PW" | tasklane admin user set-password --user …`).
 */
import type { ReadStream } from 'node:tty';
import type { CliIo } from './io.js';

/** The operator gave no password, or the two entries differ: printed as the command's one-line failure. */
export class PasswordInputError extends Error {}

export async function readPassword(whose: string, database: string, io: CliIo): Promise<string> {
  const { stdin, stderr } = io;
  if (!stdin.isTTY) return firstLine(stdin);
  stderr.write(`Setting the password of ${whose} (database: ${database}).\n`);
  const first = await readHidden(stdin as ReadStream, stderr, 'New password: ');
  const second = await readHidden(stdin as ReadStream, stderr, 'Repeat it: ');
  if (first !== second) throw new PasswordInputError('the two passwords differ; nothing was changed');
  return first;
}

/** The first line of a piped stdin, without its line ending. */
async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin.setEncoding('utf8')) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  const line = text.split('\n')[0]!.replace(/\r$/, '');
  if (line === '') {
    throw new PasswordInputError(
      'no password on stdin: pipe it in (printf \'%s\\n\' "$PASSWORD" | tasklane admin …), or run the command on a terminal to be asked',
    );
  }
  return line;
}

/** One line typed on the terminal, shown as nothing at all: Enter ends it, Backspace edits, Ctrl-C cancels. */
function readHidden(stdin: ReadStream, stderr: CliIo['stderr'], prompt: string): Promise<string> {
  // Echo goes off before the prompt shows, so nothing typed after it can appear.
  stdin.setRawMode(true);
  stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new PasswordInputError('cancelled; nothing was changed'));
        if (char === '\u0004' && value === '') return finish(new PasswordInputError('no password given'));
        if (char === '\u007f' || char === '\b') value = [...value].slice(0, -1).join('');
        else if (char >= ' ') value += char;
      }
    };
    stdin.setEncoding('utf8');
    stdin.on('data', onData);
    stdin.resume();
  });
}
