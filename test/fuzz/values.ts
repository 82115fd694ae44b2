/**
 * What the fuzzer generates before it is sent: JSON trees that may hold things JSON.stringify
 * cannot write (duplicate keys, an own `__proto__` key, number tokens such as `1e400`), and
 * symbolic references to real objects (the fixture's list, task, …) resolved at send time,
 * so a counterexample stays meaningful when the fixture is rebuilt.
 */
import fc from 'fast-check';

export type RefKind =
  | 'list'
  | 'task'
  | 'comment'
  | 'entry'
  | 'status'
  | 'label'
  | 'user'
  | 'team'
  | 'key'
  | 'email'
  | 'password'
  | 'webhook'
  | 'view'
  | 'notification'
  | 'attachment'
  | 'export'
  | 'import'
  | 'delivery'
  | 'invitation'
  | 'invitationToken'
  | 'moveTo'
  | 'url'
  | 'oauthClient'
  | 'redirectUri'
  | 'mcpResource';

/** A real object of the fixture, by kind. */
export class Ref {
  constructor(readonly kind: RefKind) {}
  [fc.toStringMethod](): string {
    return `<${this.kind}>`;
  }
}

/** A JSON text token written as is (`1e400`, `-0`, `9007199254740993`, a deep `[[[…]]]`). */
export class Token {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return this.text.length > 80
      ? `Token(${JSON.stringify(this.text.slice(0, 40))}… ${this.text.length} chars)`
      : this.text;
  }
}

/** A huge string, kept as one unit repeated so that a counterexample prints in a line. */
export class Repeat {
  readonly text: string;
  constructor(
    readonly unit: string,
    readonly times: number,
  ) {
    this.text = unit.repeat(times);
  }
  [fc.toStringMethod](): string {
    return `${JSON.stringify(this.unit)} × ${this.times}`;
  }
}

/** An array of one item repeated (a thousand ids), printed in a line. */
export class Many {
  constructor(
    readonly item: Value,
    readonly times: number,
  ) {}
  [fc.toStringMethod](): string {
    return `[${fc.stringify(this.item)} × ${this.times}]`;
  }
}

/** A JSON object as a list of entries: keys may repeat and may be `__proto__`. */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, Value])[]) {}
  [fc.toStringMethod](): string {
    return `{${this.entries.map(([k, v]) => `${JSON.stringify(k)}: ${fc.stringify(v)}`).join(', ')}}`;
  }
}

export type Value = null | boolean | number | string | Ref | Token | Repeat | Many | Entries | Value[];

/** Resolves a reference to the value it stands for in the current fixture. */
export type Resolver = (ref: Ref) => string | number;

/** Writes the value as JSON text. */
export function toJson(value: Value, resolve: Resolver): string {
  if (value instanceof Ref) return JSON.stringify(resolve(value));
  if (value instanceof Token) return value.text;
  if (value instanceof Repeat) return JSON.stringify(value.text);
  if (value instanceof Many) return `[${Array(value.times).fill(toJson(value.item, resolve)).join(',')}]`;
  if (value instanceof Entries) {
    return `{${value.entries.map(([key, v]) => `${JSON.stringify(key)}:${toJson(v, resolve)}`).join(',')}}`;
  }
  if (Array.isArray(value)) return `[${value.map((v) => toJson(v, resolve)).join(',')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** Writes the value as it would appear in a URL (before percent-encoding). */
export function toText(value: Value, resolve: Resolver): string {
  if (value instanceof Ref) return String(resolve(value));
  if (typeof value === 'string') return value;
  if (value instanceof Token || value instanceof Repeat) return value.text;
  return toJson(value, resolve);
}
