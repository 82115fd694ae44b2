/**
 * The tasklane processes under soak: N `tasklane serve` children on one database, started
 * together, and the load balancer in front of them (round-robin over the live ones). A process
 * can be killed with SIGKILL and replaced by a new one on the same port, as a supervisor would;
 * each one's memory is sampled from /proc and its log is kept for the report.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { serve, type Serving } from '../../test/processes.js';
import { cpuMs, percentile, rssBytes, sleep } from '../support.js';
import { now, type Ms } from './ledger.js';

export interface Member {
  /** `A`, `B`, `C`; a replacement is `B2`. */
  label: string;
  slot: number;
  serving: Serving;
  url: URL;
  pid: number;
  /** Keep-alive connections to this process only. */
  agent: http.Agent;
  /** In the balancer's rotation. */
  up: boolean;
  /** Killed on purpose (the fault), as opposed to having exited by itself. */
  killed: boolean;
  startedAt: Ms;
  /** Set once the child has exited. */
  exit?: { code: number | null; signal: NodeJS.Signals | null; at: Ms };
  /** VmRSS: after warm-up, at the end of the load, the highest sample, and every sample. */
  rss: { start?: number; end?: number; peak: number; history: { at: Ms; bytes: number }[] };
  /** CPU time (user + system) used, as of the last sample, in ms. */
  cpuMs: number;
}

const LABELS = 'ABCDEFGHIJ';

export class Fleet {
  /** Every process ever started, replacements included, in order of start. */
  readonly all: Member[] = [];
  /** The current process of each slot. */
  readonly slots: Member[] = [];
  private turn = 0;

  private constructor(
    private readonly databaseUrl: string,
    private readonly env: Record<string, string>,
  ) {}

  /** Starts `count` processes at once (one migrates and bootstraps, the others wait on its lock). */
  static async start(databaseUrl: string, count: number, env: Record<string, string>): Promise<Fleet> {
    const fleet = new Fleet(databaseUrl, env);
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, slot) => fleet.launch(slot, LABELS[slot]!, {})),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      fleet.killNow();
      throw (failed as PromiseRejectedResult).reason;
    }
    return fleet;
  }

  private async launch(slot: number, label: string, extra: Record<string, string>): Promise<Member> {
    const serving = await serve(this.databaseUrl, { ...this.env, ...extra });
    const url = new URL(serving.url);
    const member: Member = {
      label,
      slot,
      serving,
      url,
      pid: serving.child.pid!,
      agent: new http.Agent({ keepAlive: true, maxSockets: 64 }),
      up: true,
      killed: false,
      startedAt: now(),
      rss: { peak: 0, history: [] },
      cpuMs: 0,
    };
    serving.child.once('exit', (code, signal) => {
      member.up = false;
      member.exit = { code, signal, at: now() };
    });
    this.all.push(member);
    this.slots[slot] = member;
    return member;
  }

  /** The next live process in round-robin order, or undefined while none is up. */
  pick(): Member | undefined {
    for (let i = 0; i < this.slots.length; i++) {
      const member = this.slots[this.turn++ % this.slots.length]!;
      if (member.up) return member;
    }
    return undefined;
  }

  live(): Member[] {
    return this.slots.filter((m) => m.up);
  }

  /** SIGKILL: the balancer stops routing to it at once; requests in flight to it fail. */
  kill(slot: number): Member {
    const member = this.slots[slot]!;
    member.up = false;
    member.killed = true;
    member.serving.child.kill('SIGKILL');
    member.agent.destroy();
    return member;
  }

  /** Waits for the child's exit (bounded); returns how it ended. */
  async exited(member: Member, timeoutMs = 10_000): Promise<Member['exit']> {
    const deadline = now() + timeoutMs;
    while (!member.exit && now() < deadline) await sleep(20);
    return member.exit;
  }

  /** A new process in the slot, on the old one's port (the balancer's configuration stays the same). */
  async replace(slot: number): Promise<Member> {
    const old = this.slots[slot]!;
    const generation = this.all.filter((m) => m.slot === slot).length + 1;
    return this.launch(slot, `${old.label[0]}${generation}`, { PORT: old.url.port });
  }

  /** One VmRSS and CPU reading of every live process, feeding each one's peak. */
  sample(): void {
    for (const member of this.live()) {
      try {
        const rss = rssBytes(member.pid);
        member.rss.peak = Math.max(member.rss.peak, rss);
        member.rss.history.push({ at: now(), bytes: rss });
        member.cpuMs = cpuMs(member.pid);
      } catch {
        // exited between the check and the read
      }
    }
  }

  /** The median of five readings 200 ms apart (RSS moves with GC), for each of `members`. */
  async readRss(members: Member[], into: 'start' | 'end'): Promise<void> {
    const readings = new Map<Member, number[]>(members.map((m) => [m, []]));
    for (let i = 0; i < 5; i++) {
      if (i > 0) await sleep(200);
      for (const member of members) {
        try {
          readings.get(member)!.push(rssBytes(member.pid));
        } catch {
          // exited
        }
      }
    }
    for (const [member, values] of readings) {
      if (values.length === 0) continue;
      member.rss[into] = percentile(values, 0.5);
      member.rss.peak = Math.max(member.rss.peak, ...values);
    }
    this.sample();
  }

  /** SIGTERM to every live process; resolves once all have exited (SIGKILL after 60 s, by serve()). */
  async stop(): Promise<void> {
    const live = this.live();
    for (const member of live) member.up = false;
    await Promise.all(live.map((member) => member.serving.stop()));
    await Promise.all(live.map((member) => this.exited(member)));
    for (const member of this.all) member.agent.destroy();
  }

  /** For a sudden end: SIGKILL to every process still running. */
  killNow(): void {
    for (const member of this.all) {
      if (!member.exit) member.serving.child.kill('SIGKILL');
      member.agent.destroy();
    }
  }

  /** Writes each process's output to `<dir>/<label>.log`; returns the file names. */
  saveLogs(dir: string): string[] {
    return this.all.map((member) => {
      const file = join(dir, `${member.label}.log`);
      writeFileSync(file, member.serving.stdout() + member.serving.stderr());
      return file;
    });
  }
}
