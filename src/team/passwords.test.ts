/** Password hashing: argon2id, old scrypt hashes, and the slots that bound how many hashes run at once. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { legacyScryptHash } from '../../test/browser.js';
import { AppError } from '../http/errors.js';
import { HashSlots, hashPassword, verifyPassword } from './passwords.js';

describe('password hashes', () => {
  test('a new hash is argon2id with OWASP parameters, salted, and verifies only its own password', async () => {
    const first = await hashPassword('correct horse');
    const second = await hashPassword('correct horse');
    assert.match(first, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(first, second, 'two hashes of one password must differ (salt)');
    assert.deepEqual(await verifyPassword('correct horse', first), { ok: true, needsRehash: false });
    assert.deepEqual(await verifyPassword('correct horsf', first), { ok: false, needsRehash: false });
  });

  test('a password is compared in NFKC form, as before argon2id', async () => {
    const stored = await hashPassword('ﬁsh'); // U+FB01, the "fi" ligature
    assert.equal((await verifyPassword('fish', stored)).ok, true);
  });

  test('an old scrypt hash still verifies, and says it needs a rehash', async () => {
    const old = await legacyScryptHash('correct horse');
    assert.deepEqual(await verifyPassword('correct horse', old), { ok: true, needsRehash: true });
    assert.deepEqual(await verifyPassword('wrong horse', old), { ok: false, needsRehash: true });
  });

  test('argon2id with weaker parameters than today verifies and needs a rehash; garbage never verifies', async () => {
    const { hash, Algorithm } = await import('@node-rs/argon2');
    const weak = await hash('correct horse', { algorithm: Algorithm.Argon2id, memoryCost: 8192, timeCost: 1 });
    assert.deepEqual(await verifyPassword('correct horse', weak), { ok: true, needsRehash: true });
    for (const garbage of ['', 'scrypt$', 'scrypt$x$y$z$$', '$argon2id$v=19$m=1,t=1,p=1$AA$AA', 'plain text']) {
      assert.equal((await verifyPassword('correct horse', garbage)).ok, false, garbage);
    }
  });
});

describe('hash slots', () => {
  /** Work that finishes when told to, recording how many ran at once. */
  function gatedWork() {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: (() => void)[] = [];
    const work = (id: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      order.push(id);
      await new Promise<void>((release) => releases.push(release));
      running -= 1;
      return id;
    };
    const releaseAll = async () => {
      while (running > 0 || releases.length > 0) {
        releases.splice(0).forEach((release) => release());
        await sleep(1);
      }
    };
    return { work, most: () => most, order, releaseAll };
  }

  test('at most `size` hashes run at once, and waiting ones start in arrival order', async () => {
    const slots = new HashSlots(2, 10);
    const gate = gatedWork();
    const results = Array.from({ length: 7 }, (_, i) => slots.run(gate.work(i)));
    await sleep(5);
    assert.deepEqual(gate.order, [0, 1], 'only two may start');
    await gate.releaseAll();
    assert.deepEqual(await Promise.all(results), [0, 1, 2, 3, 4, 5, 6]);
    assert.equal(gate.most(), 2);
    assert.deepEqual(gate.order, [0, 1, 2, 3, 4, 5, 6]);
  });

  test('past the queue limit a caller is refused at once with 503 and Retry-After, and the slots recover', async () => {
    const slots = new HashSlots(1, 2);
    const gate = gatedWork();
    const accepted = [0, 1, 2].map((i) => slots.run(gate.work(i)));
    await assert.rejects(slots.run(gate.work(3)), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 503);
      assert.equal(error.headers['retry-after'], '1');
      return true;
    });
    await gate.releaseAll();
    assert.deepEqual(await Promise.all(accepted), [0, 1, 2]);
    const later = slots.run(gate.work(4));
    await gate.releaseAll();
    assert.equal(await later, 4);
  });

  test('a hash that fails frees its slot for the next', async () => {
    const slots = new HashSlots(1, 5);
    const failing = slots.run(async () => {
      throw new Error('boom');
    });
    const next = slots.run(async () => 'next ran');
    await assert.rejects(failing, /boom/);
    assert.equal(await next, 'next ran');
  });
});
