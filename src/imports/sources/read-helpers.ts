/**
 * What the readers share: reading a CSV's rows with their line numbers, a whole small file, and the
 * checks of a date and a file's name. Every failure of the file's format becomes UnreadableFile
 * here, so a reader never lets a parser's own error (a 500) out.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { UnreadableFile } from './source-items.js';

/** A row of a CSV: its cells, and the line it starts on (the header is line 1). */
export interface CsvRow {
  cells: string[];
  line: number;
}

/**
 * A CSV's rows as they are parsed: RFC 4180 quoting (commas and line breaks inside quotes), a
 * byte-order mark dropped (Excel writes one), rows of any length, CRLF, LF or CR line ends.
 * A blank line is a row of one empty cell, so line numbers count it.
 */
export async function* csvRows(bytes: AsyncIterable<Buffer>, what: string): AsyncGenerator<CsvRow> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    relax_quotes: true,
    raw: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  // The parser is consumed below; a failure of either side ends the loop with its error.
  const feeding = pipeline(Readable.from(bytes, { objectMode: false }), parser).catch(() => {});
  let line = 1;
  try {
    for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      yield { cells: record, line };
      // The parser's own line count takes a quoted CRLF for two lines: count the record's text instead
      // (its line breaks but the one ending it; only a quoted cell holds one, and it ends with a quote).
      line += 1 + (raw.replace(/[\r\n]+$/, '').match(/\r\n|\r|\n/g)?.length ?? 0);
    }
  } catch (error) {
    if (error instanceof CsvError) {
      throw new UnreadableFile(`The file is not a readable ${what}: ${error.message}`);
    }
    throw error;
  } finally {
    parser.destroy();
    await feeding;
  }
}

/** Whether every cell of a row is empty: the blank rows a spreadsheet leaves. */
export const isBlankRow = (cells: string[]): boolean => cells.every((cell) => cell.trim() === '');

/** A whole file's bytes, refused over `cap` bytes: for formats that are one document (Trello's JSON). */
export async function wholeFile(bytes: AsyncIterable<Buffer>, cap: number, tooLarge: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of bytes) {
    size += chunk.length;
    if (size > cap) throw new UnreadableFile(tooLarge);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An uploaded file's name without its folders and its extension ("Q3 plan" of "C:\\x\\Q3 plan.csv"), or null. */
export function baseName(fileName: string | null): string | null {
  if (fileName === null) return null;
  const name = fileName
    .split(/[\\/]/)
    .pop()!
    .replace(/\.[^.]*$/, '')
    .trim();
  return name === '' ? null : name;
}

/** A short quotation of a value for a problem's message. */
export const quoted = (value: string): string => `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}'`;
