/**
 * The servers' own account of the run: their JSON log lines (pino) at warn level and above,
 * placed on the soak's clock, so an error outside the fault windows can be reported with the
 * process and time, and those inside them summarised.
 */
import type { Fleet } from './fleet.js';
import { now, type Ms } from './ledger.js';

export interface LogLine {
  member: string;
  at: Ms;
  level: number;
  msg: string;
  /** The error's message, when the line carries one. */
  err?: string;
  raw: string;
}

/** Date.now() when the soak's clock read 0. */
const epochAtZero = Date.now() - now();

/** Every JSON log line of level ≥ 40 (warn) that the processes printed. */
export function serverLogLines(fleet: Fleet): LogLine[] {
  const lines: LogLine[] = [];
  for (const member of fleet.all) {
    for (const raw of `${member.serving.stdout()}\n${member.serving.stderr()}`.split('\n')) {
      if (!raw.startsWith('{')) continue;
      try {
        const entry = JSON.parse(raw) as {
          level?: number;
          time?: number;
          msg?: string;
          err?: { message?: string; code?: string };
        };
        if ((entry.level ?? 0) < 40) continue;
        lines.push({
          member: member.label,
          at: (entry.time ?? epochAtZero) - epochAtZero,
          level: entry.level!,
          msg: entry.msg ?? '',
          err: entry.err ? [entry.err.code, entry.err.message].filter(Boolean).join(': ') : undefined,
          raw,
        });
      } catch {
        // not a log line
      }
    }
  }
  return lines.sort((a, b) => a.at - b.at);
}

/** `12× database unavailable (B: ECONNREFUSED …)`: lines grouped by message and error. */
export function summarise(lines: LogLine[]): string[] {
  const groups = new Map<string, { count: number; members: Set<string> }>();
  for (const line of lines) {
    const key = `${line.level >= 50 ? 'error' : 'warn'}: ${line.msg}${line.err ? ` (${line.err.slice(0, 120)})` : ''}`;
    const group = groups.get(key) ?? { count: 0, members: new Set() };
    group.count++;
    group.members.add(line.member);
    groups.set(key, group);
  }
  return [...groups]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([key, g]) => `${g.count}× ${key} [${[...g.members].join(', ')}]`);
}
